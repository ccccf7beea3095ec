import { NativeConnection, Worker } from '@temporalio/worker';
import { existsSync } from 'node:fs';
import { createActivities, type ActivityDeps } from '../activities';
import type { Config } from '../lib/config';
import { WORKFLOWS_PATH } from './bundle';

export interface WorkerOptions {
  config: Config;
  deps: ActivityDeps;
  connection: NativeConnection;
  /** A prebuilt bundle (npm run build writes dist/workflow-bundle.js); without it the worker bundles at start. */
  workflowBundlePath?: string;
}

/** One worker on the service's task queue, with activities bound to their dependencies. */
export async function createWorker({ config, deps, connection, workflowBundlePath }: WorkerOptions): Promise<Worker> {
  const workflows =
    workflowBundlePath && existsSync(workflowBundlePath)
      ? { workflowBundle: { codePath: workflowBundlePath } }
      : { workflowsPath: WORKFLOWS_PATH };
  return Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    activities: createActivities(deps),
    ...workflows,
  });
}
