import type { WebhookEndpointRow } from './commands';

/** A webhook endpoint as the API presents it; the secret only where it says so. */
export const presentEndpoint = (endpoint: WebhookEndpointRow) => ({
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
export const presentWithSecret = (endpoint: WebhookEndpointRow) => ({
  ...presentEndpoint(endpoint),
  secret: endpoint.secret,
  previous_secret_expires_at: endpoint.previous_secret_expires_at?.toISOString() ?? null,
});

export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_response_code: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
}
export const presentDelivery = (delivery: DeliveryRow) => ({
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
