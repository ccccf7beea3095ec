import {
  ActivityCancellationType,
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  condition,
  executeChild,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { SynthesisSlot } from '../activities/synthesis';
import type { creditCapture } from './creditCapture';
import {
  captureWorkflowId,
  CREDIT_CAPTURE_WORKFLOW_TYPE,
  FAILURE_CODES,
  heavyTaskQueue,
  streamTaskQueue,
  type FailureType,
  progressQuery,
  READER_SILENCE_SECONDS,
  type ReserveOutcome,
  reserveUpdate,
  slotFreedSignal,
  streamReaderSignal,
  type SynthesisInput,
  type SynthesisProgress,
  type SynthesisResult,
  UNKNOWN_FAILURE,
} from '../synthesis/contracts';

/** Chunks of one synthesis rendered at the same time; the CPU queue's worker bounds the machine. */
const PARALLEL_CHUNKS = 4;
/** Patch id: streamed syntheses render their first chunk before the other lanes start (histories before it did not). */
const FIRST_CHUNK_ALONE = 'stream-first-chunk-alone';
/**
 * Patch id: the capture records the synthesis completed in the transaction that charges it (histories before it
 * left that to recordSynthesisCompleted, one workflow task of this workflow later).
 */
const CAPTURE_COMPLETES = 'capture-records-completion';
/**
 * Patch id: a `high`-tier voice's (Kokoro's) renders run on the heavy queue, with slots of their own (histories
 * before it rendered every voice on the CPU queue; their slot results have no `heavy`).
 */
const HEAVY_QUEUE = 'heavy-renders-own-queue';
/**
 * Patch id: a streamed synthesis removes its chunks only once the API's reader has stopped (or fell silent);
 * histories before it removed them in recordSynthesisCompleted, under a reader that had fallen behind.
 */
const CHUNKS_OUTLIVE_READER = 'stream-chunks-outlive-reader';
/**
 * Patch id: a streamed synthesis (not `high`-tier) renders, stores and finishes in one activity, sentence after
 * sentence, on the streams queue (histories before it ran an activity per sentence and a finish; Kokoro's still do,
 * in parallel lanes, since one of its sentences takes about as long to render as to hear).
 */
const STREAM_IN_ONE_STEP = 'stream-in-one-activity';
/**
 * Patch id: a cancel that comes before the audio exists releases the credits and records the synthesis canceled
 * at once, while the renders are still being stopped; the objects go once they have stopped (histories before it
 * recorded the cancel only after every render had stopped, a chunk's render later under load).
 */
const CANCEL_AT_ONCE = 'cancel-recorded-at-once';

/**
 * Short database steps run as local activities: in the worker that runs the
 * workflow task, recorded as one marker event, with no task-queue round trip
 * through the server (bench/service.ts measures the difference). They retry
 * until PostgreSQL (or storage, for the cleanup) answers: none may be skipped.
 */
const bookkeeping = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

/** The failure a synthesis records: what failed, from the activity's failure type. */
function failureOf(error: unknown): { code: string; message: string } {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.type && cause.type in FAILURE_CODES)
    return FAILURE_CODES[cause.type as FailureType];
  return UNKNOWN_FAILURE;
}

/**
 * `synthesis:<uuid>`, started by the API with Update-with-Start: reserve the
 * credits, record the synthesis and take a free slot (one transaction) →
 * answer the `reserve` update → wait for a slot if none was free → render (a one-chunk text in one step; longer
 * ones in chunks in parallel, then join; a stream sentence after sentence in one step) → post-process, encode, store →
 * capture the credits (`credits:capture:<uuid>`) → record (a streamed text: then remove its chunks once the
 * API's reader has stopped).
 * On failure or cancel: release the credits, remove the objects, record why.
 * The reservation is made here and nowhere else, so whatever happens to the
 * API or the client, this workflow settles it.
 */
export async function synthesis({ request, cpuTaskQueue }: SynthesisInput): Promise<SynthesisResult> {
  const { synthesisId, accountId } = request;
  const onQueue = (taskQueue: string) =>
    proxyActivities<Activities>({
      taskQueue,
      startToCloseTimeout: '10 minutes',
      // A worker killed mid-render is noticed within seconds, not minutes.
      heartbeatTimeout: '10 seconds',
      // Unlimited attempts: the activities decide what is worth a retry (a
      // storage outage, for STORAGE_RETRY_SECONDS) and fail fast otherwise
      // (EngineFailed), so a dead worker or a MinIO restart never fails a job.
      retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
      // On cancel, wait until running renders have stopped, so the cleanup below sees every object.
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    });
  const engines = onQueue(cpuTaskQueue);
  /** Where the renders run: the heavy queue for a `high`-tier voice (decided once the slot is taken). */
  let renders = engines;
  const state: SynthesisProgress = { status: 'queued', progress: 0 };
  let reservation: ReserveOutcome | undefined;
  let slotFreed = false;
  let chunkCount = 0;
  let heavy = false;
  /** The API's stream reader (streamed syntheses): stopped, and heard from since the last look. */
  let readerStopped = false;
  let readerHeard = false;

  setHandler(progressQuery, () => state);
  setHandler(streamReaderSignal, ({ reading }) => {
    readerHeard = true;
    if (!reading) readerStopped = true;
  });
  setHandler(slotFreedSignal, () => {
    slotFreed = true;
  });
  setHandler(reserveUpdate, async () => {
    // Answered even when a cancel came first: the reservation below is made (and settled) regardless.
    await CancellationScope.nonCancellable(() => condition(() => reservation !== undefined));
    return { outcome: reservation! };
  });
  const report = (changes: Partial<SynthesisProgress>) => void Object.assign(state, changes);

  // Not interruptible: a cancel must not abandon a reservation its transaction may have committed.
  const reserved = await CancellationScope.nonCancellable(() => bookkeeping.reserveSynthesis(request));
  reservation = reserved.outcome;
  if (reserved.outcome === 'insufficient') {
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    return 'insufficient';
  }

  /** Set once the audio exists: a cancel from then on changes nothing (completed and charged). */
  let audioExists = false;
  /** A cancel recorded before the audio existed (CANCEL_AT_ONCE): released and recorded, objects not yet removed. */
  let canceledAtOnce: Promise<void> | undefined;
  if (patched(CANCEL_AT_ONCE)) {
    CancellationScope.current().cancelRequested.catch(() => {
      if (audioExists) return;
      report({ status: 'canceled' });
      canceledAtOnce = CancellationScope.nonCancellable(async () => {
        await bookkeeping.releaseCredits({ accountId, reference: synthesisId });
        await bookkeeping.recordSynthesisEnded({ synthesisId, status: 'canceled', error: null, keepObjects: true });
      });
    });
  }

  /** Chunks rendered in parallel lanes on the CPU queue, then joined and encoded. */
  const renderInChunks = async () => {
    let rendered = 0;
    const pending = Array.from({ length: chunkCount }, (_, index) => index);
    const renderNext = async (): Promise<void> => {
      for (let index = pending.shift(); index !== undefined; index = pending.shift()) {
        await renders.renderSynthesisChunk({ synthesisId, index });
        rendered += 1;
        // The last step (encode) keeps a share of the bar, so 1 means done.
        report({ progress: Math.round((rendered / (chunkCount + 1)) * 1000) / 1000 });
      }
    };
    // A streamed text's first sentence renders alone, with the machine to itself: the listener's first
    // audio waits for it only. Scheduled together, the server hands the lanes' tasks out in no set order,
    // and chunk 0 could wait behind others for a slot, then share the cores with them.
    if (request.streaming && patched(FIRST_CHUNK_ALONE)) {
      const first = pending.shift()!;
      await renders.renderSynthesisChunk({ synthesisId, index: first });
      rendered += 1;
      report({ progress: Math.round((rendered / (chunkCount + 1)) * 1000) / 1000 });
    }
    // Every lane settles before going on, so after a failure or cancel no render is still writing.
    const lanes = await Promise.allSettled(
      Array.from({ length: Math.min(PARALLEL_CHUNKS, pending.length) }, renderNext),
    );
    const failed = lanes.find((lane): lane is PromiseRejectedResult => lane.status === 'rejected');
    if (failed) throw failed.reason;
    return engines.finishSynthesis({ synthesisId, chunkCount });
  };

  let result: SynthesisResult;
  try {
    // The reservation took a slot if the plan had one free; otherwise wait for one.
    for (let slot: SynthesisSlot = reserved; ; slot = await bookkeeping.acquireSynthesisSlot({ synthesisId })) {
      chunkCount = slot.chunkCount;
      heavy = slot.heavy === true;
      if (slot.started) break;
      slotFreed = false;
      await condition(() => slotFreed, '5 seconds');
    }
    if (heavy && patched(HEAVY_QUEUE)) renders = onQueue(heavyTaskQueue(cpuTaskQueue));
    report({ status: 'processing' });
    // A streamed text always goes through stored chunks, even one: the streaming API reads them as they land.
    const audio = !request.streaming
      ? chunkCount === 1
        ? await renders.renderShortSynthesis({ synthesisId })
        : await renderInChunks()
      : !heavy && patched(STREAM_IN_ONE_STEP)
        ? await onQueue(streamTaskQueue(cpuTaskQueue)).renderStreamedSynthesis({ synthesisId })
        : await renderInChunks();
    // Recorded canceled already (the render finished as the cancel came): it stays canceled, the audio goes.
    if (canceledAtOnce) throw new CancelledFailure('canceled before the audio existed');
    audioExists = true;
    // Once the audio exists, completing is not interrupted: a cancel now cannot leave it charged but canceled.
    await CancellationScope.nonCancellable(async () => {
      const capture = { accountId, reference: synthesisId, ...(patched(CAPTURE_COMPLETES) && { completes: audio }) };
      await executeChild<typeof creditCapture>(CREDIT_CAPTURE_WORKFLOW_TYPE, {
        workflowId: captureWorkflowId(synthesisId),
        args: [capture],
      });
      const outliveReader = request.streaming === true && patched(CHUNKS_OUTLIVE_READER);
      // The rest of the record (webhooks, the next queued synthesis, chunk cleanup unless a reader may still need
      // them), and the completion itself for histories from before the capture recorded it.
      await bookkeeping.recordSynthesisCompleted({ synthesisId, ...audio, ...(outliveReader && { keepChunks: true }) });
      report({ status: 'completed', progress: 1 });
      if (outliveReader) {
        // A durable timer, no slot held: each word from the reader restarts the wait.
        while (!readerStopped) {
          readerHeard = false;
          if (!(await condition(() => readerStopped || readerHeard, `${READER_SILENCE_SECONDS} seconds`))) break;
        }
        await bookkeeping.removeSynthesisChunks({ synthesisId });
      }
    });
    result = 'completed';
  } catch (error) {
    const canceled = isCancellation(error) || canceledAtOnce !== undefined;
    await CancellationScope.nonCancellable(async () => {
      // Canceled at once: released and recorded then; what is left is removing the objects, now that no render runs.
      if (canceledAtOnce) await canceledAtOnce;
      else await bookkeeping.releaseCredits({ accountId, reference: synthesisId });
      await bookkeeping.recordSynthesisEnded({
        synthesisId,
        status: canceled ? 'canceled' : 'failed',
        error: canceled ? null : failureOf(error),
      });
    });
    result = canceled ? 'canceled' : 'failed';
    report({ status: result });
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    // Canceled, it ends as CANCELLED in Temporal too (whatever a step still running then threw).
    if (canceled) throw isCancellation(error) ? error : new CancelledFailure('canceled');
    return result;
  }
  // A cancel that came once the audio existed changes nothing: completed and charged.
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return result;
}
