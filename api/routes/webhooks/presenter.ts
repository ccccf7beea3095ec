import type { WebhookDelivery } from '../../../db/models/WebhookDelivery';
import type { WebhookEndpoint } from '../../../db/models/WebhookEndpoint';

/** A webhook endpoint as the API presents it; the secret only where it says so. */
export const presentEndpoint = (endpoint: WebhookEndpoint) => ({
  id: endpoint.id,
  url: endpoint.url,
  description: endpoint.description,
  events: endpoint.events,
  enabled: endpoint.enabled,
  disabled_reason: endpoint.disabled_reason,
  created_at: endpoint.created_at.toISOString(),
  updated_at: endpoint.updated_at.toISOString(),
});

/** Only the create and rotate answers carry the secret. */
export const presentWithSecret = (endpoint: WebhookEndpoint) => ({
  ...presentEndpoint(endpoint),
  secret: endpoint.secret,
  previous_secret_expires_at: endpoint.previous_secret_expires_at?.toISOString() ?? null,
});

export const presentDelivery = (delivery: WebhookDelivery) => ({
  id: delivery.id,
  event_id: delivery.event_id,
  event_type: delivery.event_type,
  status: delivery.status,
  attempts: delivery.attempts,
  last_response_code: delivery.last_response_code,
  last_error: delivery.last_error,
  created_at: delivery.created_at.toISOString(),
  delivered_at: delivery.delivered_at?.toISOString() ?? null,
});
