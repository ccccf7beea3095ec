import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from '.';
import { Account } from '../db/models/Account';
import { Synthesis, type SynthesisRow } from '../db/models/Synthesis';
import { Voice } from '../db/models/Voice';
import { WebhookDelivery } from '../db/models/WebhookDelivery';
import { WebhookEndpoint } from '../db/models/WebhookEndpoint';
import { postToTarget, TargetRefused } from '../lib/webhookTarget';
import { announceWebhookEvent, signatureHeader, stableEventId, standardSignatureHeader } from '../synthesis/webhooks';
import {
  DEFAULT_WEBHOOK_TIMEOUT_SECONDS,
  type WebhookAttemptOutcome,
  webhookAttemptSeconds,
} from '../synthesis/contracts';
import { presentHistoryEntry, presentVoice } from '../synthesis/resources';
import { ProjectSnapshot } from '../db/models/ProjectSnapshot';
import { presentSnapshot } from '../studio/resources';

/** The endpoint's attempt lease: past the attempt's start-to-close timeout, so a worker that dies mid-attempt frees it by itself. */
const attemptLeaseSeconds = (requestTimeoutSeconds: number) => webhookAttemptSeconds(requestTimeoutSeconds) + 10;

/** A credits.low event goes out when the available balance falls below this share of the plan's monthly credits. */
const CREDITS_LOW_SHARE = 0.1;

/** Events announced by the activities that record a job's end: each data is the resource as the API's versioned family presents it (synthesis/resources.ts). */
export function createWebhookAnnouncer(deps: ActivityDeps) {
  const { db } = deps;
  return {
    async synthesisEnded(synthesisId: string): Promise<void> {
      const row = await Synthesis.query(db).findById(synthesisId);
      if (!row || row.status === 'queued' || row.status === 'processing') return;
      // A piece of a stream-input connection is announced as the connection's entry, once it is recorded.
      if (row.part_of === null) await this.synthesisAnnounced(synthesisId, row);
      if (row.status === 'completed') await this.creditsCaptured(row.account_id, synthesisId, row.credits_charged);
    },

    /** `synthesis.<status>` for an ended entry of history (idempotent: a stable event id). */
    async synthesisAnnounced(synthesisId: string, known?: SynthesisRow): Promise<void> {
      const row = known ?? (await Synthesis.query(db).findById(synthesisId));
      if (!row || row.status === 'queued' || row.status === 'processing') return;
      const type = `synthesis.${row.status}` as const;
      await announceWebhookEvent(deps, {
        id: stableEventId(type, synthesisId),
        type,
        accountId: row.account_id,
        data: presentHistoryEntry(row, 'v1'),
      });
    },

    /**
     * After a capture: announce credits.low when this charge took the available
     * balance below the threshold (once per crossing, keyed by the synthesis).
     */
    async creditsCaptured(accountId: string, synthesisId: string, charged: number): Promise<void> {
      const account = await Account.withMonthlyCredits(db, accountId);
      if (!account) return;
      const balance = Number(account.credit_balance);
      const threshold = Math.floor(Number(account.monthly_credits) * CREDITS_LOW_SHARE);
      if (!(balance < threshold && balance + Number(charged) >= threshold)) return;
      await announceWebhookEvent(deps, {
        id: stableEventId('credits.low', synthesisId),
        type: 'credits.low',
        accountId,
        data: {
          credit_balance: balance,
          credits_reserved: Number(account.credits_reserved),
          monthly_credits: Number(account.monthly_credits),
          threshold,
        },
      });
    },

    async voiceEnded(voiceId: string): Promise<void> {
      const voice = await Voice.query(db).modify('live').findById(voiceId);
      if (!voice || !['ready', 'failed'].includes(voice.status)) return;
      const type = voice.status === 'ready' ? 'voice.ready' : 'voice.failed';
      await announceWebhookEvent(deps, {
        id: stableEventId(type, voiceId),
        type,
        accountId: voice.account_id as string,
        data: presentVoice(voice),
      });
    },

    /** `project.conversion.completed` or `.failed` (a canceled conversion announces nothing: its owner asked for it). */
    async conversionEnded(snapshotId: string): Promise<void> {
      const row = await ProjectSnapshot.query(db).findById(snapshotId);
      if (!row || (row.status !== 'completed' && row.status !== 'failed')) return;
      const type = `project.conversion.${row.status}` as const;
      await announceWebhookEvent(deps, {
        id: stableEventId(type, snapshotId),
        type,
        accountId: row.account_id,
        data: presentSnapshot(row),
      });
    },

    /** `project.chapter.converted`: the snapshot with the chapter's entry in its index, and which chapter it was. */
    async chapterConverted(snapshotId: string, chapterId: string): Promise<void> {
      const row = await ProjectSnapshot.query(db).findById(snapshotId);
      const chapter = row?.chapters.find((one) => one.chapter_id === chapterId);
      if (!row || !chapter) return;
      await announceWebhookEvent(deps, {
        id: stableEventId('project.chapter.converted', `${snapshotId}:${chapterId}`),
        type: 'project.chapter.converted',
        accountId: row.account_id,
        data: { snapshot_id: row.id, project_id: row.project_id, chapter },
      });
    },
  };
}

export function createWebhookActivities({ db, config }: ActivityDeps) {
  const policy = { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS };
  const record = (deliveryId: string, changes: Parameters<typeof WebhookDelivery.note>[2]) =>
    WebhookDelivery.note(db, deliveryId, changes);

  return {
    /**
     * One attempt: load the body and the secrets (here, never from the
     * workflow), sign, POST to the checked address. 2xx → delivered; 410 →
     * the endpoint is disabled; a refused target ends the delivery; anything
     * else throws, and the workflow's retry policy tries again.
     * `requestTimeoutSeconds`: the delivery's (absent in attempts scheduled
     * before it was configurable: the 10 s they were scheduled with).
     */
    async attemptWebhookDelivery({
      deliveryId,
      requestTimeoutSeconds = DEFAULT_WEBHOOK_TIMEOUT_SECONDS,
    }: {
      deliveryId: string;
      requestTimeoutSeconds?: number;
    }): Promise<WebhookAttemptOutcome> {
      const delivery = await WebhookDelivery.forAttempt(db, deliveryId);
      // Its endpoint was deleted (the row went with it), or an earlier attempt already finished it.
      if (!delivery) return 'skipped';
      if (delivery.status === 'delivered') return 'delivered';
      if (delivery.status !== 'pending') return 'skipped';
      if (!delivery.enabled) {
        await record(deliveryId, { status: 'failed', last_error: 'endpoint_disabled' });
        return 'skipped';
      }
      const timestamp = Math.floor(Date.now() / 1000);
      const secrets = [delivery.secret];
      if (
        delivery.previous_secret &&
        delivery.previous_secret_expires_at &&
        delivery.previous_secret_expires_at.getTime() > Date.now()
      ) {
        secrets.push(delivery.previous_secret);
      }
      const headers = {
        'OpenVox-Webhook-Id': delivery.event_id,
        'OpenVox-Webhook-Timestamp': String(timestamp),
        'OpenVox-Signature': signatureHeader(secrets, timestamp, delivery.body),
        // The same delivery signed per Standard Webhooks, so receivers can verify it with its libraries.
        'webhook-id': delivery.event_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': standardSignatureHeader(secrets, delivery.event_id, timestamp, delivery.body),
      };
      // One attempt in flight per endpoint: a hanging receiver holds one slot of the webhook queue, not one per event.
      if (
        !(await WebhookEndpoint.takeAttemptLease(db, delivery.endpoint_id, attemptLeaseSeconds(requestTimeoutSeconds)))
      ) {
        // Not an attempt (nothing is counted or recorded): try again shortly, jittered so waiting deliveries do not collide.
        throw ApplicationFailure.create({
          message: 'Another delivery to this endpoint is in flight.',
          type: 'EndpointBusy',
          nextRetryDelay: 1000 + Math.floor(Math.random() * 2000),
        });
      }
      try {
        await WebhookDelivery.query(db).increment('attempts', 1).where({ id: deliveryId });
        let status: number;
        try {
          ({ status } = await postToTarget(delivery.url, delivery.body, headers, {
            policy,
            timeoutMs: requestTimeoutSeconds * 1000,
          }));
        } catch (error) {
          if (error instanceof TargetRefused) {
            await record(deliveryId, {
              status: 'failed',
              last_error: `target_refused: ${error.message}`.slice(0, 200),
            });
            return 'refused';
          }
          // Duck-typed: a socket's error may come from another realm (jest's), where instanceof Error is false.
          const { name, code } = (error ?? {}) as { name?: string; code?: string };
          const timedOut = name === 'TimeoutError' || name === 'AbortError';
          // The account sees only timeout or unreachable: refused, reset, no route and certificate errors told apart would map
          // the receiver's network for it (a port scan through our workers). The operator's Temporal UI keeps the detail.
          await record(deliveryId, { last_error: timedOut ? 'timeout' : 'unreachable', last_response_code: null });
          throw ApplicationFailure.retryable(
            `The webhook request failed: ${timedOut ? 'timeout' : (code ?? name ?? 'error')}`,
            'WebhookUnreachable',
          );
        }
        if (status >= 200 && status < 300) {
          await record(deliveryId, {
            status: 'delivered',
            last_response_code: status,
            last_error: null,
            delivered_at: db.fn.now(),
          });
          return 'delivered';
        }
        if (status === 410) {
          await record(deliveryId, { status: 'failed', last_response_code: status, last_error: 'gone' });
          await WebhookEndpoint.query(db)
            .patch({ enabled: false, disabled_reason: 'gone', updated_at: db.fn.now() })
            .where({ id: delivery.endpoint_id });
          return 'gone';
        }
        await record(deliveryId, { last_response_code: status, last_error: null });
        throw ApplicationFailure.retryable(`The receiver answered ${status}.`, 'WebhookRejected');
      } finally {
        await WebhookEndpoint.releaseAttemptLease(db, delivery.endpoint_id);
      }
    },

    /** The 24 h of retries ran out. */
    async recordWebhookDeliveryFailed({ deliveryId }: { deliveryId: string }): Promise<void> {
      await WebhookDelivery.query(db)
        .patch({ status: 'failed', updated_at: db.fn.now() })
        .where({ id: deliveryId, status: 'pending' });
    },
  };
}
