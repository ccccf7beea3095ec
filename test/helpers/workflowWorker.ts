import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import type { Activities } from '../../activities';
import { installRuntimeOnce } from './runtime';
import { streamTaskQueue } from '../../synthesis/contracts';
import { studioTaskQueue } from '../../studio/conversion';

/**
 * Our workflows' logic, tested without the rest of the stack: the run's
 * workflow bundle in a Worker on a task queue of its own, against the Temporal
 * dev server globalSetup started, with activities the test writes.
 *
 * Not Temporal's time-skipping TestWorkflowEnvironment: it downloads its test
 * server from temporal.download at start, and this machine reaches no such
 * host (tried: "failed to download ephemeral server executable"). So time is
 * real here, and a test makes the waits short through the workflow's inputs
 * (the signup TTL is one).
 */

type ActivityMocks = {
  [Name in keyof Activities]?: (
    ...args: Parameters<Activities[Name]>
  ) => Promise<Awaited<ReturnType<Activities[Name]>>>;
};
type AnyActivity = (...args: unknown[]) => Promise<unknown>;

export interface WorkflowWorker {
  client: Client;
  taskQueue: string;
  /** Sets some activities' implementations for this test (each test starts with none: an unmocked call fails it loudly). */
  mock(activities: ActivityMocks): void;
  /** Every activity call so far in this file, in order, with its arguments. */
  calls: { name: string; args: unknown[] }[];
  /** The calls of one activity, in order. */
  callsOf(name: keyof Activities): unknown[][];
}

/** The activities the synthesis workflow calls, for a worker that runs it. */
export const SYNTHESIS_ACTIVITIES = [
  'reserveSynthesis',
  'acquireSynthesisSlot',
  'renderShortSynthesis',
  'renderSynthesisChunk',
  'finishSynthesis',
  'renderStreamedSynthesis',
  'recordSynthesisCompleted',
  'removeSynthesisChunks',
  'recordSynthesisEnded',
  'releaseCredits',
  'captureCredits',
] as const satisfies readonly (keyof Activities)[];

/** Starts the worker in beforeAll and stops it in afterAll; `mock` sets what each activity does. */
export function useWorkflowWorker(activityNames: (keyof Activities)[]): WorkflowWorker {
  const taskQueue = `workflow-logic-${randomUUID()}`;
  let mocks: ActivityMocks = {};
  const calls: WorkflowWorker['calls'] = [];
  // The worker takes a fixed set of activities: each forwards to whatever the test set last.
  const activities = Object.fromEntries(
    activityNames.map((name) => [
      name,
      (...args: unknown[]) => {
        calls.push({ name, args });
        const mocked = mocks[name] as AnyActivity | undefined;
        if (!mocked) throw new Error(`activity ${name} is not mocked in this test`);
        return mocked(...args);
      },
    ]),
  );
  let connection: Connection | undefined;
  let nativeConnection: NativeConnection | undefined;
  let client: Client | undefined;
  let running: Promise<unknown> | undefined;
  let workers: Worker[] = [];

  beforeEach(() => {
    mocks = {};
  });
  beforeAll(async () => {
    installRuntimeOnce();
    const address = process.env.TEMPORAL_ADDRESS!;
    const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
    [connection, nativeConnection] = await Promise.all([
      Connection.connect({ address }),
      NativeConnection.connect({ address }),
    ]);
    client = new Client({ connection, namespace });
    const common = {
      connection: nativeConnection,
      namespace,
      activities,
      // A cancel reaches a heartbeating activity with the answer to its next heartbeat: soon, not 80 % of the heartbeat timeout.
      maxHeartbeatThrottleInterval: '100 milliseconds' as const,
    };
    workers = await Promise.all([
      Worker.create({ ...common, taskQueue, workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE! } }),
      // A streamed synthesis's one activity runs on the streams queue beside the CPU queue (this worker's queue).
      Worker.create({ ...common, taskQueue: streamTaskQueue(taskQueue) }),
      // A conversion's block renders run on the Studio queue.
      Worker.create({ ...common, taskQueue: studioTaskQueue(taskQueue) }),
    ]);
    running = Promise.all(workers.map((worker) => worker.run()));
  });
  afterAll(async () => {
    for (const worker of workers) worker.shutdown();
    await running;
    await Promise.all([connection?.close(), nativeConnection?.close()]);
  });

  return {
    get client() {
      if (!client) throw new Error('the workflow worker starts in beforeAll');
      return client;
    },
    taskQueue,
    mock(next) {
      mocks = { ...mocks, ...next };
    },
    calls,
    callsOf: (name) => calls.filter((call) => call.name === name).map((call) => call.args),
  };
}

export type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

/** The events of a workflow's run, for asserting on what the workflow recorded. */
export async function historyOf(handle: WorkflowHandle): Promise<HistoryEvent[]> {
  return (await handle.fetchHistory()).events ?? [];
}

/** A protobuf Duration (seconds may be a Long) in milliseconds. */
export const durationMs = (duration: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(String(duration?.seconds ?? 0)) * 1000 + (duration?.nanos ?? 0) / 1e6;

/** A promise and the function that settles it: an activity that waits for the test. */
export function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}
