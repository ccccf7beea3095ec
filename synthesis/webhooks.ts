import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../db/knex';
import { WebhookDelivery } from '../db/models/WebhookDelivery';
import { WebhookEndpoint } from '../db/models/WebhookEndpoint';
import type { webhookDelivery } from '../workflows/webhookDelivery';
import { webhookDeliveryWorkflowId, type WebhookEventType } from './contracts';
import type { Config } from '../lib/config';
import { webhookTaskQueue } from '../lib/temporal';

/**
 * Webhook events: made by the activities that record a job's end (and by the
 * API's test ping), one delivery row and one delivery workflow per enabled
 * endpoint that subscribed to the event.
 */

/**
 * `whsec_` + 24 random bytes in standard base64 (32 characters, no padding):
 * shown once, kept in PostgreSQL to sign with. Standard base64 because the
 * Standard Webhooks libraries decode the part after `whsec_` strictly; secrets
 * made before were base64url, which most of them cannot read (a rotation
 * gives a new one).
 */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** Hex HMAC-SHA256 of `<timestamp>.<body>`, keyed with the whole secret string (UTF-8). */
export const signPayload = (secret: string, timestamp: number, body: string) =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

/** `v1=<hex>` per secret, the newest first: during a rotation's 24 h both the new and the old secret sign. */
export const signatureHeader = (secrets: string[], timestamp: number, body: string) =>
  secrets.map((secret) => `v1=${signPayload(secret, timestamp, body)}`).join(',');

/**
 * The Standard Webhooks signature (standardwebhooks.com): base64 HMAC-SHA256
 * of `<id>.<timestamp>.<body>`, keyed with the secret's bytes (the base64
 * after `whsec_`; Node also reads the older base64url secrets).
 */
export const standardSignature = (secret: string, id: string, timestamp: number, body: string) =>
  createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');

/** `webhook-signature`: `v1,<base64>` per secret, space-separated, the newest first. */
export const standardSignatureHeader = (secrets: string[], id: string, timestamp: number, body: string) =>
  secrets.map((secret) => `v1,${standardSignature(secret, id, timestamp, body)}`).join(' ');

/** The same event (type, resource) always gets the same id, so a retried announcement is recognised. */
export const stableEventId = (type: WebhookEventType, resourceId: string) =>
  `evt_${createHash('sha256').update(`${type}:${resourceId}`).digest('hex').slice(0, 32)}`;

export interface WebhookEvent {
  id: string;
  type: WebhookEventType;
  accountId: string;
  data: unknown;
}

export interface AnnounceDeps {
  db: Db;
  temporal: Client;
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'WEBHOOK_RETRY_INITIAL_SECONDS' | 'WEBHOOK_TIMEOUT_SECONDS'>;
}

/**
 * Records one delivery per subscribed endpoint and starts its workflow.
 * Idempotent: the (endpoint, event) row is unique and the workflow id is
 * derived from both, so a retried activity starts nothing twice.
 * `endpointId` limits it to one endpoint (the test ping).
 */
export async function announceWebhookEvent(
  { db, temporal, config }: AnnounceDeps,
  event: WebhookEvent,
  endpointId?: string,
): Promise<string[]> {
  const endpoints = await WebhookEndpoint.receiving(db, event.accountId, event.type, endpointId);
  const deliveryIds: string[] = [];
  for (const endpoint of endpoints) {
    const body = JSON.stringify({
      id: event.id,
      type: event.type,
      created: new Date().toISOString(),
      data: event.data,
    });
    const deliveryId = await WebhookDelivery.record(db, {
      id: randomUUID(),
      endpoint_id: endpoint.id,
      event_id: event.id,
      event_type: event.type,
      body,
    });
    deliveryIds.push(deliveryId);
    await temporal.workflow
      // By its type's name (workflows/index.ts exports it so): this module sits below the workflow files.
      .start<typeof webhookDelivery>('webhookDelivery', {
        workflowId: webhookDeliveryWorkflowId(event.id, endpoint.id),
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        // A finished delivery is not repeated when the same event is announced again.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [
          {
            deliveryId,
            retryInitialSeconds: config.WEBHOOK_RETRY_INITIAL_SECONDS,
            requestTimeoutSeconds: config.WEBHOOK_TIMEOUT_SECONDS,
            webhookTaskQueue: webhookTaskQueue(config),
          },
        ],
      })
      .catch((error) => {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      });
  }
  return deliveryIds;
}
