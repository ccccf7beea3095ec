import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  DEFAULT_WEBHOOK_TIMEOUT_SECONDS,
  webhookAttemptSeconds,
  type WebhookDeliveryInput,
  type WebhookDeliveryResult,
} from '../synthesis/contracts';

/** Recording that a delivery gave up: a short database step, retried until PostgreSQL answers. */
const bookkeeping = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

/**
 * `webhook-delivery:<event-id>:<endpoint-id>`: POST the signed event until the
 * receiver answers 2xx, with exponential backoff for 24 h. Each attempt is one
 * activity execution (WEBHOOK_TIMEOUT_SECONDS request timeout); a 410 disables the endpoint and a
 * refused target ends it at once; anything else is retried by Temporal.
 */
export async function webhookDelivery({
  deliveryId,
  retryInitialSeconds,
  requestTimeoutSeconds = DEFAULT_WEBHOOK_TIMEOUT_SECONDS,
  webhookTaskQueue,
}: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const attempt = proxyActivities<Activities>({
    // Bounded slots of their own (WEBHOOK_CONCURRENCY), apart from mails and bookkeeping.
    taskQueue: webhookTaskQueue,
    // The request itself times out after requestTimeoutSeconds; this bounds the whole attempt (resolve, connect, sign,
    // record). A timeout option is not part of the history's determinism: deliveries started before it replay unchanged.
    startToCloseTimeout: webhookAttemptSeconds(requestTimeoutSeconds) * 1000,
    scheduleToCloseTimeout: '24 hours',
    retry: { initialInterval: retryInitialSeconds * 1000, backoffCoefficient: 2, maximumInterval: '1 hour' },
  });
  try {
    return await attempt.attemptWebhookDelivery({ deliveryId, requestTimeoutSeconds });
  } catch {
    await bookkeeping.recordWebhookDeliveryFailed({ deliveryId });
    return 'failed';
  }
}
