import { isGrpcServiceError, WorkflowNotFoundError } from '@temporalio/client';
import type { ActivityDeps } from '.';
import { anonymizeLedger } from '../db/ledger';
import { Account } from '../db/models/Account';
import { ConsentRecord } from '../db/models/ConsentRecord';
import { Project } from '../db/models/Project';
import { Synthesis } from '../db/models/Synthesis';
import { Voice } from '../db/models/Voice';
import { WebhookDelivery } from '../db/models/WebhookDelivery';
import { WebhookEndpoint } from '../db/models/WebhookEndpoint';
import { markAccountDeleted } from '../db/privacy';
import { stableEventId } from '../synthesis/webhooks';
import {
  captureWorkflowId,
  consentRevocationWorkflowId,
  signupWorkflowId,
  synthesisDeletionWorkflowId,
  synthesisWorkflowId,
  type AccountDeletionInput,
  voiceCloningWorkflowId,
  voiceDeletionWorkflowId,
} from '../synthesis/contracts';
import { requestCancel } from '../lib/temporal';
import { deleteEnded } from '../synthesis/lifecycle';
import { accountAudioPrefix, chunkPrefix, removeSynthesisObjects } from '../synthesis/objects';
import { withHeartbeat } from './work';
import { accountBlocksPrefix, accountSnapshotsPrefix } from '../studio/conversion';

/** gRPC's NOT_FOUND: the execution went between describe and delete (another round, or retention). */
const GRPC_NOT_FOUND = 5;

export interface ErasedAccount {
  anonymizedLedgerRows: number;
  keptConsentRecords: number;
}

export function createPrivacyActivities({ db, storage, temporal, config }: ActivityDeps) {
  /** Workflows of the account still running: its queued or processing syntheses and clones. */
  const runningJobs = async (accountId: string) => {
    const syntheses = await Synthesis.query(db).modify('ownedBy', { id: accountId }).modify('running').select('id');
    const voices = await Voice.query(db)
      .modify('ownedBy', { id: accountId })
      .where({ status: 'processing' })
      .select('id');
    return [
      ...syntheses.map((row) => synthesisWorkflowId(row.id)),
      ...voices.map((row) => voiceCloningWorkflowId(row.id)),
    ];
  };

  const cancel = (workflowId: string) => requestCancel(temporal.workflow.getHandle(workflowId));

  const closed = async (workflowId: string) => {
    try {
      return (await temporal.workflow.getHandle(workflowId).describe()).status.name !== 'RUNNING';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return true;
      throw error;
    }
  };

  return {
    /**
     * Marks the account deleted (again: the API did before answering) and
     * removes its webhook endpoints with their deliveries first, so the
     * cancellations that follow announce nothing to anyone.
     */
    async beginAccountDeletion({ accountId }: AccountDeletionInput): Promise<boolean> {
      if (
        !(await markAccountDeleted(db, accountId, { erasedSignupRetentionDays: config.ERASED_SIGNUP_RETENTION_DAYS }))
      )
        return false;
      await WebhookEndpoint.query(db).modify('ownedBy', { id: accountId }).delete();
      return true;
    },

    /**
     * Cancels the account's running syntheses and clones (and its signup
     * workflow) and waits until each has ended: a synthesis releases its
     * reservation and removes its own objects on the way out, as it does when
     * its owner deletes it. Then terminates the account's workflows still
     * running (by the `Account` search attribute): a streamed synthesis whose
     * row says completed while its workflow keeps the chunks for the API's
     * reader, a wait that is past settling and that a cancel does not end; its
     * chunks go with the account's objects next, its history after that.
     * Returns how many jobs were asked to cancel or terminated.
     */
    async cancelAccountJobs({ accountId }: AccountDeletionInput): Promise<number> {
      return withHeartbeat(async (signal) => {
        const jobs = await runningJobs(accountId);
        await cancel(signupWorkflowId(accountId));
        for (const workflowId of jobs) await cancel(workflowId);
        for (const workflowId of jobs) {
          while (!(await closed(workflowId))) {
            if (signal.aborted) throw signal.reason;
            await new Promise((resolve) => setTimeout(resolve, 500));
          }
        }
        let terminated = 0;
        // An account id is a UUID: nothing in it can change the query.
        if (/^[0-9a-f-]{36}$/i.test(accountId)) {
          const query = `Account = '${accountId}' AND ExecutionStatus = 'Running'`;
          for await (const { workflowId, runId } of temporal.workflow.list({ query })) {
            try {
              await temporal.workflow.getHandle(workflowId, runId).terminate('account erased');
              terminated += 1;
            } catch (error) {
              // Visibility lags: it had ended already.
              if (
                !(error instanceof WorkflowNotFoundError) &&
                !(isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND)
              )
                throw error;
            }
          }
        }
        return jobs.length + terminated;
      });
    },

    /** Every object under the account's keys: audio, samples and their derived files, and the work files of its syntheses. */
    async removeAccountObjects({ accountId }: AccountDeletionInput): Promise<number> {
      return withHeartbeat(async () => {
        let removed = 0;
        const syntheses = await Synthesis.query(db).modify('ownedBy', { id: accountId }).select('id');
        const projects = await Project.query(db).modify('ownedBy', { id: accountId }).select('id');
        for (const prefix of [
          accountAudioPrefix(accountId),
          `samples/${accountId}/`,
          ...syntheses.map((row) => chunkPrefix(row.id)),
          // Studio: block audio and snapshots by account, covers by project.
          accountBlocksPrefix(accountId),
          accountSnapshotsPrefix(accountId),
          ...projects.map((row) => `projects/${row.id}/`),
        ]) {
          removed += (await storage.list(prefix)).length;
          await storage.removePrefix(prefix);
        }
        return removed;
      });
    },

    /**
     * Deletes the account's closed workflow executions from Temporal: a
     * synthesis's history holds its text (its input), a clone's its name and
     * sample keys, and Temporal would keep them for the namespace's retention.
     * Found by id from the account's rows (syntheses with their capture and
     * deletion, voices with their cloning, deletion and revocation, the
     * signup) and by the `Account` search attribute (syntheses whose rows
     * were deleted before). A run still open is left for the next round.
     * Returns how many executions it deleted.
     */
    async eraseAccountHistories({ accountId }: AccountDeletionInput): Promise<number> {
      return withHeartbeat(async () => {
        const ids = new Set([signupWorkflowId(accountId)]);
        for (const { id } of await Synthesis.query(db).modify('ownedBy', { id: accountId }).select('id')) {
          for (const workflowId of [synthesisWorkflowId(id), captureWorkflowId(id), synthesisDeletionWorkflowId(id)])
            ids.add(workflowId);
        }
        for (const { id } of await Voice.query(db).modify('ownedBy', { id: accountId }).select('id')) {
          for (const workflowId of [
            voiceCloningWorkflowId(id),
            voiceDeletionWorkflowId(id),
            consentRevocationWorkflowId(id),
          ])
            ids.add(workflowId);
        }
        // An account id is a UUID: nothing in it can change the query.
        if (/^[0-9a-f-]{36}$/i.test(accountId)) {
          for await (const execution of temporal.workflow.list({ query: `Account = '${accountId}'` }))
            ids.add(execution.workflowId);
        }
        let deleted = 0;
        for (const workflowId of ids) {
          try {
            const { status, runId } = await temporal.workflow.getHandle(workflowId).describe();
            if (status.name === 'RUNNING') continue;
            await temporal.workflowService.deleteWorkflowExecution({
              namespace: config.TEMPORAL_NAMESPACE,
              workflowExecution: { workflowId, runId },
            });
            deleted += 1;
          } catch (error) {
            if (
              !(error instanceof WorkflowNotFoundError) &&
              !(isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND)
            )
              throw error;
          }
        }
        return deleted;
      });
    },

    /**
     * In one transaction, the account row locked: anonymizes its ledger rows
     * (amounts, kinds and times stay for the books; the account and the
     * reference go), keeps its consent records (proof that consent was
     * given: account id, voice id, time, client address, file checksum; never
     * an email or a name), and deletes the account row, which takes every
     * other row of it along (syntheses, voices, projects, API keys, tokens,
     * idempotency keys). Returns null, erasing nothing, while a job still
     * runs (one submitted at the last moment): the workflow cancels again.
     */
    async eraseAccount({ accountId }: AccountDeletionInput): Promise<ErasedAccount | null> {
      return db.transaction(async (trx) => {
        const account = await Account.lock(trx, accountId);
        const keptConsentRecords = await ConsentRecord.query(trx).where({ account_id: accountId }).resultSize();
        if (!account) return { anonymizedLedgerRows: 0, keptConsentRecords };
        const running = await Synthesis.query(trx).modify('ownedBy', { id: accountId }).modify('running').resultSize();
        // Clones need no such check: a canceled one keeps its row as it was, and cancelAccountJobs waited for its workflow.
        if (Number(running) > 0) return null;
        // The row id keeps each reference unique; `erased:` says why it no longer names a synthesis or a period.
        const anonymizedLedgerRows = await anonymizeLedger(trx, accountId);
        await Account.query(trx).deleteById(accountId);
        return { anonymizedLedgerRows, keptConsentRecords };
      });
    },

    /**
     * Deletes up to `limit` ended syntheses created before their account's
     * retention (the account's `history_retention_days`, else
     * HISTORY_RETENTION_DAYS, else kept) as of `asOf`, with their audio. A
     * queued or processing synthesis is never touched, and the ledger is not:
     * credits stay as they were. The webhook deliveries announcing its end
     * (they carry its text) are deleted with it.
     */
    async expireHistory({
      asOf,
      limit = 200,
    }: {
      asOf: string;
      limit?: number;
    }): Promise<{ deleted: number; more: boolean }> {
      return withHeartbeat(async () => {
        const due = await Synthesis.pastRetention(db, asOf, config.HISTORY_RETENTION_DAYS ?? null, limit);
        for (const synthesis of due) {
          // Objects first: if this attempt dies now, the row is still there to find again.
          await removeSynthesisObjects(storage, synthesis);
          // The webhook deliveries that announced its end carry its text: they go with it.
          const events = (['synthesis.completed', 'synthesis.failed', 'synthesis.canceled'] as const).map((type) =>
            stableEventId(type, synthesis.id),
          );
          await WebhookDelivery.query(db).whereIn('event_id', events).delete();
          await deleteEnded(db, synthesis.id);
        }
        return { deleted: due.length, more: due.length === limit };
      });
    },
  };
}
