import { NativeConnection, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { createApp } from '../../api/app';
import { serve } from '../../api/listen';
import { type ApiDeps, createApiDeps } from '../../api/deps';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { createMailer } from '../../lib/mail';
import { createWorker } from '../../worker/create';
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

/** A worker on the deps' task queue with the run's prebuilt workflow bundle; stop it with `shutdown()`. */
export async function startTestWorker(deps: ApiDeps): Promise<{ worker: Worker; taskQueue: string; run: Promise<void>; shutdown(): Promise<void> }> {
  installRuntimeOnce(deps.logger);
  const { config } = deps;
  const taskQueue = config.TEMPORAL_TASK_QUEUE;
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await createWorker({
    config,
    deps: { config, db: deps.db, storage: deps.storage, mailer: createMailer(config, deps.logger), temporal: deps.temporal },
    connection,
    workflowBundlePath: process.env.WORKFLOW_BUNDLE,
  });
  const run = worker.run();
  return {
    worker,
    taskQueue,
    run,
    async shutdown() {
      worker.shutdown();
      await run;
      await connection.close();
    },
  };
}
