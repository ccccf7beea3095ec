import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  executeChild,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { creditDeduction, creditWorkflowId } from './creditDeduction';
import { progressQuery, slotFreedSignal, type SynthesisProgress } from './signals';

export interface SynthesisInput {
  synthesisId: string;
  accountId: string;
  /** Credits reserved by the API before this workflow started (1 per character). */
  credits: number;
  /** Where the CPU-heavy activities run: concurrency = cores. */
  cpuTaskQueue: string;
}

/** Chunks of one synthesis rendered at the same time; the CPU queue's worker bounds the machine. */
const PARALLEL_CHUNKS = 4;

/**
 * Short database steps run as local activities: in the worker that runs the
 * workflow task, recorded as one marker event, with no task-queue round trip
 * through the server (bench/service.ts measures the difference).
 */
const bookkeeping = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

export const synthesisWorkflowId = (synthesisId: string) => `synthesis:${synthesisId}`;

/**
 * `synthesis:<uuid>`: wait for a slot → render (a one-chunk text in one
 * step; longer ones in chunks in parallel, then join) → post-process,
 * encode, store → capture the reserved credits → record.
 * On failure or cancel: release the credits, remove the objects, record why.
 */
export async function synthesis({ synthesisId, accountId, credits, cpuTaskQueue }: SynthesisInput): Promise<SynthesisProgress['status']> {
  const engines = proxyActivities<Activities>({
    taskQueue: cpuTaskQueue,
    startToCloseTimeout: '10 minutes',
    // A worker killed mid-render is noticed within seconds, not minutes.
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '1 second', maximumAttempts: 5 },
    // On cancel, wait until running renders have stopped, so the cleanup below sees every object.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  const state: SynthesisProgress = { status: 'queued', progress: 0 };
  let slotFreed = false;
  let chunkCount = 0;
  setHandler(progressQuery, () => state);
  setHandler(slotFreedSignal, () => {
    slotFreed = true;
  });
  // The query answers from here; the status endpoint reads PostgreSQL, which the activities keep current.
  const report = (changes: Partial<SynthesisProgress>) => void Object.assign(state, changes);
  const creditStep = (step: 'capture' | 'release') =>
    executeChild(creditDeduction, {
      workflowId: creditWorkflowId(step, synthesisId),
      args: [{ step, accountId, reference: synthesisId, amount: credits }],
    });

  /** Chunks rendered in parallel lanes on the CPU queue, then joined and encoded. */
  const renderInChunks = async () => {
    let rendered = 0;
    const pending = Array.from({ length: chunkCount }, (_, index) => index);
    const renderNext = async (): Promise<void> => {
      for (let index = pending.shift(); index !== undefined; index = pending.shift()) {
        await engines.renderSynthesisChunk({ synthesisId, index });
        rendered += 1;
        // The last step (encode) keeps a share of the bar, so 1 means done.
        report({ progress: Math.round((rendered / (chunkCount + 1)) * 1000) / 1000 });
      }
    };
    // Every lane settles before going on, so after a failure or cancel no render is still writing.
    const lanes = await Promise.allSettled(Array.from({ length: Math.min(PARALLEL_CHUNKS, chunkCount) }, renderNext));
    const failed = lanes.find((lane): lane is PromiseRejectedResult => lane.status === 'rejected');
    if (failed) throw failed.reason;
    return engines.finishSynthesis({ synthesisId, chunkCount });
  };

  try {
    for (;;) {
      const slot = await bookkeeping.acquireSynthesisSlot({ synthesisId });
      chunkCount = slot.chunkCount;
      if (slot.started) break;
      slotFreed = false;
      await condition(() => slotFreed, '5 seconds');
    }
    report({ status: 'processing' });

    const audio = chunkCount === 1 ? await engines.renderShortSynthesis({ synthesisId }) : await renderInChunks();
    // Once the audio exists, completing is not interrupted: a cancel now cannot leave it charged but canceled.
    await CancellationScope.nonCancellable(async () => {
      await creditStep('capture');
      await bookkeeping.recordSynthesisCompleted({ synthesisId, ...audio });
    });
    report({ status: 'completed', progress: 1 });
    return 'completed';
  } catch (error) {
    const canceled = isCancellation(error);
    await CancellationScope.nonCancellable(async () => {
      await creditStep('release');
      await bookkeeping.recordSynthesisEnded({
        synthesisId,
        status: canceled ? 'canceled' : 'failed',
        error: canceled ? null : { code: 'synthesis_failed', message: 'The speech engine could not render this text.' },
        chunkCount,
      });
    });
    report({ status: canceled ? 'canceled' : 'failed' });
    if (canceled) throw error;
    return 'failed';
  }
}
