import { type ActivityInterceptorsFactory, NativeConnection, Worker } from '@temporalio/worker';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createActivities, type ActivityDeps } from '../activities';
import type { Config } from '../lib/config';
import { heavyRenderSlots } from '../engines/types';
import { cpuTaskQueue, webhookTaskQueue } from '../lib/temporal';
import { heavyTaskQueue, STREAMS_PER_RENDER_SLOT, streamTaskQueue } from '../synthesis/contracts';
import { studioTaskQueue } from '../studio/conversion';
import { WORKFLOWS_PATH } from './bundle';

export interface WorkerOptions {
  config: Config;
  /** The activities' resources. */
  deps: ActivityDeps;
  connection: NativeConnection;
  /** A prebuilt bundle (npm run build writes dist/workflow-bundle.js); without it the worker bundles at start. */
  workflowBundlePath?: string;
  /** Activity interceptors of both workers (the worker process's metrics). */
  activityInterceptors?: ActivityInterceptorsFactory[];
}

/**
 * The worker process's six workers: one on the service's task queue (every
 * workflow, and the bookkeeping activities), one on the CPU queue whose
 * activities run the speech engines and ffmpeg, as many at once as there are cores
 * (or SYNTHESIS_CONCURRENCY), one on the heavy queue where the `high`-tier
 * voices' (Kokoro's) renders run, half as many at once, so a Kokoro render
 * waiting for its turn never holds a slot of the CPU queue, one on the
 * streams queue, where each streamed synthesis renders sentence after
 * sentence in one activity (four per render slot: their sentences take turns
 * at the engines), one on the Studio queue, where books' block renders run
 * (as many at once as the CPU queue, in engine processes of a lower CPU
 * priority), and one on the webhook queue, whose attempts wait on other
 * people's servers (WEBHOOK_CONCURRENCY at once).
 */
export async function createWorkers({
  config,
  deps,
  connection,
  workflowBundlePath,
  activityInterceptors = [],
}: WorkerOptions): Promise<Worker[]> {
  const workflows =
    workflowBundlePath && existsSync(workflowBundlePath)
      ? { workflowBundle: { codePath: workflowBundlePath } }
      : { workflowsPath: WORKFLOWS_PATH };
  const activities = createActivities(deps);
  const common = {
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    activities,
    interceptors: { activity: activityInterceptors },
  };
  const renderSlots = config.SYNTHESIS_CONCURRENCY ?? availableParallelism();
  return Promise.all([
    Worker.create({
      ...common,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      ...workflows,
      // After a worker dies, its workflows' next tasks wait this long on its sticky queue before any worker gets them (default 10 s).
      stickyQueueScheduleToStartTimeout: '3 seconds',
      // A restarted worker replays every open workflow from its history. With the SDK's default of 40 tasks
      // taken at once, on a starved CPU the last of them finished after the server's 10 s workflow task
      // timeout, so each was retried from the start, again and again (the chaos suite's worker kill at a
      // load average of 30-40: nothing completed in 14 minutes). Tasks not taken wait on the server instead.
      maxConcurrentWorkflowTaskExecutions: Math.max(2, 2 * availableParallelism()),
    }),
    Worker.create({
      ...common,
      taskQueue: cpuTaskQueue(config),
      maxConcurrentActivityTaskExecutions: renderSlots,
      // A cancel reaches a running render with the answer to its next heartbeat: at most a second
      // later, instead of 80 % of the heartbeat timeout (8 s), so a DELETE answers promptly.
      maxHeartbeatThrottleInterval: '1 second',
    }),
    Worker.create({
      ...common,
      taskQueue: heavyTaskQueue(cpuTaskQueue(config)),
      // As many as the Kokoro engine has hosts (engines/kokoro): a render that takes a slot gets a host.
      maxConcurrentActivityTaskExecutions: heavyRenderSlots(renderSlots),
      maxHeartbeatThrottleInterval: '1 second',
    }),
    Worker.create({
      ...common,
      taskQueue: streamTaskQueue(cpuTaskQueue(config)),
      maxConcurrentActivityTaskExecutions: STREAMS_PER_RENDER_SLOT * renderSlots,
      maxHeartbeatThrottleInterval: '1 second',
    }),
    Worker.create({
      ...common,
      taskQueue: studioTaskQueue(cpuTaskQueue(config)),
      maxConcurrentActivityTaskExecutions: renderSlots,
      maxHeartbeatThrottleInterval: '1 second',
    }),
    Worker.create({
      ...common,
      taskQueue: webhookTaskQueue(config),
      maxConcurrentActivityTaskExecutions: config.WEBHOOK_CONCURRENCY,
    }),
  ]);
}
