import { NativeConnection, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { createApp } from '../../api/app';
import type { ApiDeps } from '../../api/deps';
import { createDb } from '../../db/knex';
import { type Config, loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { createStorage } from '../../lib/storage';
import { createTemporalClient } from '../../lib/temporal';
import { createWorker } from '../../worker/create';

/** The real dependencies of the test stack that globalSetup started; `overrides` point one elsewhere. */
export function createTestDeps(overrides: NodeJS.ProcessEnv = {}): ApiDeps & { close(): Promise<void> } {
  const config = loadConfig({ ...process.env, ...overrides });
  const db = createDb(config);
  const storage = createStorage(config);
  const temporal = createTemporalClient(config);
  const logger = createLogger(config, 'test');
  return {
    config,
    db,
    storage,
    temporal,
    logger,
    async close() {
      await Promise.allSettled([db.destroy(), temporal.connection.close()]);
    },
  };
}

export interface RunningApi {
  url: string;
  close(): Promise<void>;
}

/** Serves an app on an ephemeral port, so tests speak real HTTP with fetch. */
export async function serve(app: Koa): Promise<RunningApi> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function startApi(deps: ApiDeps): Promise<RunningApi> {
  return serve(createApp(deps));
}

/** A worker on its own task queue with the run's prebuilt workflow bundle; stop it with `shutdown()`. */
export async function startTestWorker(deps: ApiDeps): Promise<{ worker: Worker; taskQueue: string; run: Promise<void>; shutdown(): Promise<void> }> {
  const taskQueue = `test-${randomUUID()}`;
  const config: Config = { ...deps.config, TEMPORAL_TASK_QUEUE: taskQueue };
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await createWorker({
    config,
    deps: { db: deps.db, storage: deps.storage },
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
