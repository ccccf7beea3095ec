import { createReadStream } from 'node:fs';
import { Account } from '../../../db/models/Account';
import { ConsentRecord } from '../../../db/models/ConsentRecord';
import { SubscriptionPlan } from '../../../db/models/SubscriptionPlan';
import { Voice } from '../../../db/models/Voice';
import type { Db } from '../../../db/knex';
import { awaitBriefly, cpuTaskQueue, requestCancel, startRemoval } from '../../../lib/temporal';
import type { VoiceCloningInput } from '../../../workflows/voiceCloning';
import { voiceCloningWorkflowId as cloningWorkflowId, voiceDeletionWorkflowId } from '../../../synthesis/contracts';
import { voiceDeletion } from '../../../workflows/deletion';
import type { ApiDeps } from '../../deps';
import { notFound, permissionDenied, planLimitReached } from '../../errors';
import type { AcceptedSample } from './upload';

const sampleKeys = (accountId: string, voiceId: string) => ({
  original: `samples/${accountId}/${voiceId}/original`,
  normalized: `samples/${accountId}/${voiceId}/normalized.wav`,
});

/**
 * Stores the sample, then in one transaction (the account row locked, so two
 * uploads cannot both take the last slot): the plan's limit, the voice, the
 * consent record, and the cloning workflow's start.
 */
export async function startCloning(
  deps: ApiDeps,
  account: Account,
  sample: AcceptedSample,
  client: { ip: string; userAgent: string },
) {
  const { db, storage, temporal, config } = deps;
  const keys = sampleKeys(account.id, sample.voiceId);
  await storage.put(keys.original, createReadStream(sample.filePath), 'application/octet-stream');
  let voice;
  try {
    voice = await db.transaction(async (trx) => {
      await Account.lock(trx, account.id);
      const plan = await SubscriptionPlan.query(trx)
        .findById(account.subscription_tier)
        .select('max_cloned_voices')
        .throwIfNotFound();
      const count = await Voice.query(trx).modify('countingTowardPlan', account).resultSize();
      if (count >= plan.max_cloned_voices)
        throw planLimitReached(`Your plan allows ${plan.max_cloned_voices} cloned voices.`);
      const inserted = await Voice.query(trx)
        .insert({
          id: sample.voiceId,
          account_id: account.id,
          category: 'cloned',
          name: sample.form.name,
          language: sample.form.language,
          gender: 'unknown',
          description: sample.form.description,
          status: 'processing',
          license: 'free',
        })
        .returning('*');
      await ConsentRecord.query(trx).insert({
        id: sample.voiceId,
        account_id: account.id,
        voice_id: sample.voiceId,
        client_ip: client.ip,
        user_agent: client.userAgent.slice(0, 500),
        file_sha256: sample.sha256,
        file_bytes: sample.bytes,
      });
      return inserted;
    });
  } catch (error) {
    await storage.remove(keys.original);
    throw error;
  }
  // Started after the commit: the workflow's first activity reads the voice.
  try {
    const input: VoiceCloningInput = {
      voiceId: sample.voiceId,
      accountId: account.id,
      cpuTaskQueue: cpuTaskQueue(config),
    };
    await temporal.workflow.start<(input: VoiceCloningInput) => Promise<string>>('voiceCloning', {
      workflowId: cloningWorkflowId(sample.voiceId),
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      args: [input],
    });
  } catch (error) {
    // Never started: the voice goes again (the consent record stays, as for any removed voice).
    await Voice.query(db).deleteById(sample.voiceId);
    await storage.remove(keys.original);
    throw error;
  }
  return voice;
}

/** A voice the caller can use: premade, or their own clone. Another account's or an unknown one is 404. */
export async function findVoice(db: Db, account: Account, id: string): Promise<Voice> {
  const voice = await Voice.query(db).modify('visibleTo', account).findById(id);
  if (!voice) throw notFound('No such voice.');
  return voice;
}

/**
 * The caller's clone, before it loses its sample (deletion, revoked consent):
 * premade voices are 403 (`premade` says why), and a clone still processing
 * is canceled first.
 */
export async function stopClone(deps: ApiDeps, account: Account, id: string, premade: string): Promise<void> {
  const voice = await findVoice(deps.db, account, id);
  if (voice.category === 'premade') throw permissionDenied(premade);
  if (voice.status === 'processing') await requestCancel(deps.temporal.workflow.getHandle(cloningWorkflowId(id)));
}

/** Premade voices are 403; another account's or unknown ones 404. A clone still processing is canceled first. */
export async function deleteVoice(deps: ApiDeps, account: Account, id: string): Promise<void> {
  const { db, temporal } = deps;
  await stopClone(deps, account, id, 'Premade voices cannot be deleted.');
  // A workflow removes the objects, so a storage outage delays the removal and never leaves a sample behind.
  // Started before the row is marked: if this process dies in between, the voice is still there to delete again.
  const removal = await startRemoval(deps, { workflow: voiceDeletion, workflowId: voiceDeletionWorkflowId(id), id });
  await Voice.query(db).patch({ deleted_at: db.fn.now(), updated_at: db.fn.now() }).where({ id });
  await awaitBriefly(temporal, removal);
}
