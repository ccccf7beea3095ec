import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { previewKey, previewVersion } from '../activities/previews';
import type { Db } from '../db/knex';
import { Voice } from '../db/models/Voice';
import type { Config } from '../lib/config';
import { cpuTaskQueue } from '../lib/temporal';
import { voicePreviewWorkflowId } from '../synthesis/contracts';

/**
 * Starts the preview workflow of every available premade voice whose stored
 * preview is missing or outdated (or of `voiceIds` only). Idempotent: the
 * workflow id names the voice and version, a running one is left alone and a
 * completed one is never run again. Returns the ids of the workflows started.
 */
export async function ensureVoicePreviews(
  temporal: Client,
  db: Db,
  config: Config,
  voiceIds?: readonly string[],
): Promise<string[]> {
  const query = Voice.query(db).modify('catalog').orderBy('sort_order');
  if (voiceIds) query.whereIn('id', voiceIds);
  const started: string[] = [];
  for (const voice of await query) {
    const version = previewVersion(voice);
    if (voice.preview_key === previewKey(voice.id, version)) continue;
    const workflowId = voicePreviewWorkflowId(voice.id, version);
    try {
      await temporal.workflow.start('voicePreview', {
        workflowId,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        args: [{ voiceId: voice.id, version, cpuTaskQueue: cpuTaskQueue(config) }],
        // A failed render may run again at the next worker start; a completed one never.
        workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      });
      started.push(workflowId);
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
  return started;
}
