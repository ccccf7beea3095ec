import { NativeConnection, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { createApp } from '../../api/app';
import { serve } from '../../api/listen';
import { type ApiDeps, createApiDeps } from '../../api/deps';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { createMailer } from '../../lib/mail';
import { createWorkers } from '../../worker/create';
import { sharedEngines } from '../../engines/registry';
import { installRuntime } from '../../worker/runtime';

/** The real dependencies of the test stack that globalSetup started; `overrides` point one elsewhere. */
export function createTestDeps(overrides: NodeJS.ProcessEnv = {}): ApiDeps & { close(): Promise<void> } {
  // Each set of deps gets its own task queue, so its worker serves only its own workflows.
  const config = loadConfig({ ...process.env, TEMPORAL_TASK_QUEUE: `test-${randomUUID()}`, ...overrides });
  return createApiDeps(config, createLogger(config, 'test'));
}

export type RunningApi = Awaited<ReturnType<typeof serve>>;
export { serve };

export function startApi(deps: ApiDeps): Promise<RunningApi> {
  return serve(createApp(deps));
}

let runtimeInstalled = false;
function installRuntimeOnce(logger: ApiDeps['logger']) {
  if (runtimeInstalled) return;
  installRuntime(logger);
  runtimeInstalled = true;
}

/** The worker process's workers on the deps' task queues, with the run's prebuilt workflow bundle; stop them with `shutdown()`. */
export async function startTestWorker(deps: ApiDeps): Promise<{ workers: Worker[]; taskQueue: string; shutdown(): Promise<void> }> {
  installRuntimeOnce(deps.logger);
  const { config } = deps;
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const workers = await createWorkers({
    config,
    deps: {
      config,
      db: deps.db,
      storage: deps.storage,
      temporal: deps.temporal,
      mailer: createMailer(config, deps.logger),
      engines: sharedEngines({ enableNonFree: config.ENABLE_NONFREE_ENGINES, modelsDir: config.MODELS_DIR }),
    },
    connection,
    workflowBundlePath: process.env.WORKFLOW_BUNDLE,
  });
  const running = Promise.all(workers.map((worker) => worker.run()));
  return {
    workers,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    async shutdown() {
      for (const worker of workers) worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
