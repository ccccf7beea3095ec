import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { type Config, ROOT } from '../../lib/config';

/**
 * The real worker entry point (`worker/main.ts` through tsx) as a separate
 * process, so a test can SIGKILL it the way an OOM killer or a crash would.
 */
export interface WorkerProcess {
  child: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr), for failure messages. */
  output(): string;
  /** SIGKILL to the whole process group (tsx runs the worker in a child node process); resolves once nothing of it is left. */
  kill(): Promise<void>;
}

const live = new Set<WorkerProcess>();

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export function spawnWorkerProcess(taskQueue: string, env: NodeJS.ProcessEnv = {}): WorkerProcess {
  const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['worker/main.ts'], {
    cwd: ROOT,
    // Metrics off unless a test asks: the default port is fixed, and another worker on the machine may hold it.
    // Previews off too: each process on its own task queue would render every premade voice's preview again.
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      WORKER_METRICS_PORT: '0',
      VOICE_PREVIEWS: 'false',
      ...env,
      TEMPORAL_TASK_QUEUE: taskQueue,
    },
    // Its own process group: one kill reaches tsx and the node process it starts.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');
  const pgid = child.pid!;

  const handle: WorkerProcess = {
    child,
    output: () => output,
    async kill() {
      live.delete(handle);
      if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
      if (child.exitCode === null && child.signalCode === null) await exited;
      // The grandchild may outlive its parent by a moment.
      const deadline = Date.now() + 5_000;
      while (groupAlive(pgid)) {
        if (Date.now() > deadline) throw new Error(`worker process group ${pgid} survived SIGKILL`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
  live.add(handle);
  return handle;
}

/** Kills every worker process spawned by this test file that is still running (for afterAll/finally). */
export async function killAllWorkerProcesses(): Promise<void> {
  await Promise.allSettled([...live].map((worker) => worker.kill()));
}

/**
 * Waits until a spawned worker process polls both of its task queues (it has
 * loaded the workflow bundle and serves), polled since `since` (a killed
 * worker's poller stays listed for a while). Submits wait on a live worker.
 */
export async function waitForWorkerProcessReady(
  temporal: Client,
  config: Pick<Config, 'TEMPORAL_NAMESPACE' | 'TEMPORAL_TASK_QUEUE'>,
  worker: WorkerProcess,
  since: number,
  timeoutMs = 120_000,
): Promise<void> {
  const queues = [
    { name: config.TEMPORAL_TASK_QUEUE, type: 1 /* TASK_QUEUE_TYPE_WORKFLOW */ },
    { name: `${config.TEMPORAL_TASK_QUEUE}-cpu`, type: 2 /* TASK_QUEUE_TYPE_ACTIVITY */ },
  ];
  for (const deadline = Date.now() + timeoutMs; ;) {
    if (worker.child.exitCode !== null)
      throw new Error(`worker process exited ${worker.child.exitCode}:\n${worker.output()}`);
    const described = await Promise.all(
      queues.map(({ name, type }) =>
        temporal.workflowService.describeTaskQueue({
          namespace: config.TEMPORAL_NAMESPACE,
          taskQueue: { name },
          taskQueueType: type,
        }),
      ),
    );
    if (
      described.every((queue) =>
        (queue.pollers ?? []).some((poller) => Number(poller.lastAccessTime?.seconds ?? 0) * 1000 >= since - 1_000),
      )
    )
      return;
    if (Date.now() > deadline)
      throw new Error(`the worker process polled no task queue within ${timeoutMs} ms:\n${worker.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
