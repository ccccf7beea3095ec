import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../../../synthesis/contracts';
import { PageQuery, pageSchema } from '../../pagination';

/** The form is checked here; whether the target may be reached (scheme, internal addresses) by the command, with the operator's settings. */
const Url = z
  .string()
  .trim()
  .min(1, 'Must not be empty.')
  .max(2048, 'Must be at most 2048 characters.')
  .meta({ description: 'https URL of the receiver', example: 'https://example.com/openvox/webhooks' });
const Events = z
  .array(z.enum(WEBHOOK_EVENTS))
  .min(1, 'Give at least one event.')
  .meta({ description: 'The events to receive, at least one' });
const Description = z
  .string()
  .max(500, 'Must be at most 500 characters.')
  .meta({ description: 'Notes on the endpoint, at most 500 characters' });

export const WebhookParams = z.object({ id: z.uuid().meta({ description: 'The webhook endpoint’s id' }) });
export const WebhookListQuery = PageQuery;
export const WebhookCreateBody = z.strictObject({ url: Url, events: Events, description: Description.default('') });
export const WebhookUpdateBody = z
  .strictObject({
    url: Url.optional(),
    events: Events.optional(),
    enabled: z
      .boolean()
      .optional()
      .meta({ description: '`false` stops deliveries; `true` resumes them (and clears disabled_reason)' }),
    description: Description.optional(),
  })
  .refine(
    (body) => Object.values(body).some((value) => value !== undefined),
    'Give at least one of url, events, enabled, description.',
  )
  .meta({ minProperties: 1 });

export const WebhookOut = z
  .object({
    id: z.uuid().meta({ description: 'The endpoint’s id' }),
    url: z.string().meta({ description: 'Where deliveries are POSTed' }),
    description: z.string().meta({ description: 'Notes on the endpoint (may be empty)' }),
    events: z.array(z.enum(WEBHOOK_EVENTS)).meta({ description: 'The events it receives' }),
    enabled: z.boolean().meta({ description: 'Whether deliveries are sent' }),
    disabled_reason: z.string().nullable().meta({ description: '`gone` when a receiver answered 410; null otherwise' }),
    created_at: z.string().meta({ description: 'When the endpoint was created (ISO 8601, UTC)', format: 'date-time' }),
    updated_at: z.string().meta({ description: 'When it was last changed (ISO 8601, UTC)', format: 'date-time' }),
  })
  .meta({ id: 'WebhookEndpoint' });
export const WebhookWithSecretOut = WebhookOut.extend({
  secret: z.string().meta({ description: 'whsec_…: shown only in this response' }),
  previous_secret_expires_at: z
    .string()
    .nullable()
    .meta({ description: 'After a rotation: until when the old secret still signs too' }),
}).meta({ id: 'WebhookEndpointWithSecret' });
export const WebhookPage = pageSchema(WebhookOut).meta({ id: 'WebhookEndpointPage' });

export const DeliveryOut = z
  .object({
    id: z.uuid().meta({ description: 'The delivery’s id' }),
    event_id: z
      .string()
      .meta({ description: 'The event’s id (also the `OpenVox-Webhook-Id` header): receivers dedupe on it' }),
    event_type: z.string().meta({ description: 'The event, e.g. `synthesis.completed`' }),
    status: z
      .enum(['pending', 'delivered', 'failed'])
      .meta({ description: '`pending` while retries remain (for 24 h), `delivered` on a 2xx, `failed` when given up' }),
    attempts: z.number().int().meta({ description: 'POSTs made so far', example: 1 }),
    last_response_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'HTTP status of the last attempt; null if none answered', example: 204 }),
    last_error: z
      .string()
      .nullable()
      .meta({ description: 'Why the last attempt failed (timeout, refused, status); null after success' }),
    created_at: z.string().meta({ description: 'When the event happened (ISO 8601, UTC)', format: 'date-time' }),
    delivered_at: z
      .string()
      .nullable()
      .meta({ description: 'When a 2xx answer came (ISO 8601, UTC); null until then', format: 'date-time' }),
  })
  .meta({ id: 'WebhookDelivery' });
export const DeliveryPage = pageSchema(DeliveryOut).meta({ id: 'WebhookDeliveryPage' });
