import { WorkflowFailedError } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import {
  FAILURE_CODES,
  progressQuery,
  READER_SILENCE_SECONDS,
  slotFreedSignal,
  streamReaderSignal,
  type SynthesisRequest,
  synthesisWorkflowId,
} from '../../synthesis/contracts';
import type { synthesis } from '../../workflows/synthesis';
import { eventually } from '../helpers/eventually';
import { durationMs, gate, historyOf, SYNTHESIS_ACTIVITIES, useWorkflowWorker } from '../helpers/workflowWorker';

/**
 * The synthesis workflow's orchestration (slot queueing, the cleanup after a
 * cancel or a failure, the insufficient-credits path) with mocked activities
 * on the real Temporal server. The activities' own work (PostgreSQL, engines,
 * storage) is tested with the whole stack in test/e2e.
 */

const wf = useWorkflowWorker([...SYNTHESIS_ACTIVITIES]);

const AUDIO = { audioKey: 'syntheses/a/b.wav', bytes: 1000, durationSeconds: 1 };

function request(): SynthesisRequest {
  return {
    synthesisId: randomUUID(),
    accountId: randomUUID(),
    projectId: null,
    voiceId: 'en-us-slt',
    text: 'Hello there.',
    characters: 12,
    speed: 1,
    pitch: 0,
    emotion: 'neutral',
    outputFormat: 'wav',
  };
}

async function start(input: SynthesisRequest) {
  // The CPU queue is this worker's queue too: one worker serves every mocked activity.
  return wf.client.workflow.start<typeof synthesis>('synthesis', {
    taskQueue: wf.taskQueue,
    workflowId: synthesisWorkflowId(input.synthesisId),
    args: [{ request: input, cpuTaskQueue: wf.taskQueue }],
  });
}

/** The names of the activities this synthesis called, in order. */
const stepsOf = (synthesisId: string) =>
  wf.calls
    .filter(({ args: [input] }) => {
      const fields = input as { synthesisId?: string; reference?: string };
      return fields.synthesisId === synthesisId || fields.reference === synthesisId;
    })
    .map(({ name }) => name);

beforeEach(() => {
  wf.mock({
    reserveSynthesis: async () => ({ outcome: 'reserved', started: true, chunkCount: 1 }),
    renderShortSynthesis: async () => AUDIO,
    recordSynthesisCompleted: async () => undefined,
    recordSynthesisEnded: async () => undefined,
    releaseCredits: async () => ({ outcome: 'released' }),
    captureCredits: async () => ({ outcome: 'captured' }),
  });
});

describe('synthesis workflow (mocked activities)', () => {
  it('with a free slot: reserves, renders, captures and records, in that order', async () => {
    const input = request();
    const handle = await start(input);
    expect(await handle.result()).toBe('completed');
    expect(stepsOf(input.synthesisId)).toEqual([
      'reserveSynthesis',
      'renderShortSynthesis',
      'captureCredits',
      'recordSynthesisCompleted',
    ]);
    expect(wf.callsOf('recordSynthesisCompleted')).toContainEqual([{ synthesisId: input.synthesisId, ...AUDIO }]);
  });

  it('with insufficient credits: ends `insufficient` having rendered, charged and recorded nothing', async () => {
    wf.mock({ reserveSynthesis: async () => ({ outcome: 'insufficient' }) });
    const input = request();
    expect(await (await start(input)).result()).toBe('insufficient');
    expect(stepsOf(input.synthesisId)).toEqual(['reserveSynthesis']);
  });

  it('without a free slot: stays queued, asks again on each slotFreed, and renders only once a slot is taken', async () => {
    const slots = [false, true];
    wf.mock({
      reserveSynthesis: async () => ({ outcome: 'reserved', started: false, chunkCount: 1 }),
      acquireSynthesisSlot: async () => ({ started: slots.shift()!, chunkCount: 1 }),
    });
    const input = request();
    const handle = await start(input);
    await eventually('the reservation', () => stepsOf(input.synthesisId).includes('reserveSynthesis'));
    expect(await handle.query(progressQuery)).toEqual({ status: 'queued', progress: 0 });

    // Another synthesis took the freed slot first: still queued.
    await handle.signal(slotFreedSignal);
    await eventually('the first slot request', () => stepsOf(input.synthesisId).includes('acquireSynthesisSlot'));
    expect(await handle.query(progressQuery)).toEqual({ status: 'queued', progress: 0 });
    expect(stepsOf(input.synthesisId)).not.toContain('renderShortSynthesis');

    await handle.signal(slotFreedSignal);
    expect(await handle.result()).toBe('completed');
    expect(stepsOf(input.synthesisId)).toEqual([
      'reserveSynthesis',
      'acquireSynthesisSlot',
      'acquireSynthesisSlot',
      'renderShortSynthesis',
      'captureCredits',
      'recordSynthesisCompleted',
    ]);
    expect(await handle.query(progressQuery)).toEqual({ status: 'completed', progress: 1 });
  });

  it('on cancel mid-render: releases the credits and records it canceled at once, and removes its objects only once the renders have stopped', async () => {
    const rendering = new Set<number>();
    const stopped: number[] = [];
    /** Opened by the test: the renders then notice the cancel (as a render killed only after a while would). */
    const noticeCancel = gate();
    wf.mock({
      reserveSynthesis: async () => ({ outcome: 'reserved', started: true, chunkCount: 3 }),
      // A render that runs until canceled and the test lets it notice, heartbeating like the real one.
      renderSynthesisChunk: async ({ index }) => {
        const context = Context.current();
        rendering.add(index);
        try {
          for (;;) {
            context.heartbeat();
            await context.sleep(50);
          }
        } catch (error) {
          await noticeCancel.promise;
          throw error;
        } finally {
          stopped.push(index);
        }
      },
    });
    const input = request();
    const handle = await start(input);
    await eventually('the chunks to render', () => rendering.size === 3);
    /** How many renders had stopped at each recordSynthesisEnded, and whether that call kept the objects. */
    const ended: { stopped: number; keepObjects: boolean }[] = [];
    const recordedAtOnce = gate();
    wf.mock({
      recordSynthesisEnded: async ({ keepObjects }) => {
        ended.push({ stopped: stopped.length, keepObjects: keepObjects === true });
        recordedAtOnce.open();
      },
    });
    await handle.cancel();

    // Recorded while every render still runs: the client hears `canceled` without waiting for them.
    await recordedAtOnce.promise;
    expect(ended).toEqual([{ stopped: 0, keepObjects: true }]);
    expect(await handle.query(progressQuery)).toMatchObject({ status: 'canceled' });
    noticeCancel.open();

    const error = await handle.result().catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    // The objects go once no render can still be writing one.
    expect(ended).toEqual([
      { stopped: 0, keepObjects: true },
      { stopped: 3, keepObjects: false },
    ]);
    expect(stepsOf(input.synthesisId).filter((step) => step !== 'renderSynthesisChunk')).toEqual([
      'reserveSynthesis',
      'releaseCredits',
      'recordSynthesisEnded',
      'recordSynthesisEnded',
    ]);
    expect(wf.callsOf('recordSynthesisEnded')).toContainEqual([
      { synthesisId: input.synthesisId, status: 'canceled', error: null },
    ]);
    expect(wf.callsOf('releaseCredits')).toContainEqual([{ accountId: input.accountId, reference: input.synthesisId }]);
  });

  it('a render that finishes as the cancel is recorded: the synthesis stays canceled, nothing captured', async () => {
    const finishing = gate();
    wf.mock({
      reserveSynthesis: async () => ({ outcome: 'reserved', started: true, chunkCount: 1 }),
      // A render that ignores the cancel and returns its audio.
      renderShortSynthesis: async () => (await finishing.promise, AUDIO),
    });
    const input = request();
    const handle = await start(input);
    await eventually('the render', () => stepsOf(input.synthesisId).includes('renderShortSynthesis'));
    const recorded = gate();
    wf.mock({ recordSynthesisEnded: async () => recorded.open() });
    await handle.cancel();
    await recorded.promise;
    finishing.open();
    const error = await handle.result().catch((reason: unknown) => reason);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect(stepsOf(input.synthesisId)).not.toContain('captureCredits');
    expect(stepsOf(input.synthesisId).at(-1)).toBe('recordSynthesisEnded');
  });

  it('on an engine failure: releases the credits and records it failed with engine_failed, charging nothing', async () => {
    wf.mock({
      renderShortSynthesis: async () => {
        throw ApplicationFailure.nonRetryable('the engine crashed', 'EngineFailed');
      },
    });
    const input = request();
    expect(await (await start(input)).result()).toBe('failed');
    expect(stepsOf(input.synthesisId)).toEqual([
      'reserveSynthesis',
      'renderShortSynthesis',
      'releaseCredits',
      'recordSynthesisEnded',
    ]);
    expect(wf.callsOf('recordSynthesisEnded')).toContainEqual([
      { synthesisId: input.synthesisId, status: 'failed', error: FAILURE_CODES.EngineFailed },
    ]);
  });

  describe('a streamed synthesis and its reader', () => {
    const streamed = () => ({ ...request(), streaming: true });
    beforeEach(() =>
      wf.mock({
        reserveSynthesis: async () => ({ outcome: 'reserved', started: true, chunkCount: 2 }),
        renderStreamedSynthesis: async () => AUDIO,
        removeSynthesisChunks: async () => undefined,
      }),
    );

    it('renders, stores and finishes every sentence in one activity, then captures and records', async () => {
      const input = streamed();
      const handle = await start(input);
      await handle.signal(streamReaderSignal, { reading: false });
      expect(await handle.result()).toBe('completed');
      expect(stepsOf(input.synthesisId)).toEqual([
        'reserveSynthesis',
        'renderStreamedSynthesis',
        'captureCredits',
        'recordSynthesisCompleted',
        'removeSynthesisChunks',
      ]);
    });

    it('a reader that stopped before the completion: the chunks go right after it', async () => {
      const input = streamed();
      const finishing = gate();
      wf.mock({ renderStreamedSynthesis: async () => (await finishing.promise, AUDIO) });
      const handle = await start(input);
      await eventually('the render', () => stepsOf(input.synthesisId).includes('renderStreamedSynthesis'));
      await handle.signal(streamReaderSignal, { reading: false });
      finishing.open();
      expect(await handle.result()).toBe('completed');
      expect(stepsOf(input.synthesisId).slice(-3)).toEqual([
        'captureCredits',
        'recordSynthesisCompleted',
        'removeSynthesisChunks',
      ]);
      expect(wf.callsOf('recordSynthesisCompleted')).toContainEqual([
        { synthesisId: input.synthesisId, ...AUDIO, keepChunks: true },
      ]);
    });

    it('a reader still reading at the completion: the chunks stay until it stops, each renewal restarting the wait', async () => {
      const input = streamed();
      const handle = await start(input);
      await eventually('the completion', () => stepsOf(input.synthesisId).includes('recordSynthesisCompleted'));
      // Completed for every reader of its status, and still waiting for the stream's reader.
      await eventually('the completed state', async () => (await handle.query(progressQuery)).status === 'completed');
      await handle.signal(streamReaderSignal, { reading: true });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(stepsOf(input.synthesisId)).not.toContain('removeSynthesisChunks');
      expect((await handle.describe()).status.name).toBe('RUNNING');

      await handle.signal(streamReaderSignal, { reading: false });
      expect(await handle.result()).toBe('completed');
      expect(stepsOf(input.synthesisId).at(-1)).toBe('removeSynthesisChunks');
      // One wait per word heard (the completion's, the renewal's), each bounded by the reader's silence.
      const timers = (await historyOf(handle)).filter((event) => event.timerStartedEventAttributes);
      expect(timers.map((event) => durationMs(event.timerStartedEventAttributes!.startToFireTimeout))).toEqual([
        READER_SILENCE_SECONDS * 1000,
        READER_SILENCE_SECONDS * 1000,
      ]);
    });

    it('a synthesis not streamed never waits for a reader', async () => {
      const input = request();
      wf.mock({
        reserveSynthesis: async () => ({ outcome: 'reserved', started: true, chunkCount: 2 }),
        renderSynthesisChunk: async () => ({ seconds: 1 }),
        finishSynthesis: async () => AUDIO,
      });
      expect(await (await start(input)).result()).toBe('completed');
      expect(stepsOf(input.synthesisId)).not.toContain('removeSynthesisChunks');
      expect(wf.callsOf('recordSynthesisCompleted')).toContainEqual([{ synthesisId: input.synthesisId, ...AUDIO }]);
    });
  });
});
