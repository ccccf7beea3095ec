import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../../../workflows/contracts';
import { PageQuery, pageSchema } from '../../pagination';

/** The form is checked here; whether the target may be reached (scheme, internal addresses) by the command, with the operator's settings. */
const Url = z.string().trim().min(1, 'Must not be empty.').max(2048, 'Must be at most 2048 characters.').meta({ description: 'https URL of the receiver', example: 'https://example.com/openvox/webhooks' });
const Events = z
  .array(z.enum(WEBHOOK_EVENTS))
  .min(1, 'Give at least one event.')
  .meta({ description: 'The events to receive' });
const Description = z.string().max(500, 'Must be at most 500 characters.');

export const WebhookParams = z.object({ id: z.uuid() });
export const WebhookListQuery = PageQuery;
export const WebhookCreateBody = z.strictObject({ url: Url, events: Events, description: Description.default('') });
export const WebhookUpdateBody = z
  .strictObject({ url: Url.optional(), events: Events.optional(), enabled: z.boolean().optional(), description: Description.optional() })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Give at least one of url, events, enabled, description.')
  .meta({ minProperties: 1 });

export const WebhookOut = z
  .object({
    id: z.uuid(),
    url: z.string(),
    description: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().meta({ description: '`gone` when a receiver answered 410; null otherwise' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' });
export const WebhookWithSecretOut = WebhookOut.extend({
  secret: z.string().meta({ description: 'whsec_…: shown only in this response' }),
  previous_secret_expires_at: z.string().nullable().meta({ description: 'After a rotation: until when the old secret still signs too' }),
}).meta({ id: 'WebhookEndpointWithSecret' });
export const WebhookPage = pageSchema(WebhookOut).meta({ id: 'WebhookEndpointPage' });

export const DeliveryOut = z
  .object({
    id: z.uuid(),
    event_id: z.string(),
    event_type: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.number().int(),
    last_response_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: z.string(),
    delivered_at: z.string().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });
export const DeliveryPage = pageSchema(DeliveryOut).meta({ id: 'WebhookDeliveryPage' });
