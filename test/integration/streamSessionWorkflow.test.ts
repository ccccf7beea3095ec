import { ApplicationFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import {
  connectionSignal,
  READER_SILENCE_SECONDS,
  type StreamSessionInput,
  streamSessionWorkflowId,
} from '../../synthesis/contracts';
import type { streamSession } from '../../workflows/streamSession';
import { durationMs, historyOf, useWorkflowWorker } from '../helpers/workflowWorker';

/**
 * The stream session's orchestration with a mocked record step on the real
 * Temporal server: it waits while the API says the connection is open, each
 * word restarting a wait bounded by READER_SILENCE_SECONDS, and records the
 * entry once the connection has closed, retrying while pieces still run. The
 * record step itself is tested on PostgreSQL and MinIO (test/e2e/streamSessionRecord.test.ts).
 */

const wf = useWorkflowWorker(['recordStreamSession']);
/** The record calls of one session (the worker's calls are kept for the whole file). */
const recordsOf = ({ sessionId }: StreamSessionInput) =>
  wf.callsOf('recordStreamSession').filter(([input]) => (input as StreamSessionInput).sessionId === sessionId);

async function start(silenceSeconds?: number): Promise<{
  input: StreamSessionInput;
  handle: Awaited<ReturnType<typeof wf.client.workflow.start>>;
}> {
  const input = { sessionId: randomUUID(), accountId: randomUUID(), ...(silenceSeconds && { silenceSeconds }) };
  const handle = await wf.client.workflow.start<typeof streamSession>('streamSession', {
    taskQueue: wf.taskQueue,
    workflowId: streamSessionWorkflowId(input.sessionId),
    args: [input],
  });
  return { input, handle };
}

describe('streamSession workflow', () => {
  it('waits while the connection is open, then records the entry once it has closed', async () => {
    wf.mock({ recordStreamSession: async () => 'recorded' });
    const { input, handle } = await start();
    await handle.signal(connectionSignal, { open: true });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(recordsOf(input)).toHaveLength(0);
    expect((await handle.describe()).status.name).toBe('RUNNING');

    await handle.signal(connectionSignal, { open: false });
    expect(await handle.result()).toBe('recorded');
    expect(recordsOf(input)).toEqual([[input]]);
    // One wait per word heard (the start's, the renewal's), each bounded by the API's silence.
    const timers = (await historyOf(handle)).filter((event) => event.timerStartedEventAttributes);
    expect(timers.map((event) => durationMs(event.timerStartedEventAttributes!.startToFireTimeout))).toEqual([
      READER_SILENCE_SECONDS * 1000,
      READER_SILENCE_SECONDS * 1000,
    ]);
  });

  it('records the entry once the API has been silent that long (it died with the connection)', async () => {
    wf.mock({ recordStreamSession: async () => 'recorded' });
    const { input, handle } = await start(1);
    await handle.signal(connectionSignal, { open: true });
    // No close ever comes: the silence ends the wait.
    expect(await handle.result()).toBe('recorded');
    expect(recordsOf(input)).toEqual([[input]]);
  });

  it('retries the record while a piece still runs', async () => {
    let attempts = 0;
    wf.mock({
      recordStreamSession: async () => {
        attempts += 1;
        if (attempts < 3) throw ApplicationFailure.retryable('a piece is still running', 'PiecesRunning');
        return 'nothing';
      },
    });
    const { handle } = await start();
    await handle.signal(connectionSignal, { open: false });
    expect(await handle.result()).toBe('nothing');
    expect(attempts).toBe(3);
  });
});
