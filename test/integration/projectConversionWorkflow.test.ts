import { WorkflowFailedError } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import {
  type ChapterPlan,
  type ConversionInput,
  conversionProgressQuery,
  conversionWorkflowId,
  studioTaskQueue,
} from '../../studio/conversion';
import type { projectConversion } from '../../workflows/projectConversion';
import { eventually } from '../helpers/eventually';
import { gate, useWorkflowWorker } from '../helpers/workflowWorker';

/**
 * The conversion workflow's orchestration (a child per chapter, current
 * blocks reused, rendered blocks recorded and charged one by one, the book
 * after its chapters, the rest released at the end or on cancel) with mocked
 * activities on the real Temporal server. The activities' own work is the
 * e2e test's (test/e2e/studioConversion.test.ts).
 */

const wf = useWorkflowWorker([
  'reserveConversion',
  'planConversionChapter',
  'renderBlock',
  'recordBlockAudio',
  'assembleConversionChapter',
  'assembleConversionBook',
  'recordConversionProgress',
  'recordChapterConverted',
  'completeConversion',
  'endConversion',
  'pruneStudio',
]);

const CHAPTERS: Record<string, ChapterPlan> = {
  c1: {
    chapterId: 'c1',
    title: 'One',
    index: 0,
    blocks: [
      { blockId: 'b1', kind: 'heading', hash: 'h1', characters: 3, audioKey: 'blocks/a/h1.wav' },
      { blockId: 'b2', kind: 'paragraph', hash: 'h2', characters: 20, audioKey: null },
    ],
  },
  c2: {
    chapterId: 'c2',
    title: 'Two',
    index: 1,
    blocks: [{ blockId: 'b3', kind: 'paragraph', hash: 'h3', characters: 30, audioKey: null }],
  },
};

/** Which chapter each block is in. */
const CHAPTER_OF: Record<string, string> = Object.fromEntries(
  Object.values(CHAPTERS).flatMap((chapter) => chapter.blocks.map((block) => [block.blockId, chapter.chapterId])),
);

function input(): ConversionInput {
  return {
    snapshotId: randomUUID(),
    accountId: randomUUID(),
    projectId: randomUUID(),
    chapterIds: null,
    cpuTaskQueue: wf.taskQueue,
    maxParallelBlocks: 1,
  };
}

const start = (conversion: ConversionInput) =>
  wf.client.workflow.start<typeof projectConversion>('projectConversion', {
    taskQueue: wf.taskQueue,
    workflowId: conversionWorkflowId(conversion.snapshotId),
    args: [conversion],
  });

/** The names of the activities this conversion called, in order. */
const stepsOf = (snapshotId: string) =>
  wf.calls
    .filter(({ args: [first] }) => (first as { snapshotId?: string }).snapshotId === snapshotId)
    .map(({ name }) => name);

/** The default mocks of the CPU steps (a test may wrap them). */
const renderBlock = async ({ accountId, hash }: { accountId: string; hash: string }) => ({
  hash,
  audioKey: `blocks/${accountId}/${hash}.wav`,
  durationMs: 1000,
  characters: hash === 'h2' ? 20 : 30,
});
const assembleConversionChapter = async ({ chapterId }: { chapterId: string }) => ({
  wavKey: `chapters/${chapterId}.wav`,
  mp3Key: `chapters/${chapterId}.mp3`,
  srtKey: `chapters/${chapterId}.srt`,
  vttKey: `chapters/${chapterId}.vtt`,
  durationMs: 2000,
  qc: {},
});

beforeEach(() => {
  wf.mock({
    reserveConversion: async () => ({ outcome: 'reserved', chapterIds: ['c1', 'c2'], estimate: 50 }),
    planConversionChapter: async ({ chapterId }) => CHAPTERS[chapterId],
    renderBlock,
    recordBlockAudio: async ({ characters }) => ({ charged: characters }),
    assembleConversionChapter,
    assembleConversionBook: async () => ({
      outputs: { m4b: 'book.m4b', mp3: 'book.mp3', zip: 'book.zip', index: 'index.json' },
      index: [],
      durationMs: 4000,
    }),
    recordConversionProgress: async () => undefined,
    recordChapterConverted: async () => undefined,
    completeConversion: async () => undefined,
    endConversion: async () => undefined,
    pruneStudio: async () => ({ snapshots: 0, blocks: 0 }),
  });
});

describe('projectConversion workflow (mocked activities)', () => {
  it('reserves once, converts chapter after chapter (reusing current blocks, charging rendered ones; a chapter assembled while the next one renders), then the book', async () => {
    // Chapter 1's assembly ends only once chapter 2's block is rendering: the next chapter's renders do not wait for it.
    const secondRendering = gate();
    // Where each step ran: block renders on the Studio queue, beside the CPU queue's slots; assembly on the CPU queue.
    const queues = new Map<string, Set<string>>();
    const ranOn = (step: string) => {
      const { taskQueue } = Context.current().info;
      queues.set(step, new Set([...(queues.get(step) ?? []), taskQueue]));
    };
    wf.mock({
      renderBlock: async (block) => {
        ranOn('renderBlock');
        if (block.blockId === 'b3') secondRendering.open();
        return renderBlock(block);
      },
      assembleConversionChapter: async (chapter) => {
        ranOn('assembleConversionChapter');
        if (chapter.chapterId === 'c1') await secondRendering.promise;
        return assembleConversionChapter(chapter);
      },
    });
    const conversion = input();
    const handle = await start(conversion);
    expect(await handle.result()).toBe('completed');
    const steps = stepsOf(conversion.snapshotId);
    expect(steps.slice(0, 5)).toEqual([
      'reserveConversion',
      'recordConversionProgress',
      'planConversionChapter',
      'renderBlock',
      'recordBlockAudio',
    ]);
    // Chapter 2 is planned and rendered while chapter 1 is assembled; each chapter's own steps keep their order.
    const chapterSteps = (chapterId: string) =>
      wf.calls
        .filter(({ args: [first] }) => {
          const { snapshotId, chapterId: chapter, blockId } = first as Record<string, string | undefined>;
          return snapshotId === conversion.snapshotId && (chapter === chapterId || CHAPTER_OF[blockId!] === chapterId);
        })
        .map(({ name }) => name);
    for (const chapterId of ['c1', 'c2'])
      expect(chapterSteps(chapterId)).toEqual([
        'planConversionChapter',
        'renderBlock',
        'recordBlockAudio',
        'assembleConversionChapter',
      ]);
    expect(steps.indexOf('renderBlock', 4)).toBeLessThan(steps.indexOf('recordChapterConverted'));
    expect(steps.slice(-3)).toEqual(['assembleConversionBook', 'completeConversion', 'pruneStudio']);
    expect([...queues.get('renderBlock')!]).toEqual([studioTaskQueue(wf.taskQueue)]);
    expect([...queues.get('assembleConversionChapter')!]).toEqual([wf.taskQueue]);
    expect(steps.filter((step) => step === 'recordChapterConverted')).toHaveLength(2);
    expect(steps.filter((step) => step === 'recordConversionProgress')).toHaveLength(3);
    const mine = (name: Parameters<typeof wf.callsOf>[0]) =>
      wf.callsOf(name).filter(([first]) => (first as { snapshotId: string }).snapshotId === conversion.snapshotId);
    // The current block (b1) is neither rendered nor charged; each rendered block is recorded with its own characters.
    expect(mine('renderBlock').map(([first]) => (first as { blockId: string }).blockId)).toEqual(['b2', 'b3']);
    expect(mine('recordBlockAudio').map(([first]) => first)).toEqual([
      expect.objectContaining({ blockId: 'b2', hash: 'h2', characters: 20 }),
      expect.objectContaining({ blockId: 'b3', hash: 'h3', characters: 30 }),
    ]);
    // The chapter's assembly reads the reused audio and the rendered one, in block order.
    expect(mine('assembleConversionChapter')[0][0]).toMatchObject({
      chapterId: 'c1',
      blocks: [
        { blockId: 'b1', audioKey: 'blocks/a/h1.wav' },
        { blockId: 'b2', audioKey: `blocks/${conversion.accountId}/h2.wav` },
      ],
    });
    expect(mine('completeConversion')[0][0]).toMatchObject({
      chapters: [
        { chapterId: 'c1', blocksRendered: 1, blocksReused: 1 },
        { chapterId: 'c2', blocksRendered: 1, blocksReused: 0 },
      ],
      durationMs: 4000,
    });
    expect(await handle.query(conversionProgressQuery)).toEqual({
      status: 'completed',
      progress: 1,
      chaptersDone: 2,
      chapters: 2,
    });
  });

  it.each(['insufficient', 'conflict'] as const)('%s: ends having converted and recorded nothing', async (outcome) => {
    wf.mock({
      reserveConversion: async () => (outcome === 'conflict' ? { outcome } : { outcome, estimate: 50 }),
    });
    const conversion = input();
    expect(await (await start(conversion)).result()).toBe(outcome);
    expect(stepsOf(conversion.snapshotId)).toEqual(['reserveConversion']);
  });

  it('on cancel mid-render: the render stops, nothing more is recorded or charged, and the rest is released', async () => {
    let stopped = false;
    const rendering = gate();
    wf.mock({
      renderBlock: async () => {
        const context = Context.current();
        rendering.open();
        try {
          for (;;) {
            context.heartbeat();
            await context.sleep(50);
          }
        } finally {
          stopped = true;
        }
      },
    });
    const conversion = input();
    const handle = await start(conversion);
    await rendering.promise;
    const ended = gate<boolean>();
    wf.mock({
      endConversion: async () => {
        ended.open(stopped);
      },
    });
    await handle.cancel();
    const error = await handle.result().catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    // The render had stopped before the conversion settled.
    expect(await ended.promise).toBe(true);
    expect(stepsOf(conversion.snapshotId)).toEqual([
      'reserveConversion',
      'recordConversionProgress',
      'planConversionChapter',
      'renderBlock',
      'endConversion',
    ]);
    expect(wf.callsOf('endConversion')).toContainEqual([
      { snapshotId: conversion.snapshotId, accountId: conversion.accountId, status: 'canceled', error: null },
    ]);
  });

  it('a failing block fails the conversion: the rest is released and the failure recorded', async () => {
    wf.mock({
      renderBlock: async () => {
        const { ApplicationFailure } = await import('@temporalio/common');
        throw ApplicationFailure.nonRetryable('no voice', 'VoiceUnavailable');
      },
    });
    const conversion = input();
    const handle = await start(conversion);
    expect(await handle.result()).toBe('failed');
    await eventually('the failure recorded', () => stepsOf(conversion.snapshotId).includes('endConversion'));
    expect(wf.callsOf('endConversion')).toContainEqual([
      {
        snapshotId: conversion.snapshotId,
        accountId: conversion.accountId,
        status: 'failed',
        error: { code: 'voice_unavailable', message: 'no voice' },
      },
    ]);
    expect(stepsOf(conversion.snapshotId)).not.toContain('completeConversion');
  });
});
