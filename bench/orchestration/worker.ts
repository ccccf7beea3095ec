import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { type ChildProcess, spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { type Config, loadConfig } from '../../lib/config';
import { stopChild, waitFor } from '../../scripts/stack';

/**
 * The benchmark's own worker process: the orchestration baselines
 * (./workflows.ts) and their no-op activity on a task queue of their own, so
 * the service's worker and workflow bundle carry no benchmark code.
 */

const activities = {
  /** Does nothing: the floor a workflow's activity costs. */
  async noop(): Promise<void> {},
};
export type BenchActivities = typeof activities;

export const benchTaskQueue = (config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>) => `${config.TEMPORAL_TASK_QUEUE}-bench`;

/** This file compiled (dist/bench/orchestration/worker.js): the child process bench/service.ts starts. */
export const BENCH_WORKER_SCRIPT = __filename;

async function main(): Promise<void> {
  const config = loadConfig();
  // The SDK's INFO lines would interleave with the benchmark's table.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  try {
    // Bundled at start (a few seconds, once per benchmark run).
    const worker = await Worker.create({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: benchTaskQueue(config),
      workflowsPath: require.resolve('./workflows'),
      activities,
    });
    // SIGINT/SIGTERM shut it down (the SDK's default runtime signals).
    await worker.run();
  } finally {
    await connection.close();
  }
}

/** Starts the benchmark worker as a child process with `env` and resolves once it polls its queue (workflows and activities). */
export async function startBenchWorker(
  env: Record<string, string>,
  client: Client,
): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  const config = loadConfig(env);
  const child = spawn(process.execPath, [BENCH_WORKER_SCRIPT], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  // A benchmark that fails half-way leaves no worker behind.
  process.once('exit', () => child.kill('SIGTERM'));
  const identity = `${child.pid}@${hostname()}`;
  // Task queue types: 1 = workflow, 2 = activity.
  const polled = async (type: number) => {
    const { pollers } = await client.workflowService.describeTaskQueue({
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: { name: benchTaskQueue(config) },
      taskQueueType: type,
    });
    return Boolean(pollers?.some((poller) => poller.identity === identity));
  };
  await waitFor('the benchmark worker', async () => (await polled(1)) && (await polled(2)), 120_000, child);
  return { child, stop: () => stopChild(child) };
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`benchmark worker failed: ${error instanceof Error ? error.stack : error}\n`);
    process.exit(1);
  });
}
