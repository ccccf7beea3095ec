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
import { installRuntimeOnce } from './runtime';

/** The real dependencies of the test stack that globalSetup started; `overrides` point one elsewhere. */
export function createTestDeps(overrides: NodeJS.ProcessEnv = {}): ApiDeps & { close(): Promise<void> } {
  // Each set of deps gets its own task queue, so its worker serves only its own workflows.
  const config = loadConfig({ ...process.env, TEMPORAL_TASK_QUEUE: `test-${randomUUID()}`, ...overrides });
  return createApiDeps(config, createLogger(config, 'test'));
}

export type RunningApi = Awaited<ReturnType<typeof serve>>;
export { serve };

export function startApi(deps: ApiDeps): Promise<RunningApi> {
  return serve(createApp(deps), deps.config);
}

/** The worker process's workers on the deps' task queues, with the run's prebuilt workflow bundle; stop them with `shutdown()`. */
export async function startTestWorker(
  deps: ApiDeps,
): Promise<{ workers: Worker[]; taskQueue: string; shutdown(): Promise<void> }> {
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

/** The OpenAPI document an API of its own serves, for a test outside any useStack block. */
export async function fetchOpenApiDocument(): Promise<any> {
  const deps = createTestDeps();
  const api = await startApi(deps);
  try {
    const response = await fetch(`${api.url}/api/openapi.json`);
    if (response.status !== 200) throw new Error(`GET /api/openapi.json answered ${response.status}`);
    return await response.json();
  } finally {
    await api.close();
    await deps.close();
  }
}

export type TestDeps = ReturnType<typeof createTestDeps>;
type TestWorker = Awaited<ReturnType<typeof startTestWorker>>;

export interface StackOptions {
  /** Serve the API (default true). */
  api?: boolean;
  /** Run an in-process worker on the deps' own task queue (default false). */
  worker?: boolean;
  /** Config overrides for this stack's deps (see createTestDeps). */
  env?: NodeJS.ProcessEnv;
}

/** What useStack returns: the deps at once; `api` and `worker` answer once its beforeAll has run. */
export interface Stack {
  deps: TestDeps;
  api: RunningApi;
  /** The in-process worker; `restart()` stops it and starts a new one on the same task queue. */
  worker: TestWorker & { restart(): Promise<void> };
  /**
   * Registers clean-up that needs the stack (rows to delete, processes to
   * stop) to run in the stack's afterAll before it closes: jest runs afterAll
   * hooks in declaration order, so a file's own afterAll would find it closed.
   */
  onClose(cleanup: () => Promise<unknown>): void;
}

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined)
    throw new Error(
      `the test stack's ${what} is not running: use it inside a test or a later hook (or pass { ${what}: true })`,
    );
  return value;
}

/**
 * The set-up of a test file (or describe block) that speaks to the real
 * stack: creates its deps now, starts the API (and, with `worker: true`, an
 * in-process worker) in its own beforeAll, and stops them and closes the deps
 * in its own afterAll. Call it at file or describe level; `api` and `worker`
 * are views that read the running parts, so they may be destructured at once.
 */
export function useStack(options: StackOptions = {}): Stack {
  const deps = createTestDeps(options.env);
  let api: RunningApi | undefined;
  let worker: TestWorker | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    [api, worker] = await Promise.all([
      options.api === false ? undefined : startApi(deps),
      options.worker ? startTestWorker(deps) : undefined,
    ]);
  });
  afterAll(async () => {
    try {
      for (const cleanup of cleanups) await cleanup();
    } finally {
      await Promise.all([api?.close(), worker?.shutdown()]);
      await deps.close();
    }
  });
  return {
    deps,
    onClose: (cleanup) => void cleanups.push(cleanup),
    api: {
      get url() {
        return started(api, 'api').url;
      },
      close: () => started(api, 'api').close(),
    },
    worker: {
      get workers() {
        return started(worker, 'worker').workers;
      },
      get taskQueue() {
        return started(worker, 'worker').taskQueue;
      },
      shutdown: () => started(worker, 'worker').shutdown(),
      async restart() {
        await started(worker, 'worker').shutdown();
        worker = undefined;
        worker = await startTestWorker(deps);
      },
    },
  };
}
