import {
  ActivityCancellationType,
  allHandlersFinished,
  CancellationScope,
  condition,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  type BlockAudioRef,
  type BlockRenderInput,
  type BlockRenderReservation,
  blockRenderReserveUpdate,
  type ChapterConversionInput,
  chapterConversionWorkflowId,
  chapterRenderedSignal,
  type ChapterResult,
  type ConversionInput,
  type ConversionProgress,
  conversionProgressQuery,
  type ConversionReservation,
  conversionReserveUpdate,
  type SnapshotStatus,
  studioTaskQueue,
} from '../studio/conversion';

/**
 * Patch id: a chapter's block renders run on the Studio queue (studioTaskQueue), beside the CPU queue's slots;
 * histories before it rendered them on the CPU queue.
 */
const STUDIO_QUEUE = 'block-renders-studio-queue';

/** Short database steps (reserve, record, settle): local activities that retry until PostgreSQL answers. */
const bookkeeping = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

/** Removing what no one holds any more (old snapshots, unused block audio): retried a while, never failing the conversion. */
const housekeeping = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute', maximumAttempts: 10 },
});

/** Steps on a task queue: renders and assembly (CPU), the book's assembly and storage. */
const onQueue = (taskQueue: string) =>
  proxyActivities<Activities>({
    taskQueue,
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });

/** Runs `work` over `items` with at most `lanes` at a time; every lane settles before the first failure is thrown. */
async function inLanes<T, R>(items: readonly T[], lanes: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    for (let index = next++; index < items.length; index = next++) results[index] = await work(items[index]);
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(lanes, items.length)) }, lane));
  const failed = settled.find((one): one is PromiseRejectedResult => one.status === 'rejected');
  if (failed) throw failed.reason;
  return results;
}

/**
 * `project-conversion:<snapshot id>`, started by the API with Update-with-Start:
 * reserve the estimate (`conversion:<snapshot>`) and record the snapshot in
 * one transaction → answer the `reserveConversion` update → one child per
 * chapter (chapterConversion), a few at a time → assemble the book → record
 * it completed and release what the blocks did not take. On failure or
 * cancel: release the rest and record why. Block renders of the whole
 * conversion are bounded by `maxParallelBlocks`, shared among the chapters
 * in flight (other accounts' syntheses keep the rest of the CPU queue).
 */
export async function projectConversion(input: ConversionInput): Promise<SnapshotStatus | 'insufficient' | 'conflict'> {
  const { snapshotId, accountId, projectId, cpuTaskQueue } = input;
  const state: ConversionProgress = { status: 'queued', progress: 0, chaptersDone: 0, chapters: 0 };
  let reservation: ConversionReservation | undefined;
  setHandler(conversionProgressQuery, () => state);
  setHandler(conversionReserveUpdate, async () => {
    await CancellationScope.nonCancellable(() => condition(() => reservation !== undefined));
    return { reservation: reservation! };
  });

  // Not interruptible: a cancel must not abandon a reservation its transaction may have committed.
  reservation = await CancellationScope.nonCancellable(() =>
    bookkeeping.reserveConversion({ snapshotId, accountId, projectId, chapterIds: input.chapterIds }),
  );
  if (reservation.outcome !== 'reserved') {
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    return reservation.outcome;
  }
  const { chapterIds } = reservation;
  const work = onQueue(cpuTaskQueue);
  const maxBlocks = Math.max(1, input.maxParallelBlocks);
  // Chapters in flight, and each one's share of the block renders: together never more than maxBlocks.
  const chapterLanes = Math.max(1, Math.min(maxBlocks, chapterIds.length));
  const parallelBlocks = Math.max(1, Math.floor(maxBlocks / chapterLanes));
  state.chapters = chapterIds.length;

  let status: SnapshotStatus;
  try {
    state.status = 'converting';
    await bookkeeping.recordConversionProgress({ snapshotId, status: 'converting', progress: 0 });
    const childInput = (chapterId: string): ChapterConversionInput => ({
      snapshotId,
      accountId,
      projectId,
      chapterId,
      cpuTaskQueue,
      parallelBlocks,
    });
    const chapterDone = async (result: ChapterResult) => {
      state.chaptersDone += 1;
      // The book's assembly keeps a share of the bar, so 1 means done.
      state.progress = Math.round((state.chaptersDone / (chapterIds.length + 1)) * 1000) / 1000;
      await bookkeeping.recordConversionProgress({ snapshotId, progress: state.progress });
      // The Temporal UI's filter and column: conversions started before this step existed do without it.
      if (patched('progress-search-attribute')) upsertSearchAttributes({ Progress: [state.progress] });
      return result;
    };
    const chapters = patched('chapter-assembly-beside-renders')
      ? await chaptersAssembledBesideRenders(chapterIds, chapterLanes, childInput, chapterDone)
      : await inLanes(chapterIds, chapterLanes, async (chapterId) =>
          chapterDone(
            await executeChild(chapterConversion, {
              workflowId: chapterConversionWorkflowId(snapshotId, chapterId),
              args: [childInput(chapterId)],
            }),
          ),
        );
    const book = await work.assembleConversionBook({ snapshotId, accountId, projectId, chapters });
    // Once the book exists, completing is not interrupted: a cancel now changes nothing.
    await CancellationScope.nonCancellable(() =>
      bookkeeping.completeConversion({ snapshotId, accountId, chapters, ...book }),
    );
    status = 'completed';
    Object.assign(state, { status, progress: 1 });
    if (patched('progress-search-attribute')) upsertSearchAttributes({ Progress: [1] });
    // Housekeeping after the book is safe; conversions started before this step existed do without it.
    if (patched('prune-studio'))
      await CancellationScope.nonCancellable(() =>
        housekeeping.pruneStudio({ snapshotId, accountId, projectId }),
      ).catch(() => undefined);
  } catch (error) {
    const canceled = isCancellation(error);
    status = canceled ? 'canceled' : 'failed';
    await CancellationScope.nonCancellable(() =>
      bookkeeping.endConversion({
        snapshotId,
        accountId,
        status: canceled ? 'canceled' : 'failed',
        error: failureOf(error),
      }),
    );
    state.status = status;
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    if (canceled) throw error;
    return status;
  }
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return status;
}

/**
 * One child per chapter, `lanes` chapters rendering at a time, where a lane
 * moves on to its next chapter once this one's blocks are rendered
 * (chapterRenderedSignal), not once it is assembled: a chapter's assembly
 * (ffmpeg) runs beside the next chapter's renders instead of between them.
 * Every chapter settles before the first failure is thrown.
 */
async function chaptersAssembledBesideRenders(
  chapterIds: readonly string[],
  lanes: number,
  childInput: (chapterId: string) => ChapterConversionInput,
  chapterDone: (result: ChapterResult) => Promise<ChapterResult>,
): Promise<ChapterResult[]> {
  const rendered = new Set<string>();
  setHandler(chapterRenderedSignal, ({ chapterId }) => void rendered.add(chapterId));
  const results: Array<Promise<ChapterResult>> = [];
  const laneOutcome = await inLanes(chapterIds, lanes, async (chapterId) => {
    const child = await startChild(chapterConversion, {
      workflowId: chapterConversionWorkflowId(childInput(chapterId).snapshotId, chapterId),
      args: [{ ...childInput(chapterId), announceRendered: true }],
    });
    const result = child.result().then(chapterDone);
    results.push(result);
    // A chapter that fails before its renders end ends its lane too.
    await Promise.race([condition(() => rendered.has(chapterId)), result]);
  }).then(
    () => null,
    (error: unknown) => ({ error }),
  );
  const settled = await Promise.allSettled(results);
  if (laneOutcome) throw laneOutcome.error;
  const failed = settled.find((one): one is PromiseRejectedResult => one.status === 'rejected');
  if (failed) throw failed.reason;
  // In the chapters' order, whichever finished first.
  const byChapter = new Map(
    (settled as Array<PromiseFulfilledResult<ChapterResult>>).map(({ value }) => [value.chapterId, value]),
  );
  return chapterIds.map((chapterId) => byChapter.get(chapterId)!);
}

/** What a failed conversion records: the innermost failure's message (no stack). */
function failureOf(error: unknown): { code: string; message: string } | null {
  if (isCancellation(error)) return null;
  let cause = error as { message?: string; cause?: unknown; type?: string } | undefined;
  while (cause?.cause) cause = cause.cause as typeof cause;
  const type = cause?.type;
  return {
    code:
      type === 'BlockVoiceMissing'
        ? 'voice_missing'
        : type === 'VoiceUnavailable'
          ? 'voice_unavailable'
          : 'conversion_failed',
    message: cause?.message ?? 'The conversion failed.',
  };
}

/**
 * `chapter-conversion:<snapshot>:<chapter>`: plan the chapter's blocks (their
 * hashes; which have audio already) → render the others, `parallelBlocks` at
 * a time, each recorded and charged (`block:<snapshot>:<block>`) as soon as
 * its audio is stored → assemble the chapter (its audio, captions) → record it.
 */
export async function chapterConversion(input: ChapterConversionInput): Promise<ChapterResult> {
  const { snapshotId, accountId, projectId, chapterId } = input;
  const work = onQueue(input.cpuTaskQueue);
  const plan = await bookkeeping.planConversionChapter({ snapshotId, accountId, projectId, chapterId });
  const renders = patched(STUDIO_QUEUE) ? onQueue(studioTaskQueue(input.cpuTaskQueue)) : work;
  let blocksRendered = 0;
  const toRender = plan.blocks.filter((block) => block.audioKey === null);
  const rendered = new Map<string, string>();
  await inLanes(toRender, input.parallelBlocks, async (block) => {
    const audio = await renders.renderBlock({
      snapshotId,
      accountId,
      projectId,
      blockId: block.blockId,
      hash: block.hash,
    });
    // The audio is stored: recording and charging it is not interrupted by a cancel.
    await CancellationScope.nonCancellable(() =>
      bookkeeping.recordBlockAudio({ snapshotId, accountId, blockId: block.blockId, ...audio }),
    );
    rendered.set(block.blockId, audio.audioKey);
    blocksRendered += 1;
  });
  // The parent's next chapter may start rendering while this one is assembled.
  if (input.announceRendered) {
    const parent = workflowInfo().parent;
    if (parent) await getExternalWorkflowHandle(parent.workflowId).signal(chapterRenderedSignal, { chapterId });
  }
  const blocks: BlockAudioRef[] = plan.blocks.map((block) => ({
    blockId: block.blockId,
    kind: block.kind,
    hash: block.hash,
    audioKey: block.audioKey ?? rendered.get(block.blockId)!,
  }));
  const assembled = await work.assembleConversionChapter({ snapshotId, accountId, projectId, chapterId, blocks });
  const result: ChapterResult = {
    chapterId,
    title: plan.title,
    wavKey: assembled.wavKey,
    durationMs: assembled.durationMs,
    blocksRendered,
    blocksReused: plan.blocks.length - toRender.length,
    blockKeys: [...new Set(blocks.map((block) => block.audioKey))],
  };
  await bookkeeping.recordChapterConverted({ snapshotId, index: plan.index, result, assembled });
  return result;
}

/**
 * `block-render:<account>:<hash>`, started by the API with Update-with-Start
 * when a block's audio is asked for and not current: reserve the block's
 * characters (`block-render:<render id>`) → render it as a conversion would
 * → record its audio and capture the reservation in one transaction (the
 * block is then current: any conversion reuses it). On failure the
 * reservation is released.
 */
export async function blockAudioRender(input: BlockRenderInput): Promise<BlockRenderReservation['outcome'] | 'failed'> {
  let reservation: BlockRenderReservation | undefined;
  setHandler(blockRenderReserveUpdate, async () => {
    await CancellationScope.nonCancellable(() => condition(() => reservation !== undefined));
    return reservation!;
  });
  reservation = await CancellationScope.nonCancellable(() => bookkeeping.reserveBlockRender(input));
  if (reservation.outcome === 'reserved') {
    try {
      const audio = await onQueue(input.cpuTaskQueue).renderBlock({
        snapshotId: input.renderId,
        accountId: input.accountId,
        projectId: input.projectId,
        blockId: input.blockId,
        hash: input.hash,
      });
      await CancellationScope.nonCancellable(() => bookkeeping.recordBlockRender({ ...input, ...audio }));
    } catch (error) {
      await CancellationScope.nonCancellable(() => bookkeeping.releaseBlockRender(input));
      await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
      if (isCancellation(error)) throw error;
      return 'failed';
    }
  }
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  return reservation.outcome;
}
