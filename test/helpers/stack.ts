import { NativeConnection, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ActivityDeps } from '../../activities';
import { createApp } from '../../api/app';
import { serve } from '../../api/listen';
import { type ApiDeps, createApiDeps } from '../../api/deps';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { createMailer } from '../../lib/mail';
import { createWorkers } from '../../worker/create';
import { sharedEngines } from '../../engines/registry';
import { migrate } from '../../db/migrate';
import { dropDatabase, recreateDatabase } from '../../scripts/stack';
import { type ModelsWatch, watchModels } from '../../worker/modelsWatch';
import { createAccount, type TestAccount } from './factories';
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

/** What a worker process gives its activities, from the deps: their mailer and the engines of MODELS_DIR. */
export function activityDeps(deps: ApiDeps): ActivityDeps {
  const { config } = deps;
  return {
    config,
    db: deps.db,
    storage: deps.storage,
    temporal: deps.temporal,
    mailer: createMailer(config, deps.logger),
    engines: sharedEngines({ enableNonFree: config.ENABLE_NONFREE_ENGINES, modelsDir: config.MODELS_DIR }),
  };
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
    deps: activityDeps(deps),
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
  /**
   * A database of its own, DATABASE_URL's name + `_<database>`: recreated and migrated before the API and worker
   * start, dropped at the end. For tests that change what every test sees (the voice catalog).
   */
  database?: string;
  /** A MODELS_DIR of its own (in the temporary directory), filled by `models` first and removed at the end. */
  models?: (dir: string) => Promise<void>;
  /** Run the worker process's watch of MODELS_DIR too, polling every `pollMs` (default its own). */
  watchModels?: { pollMs?: number };
  /** Time the start may take (default jest's testTimeout). */
  startTimeoutMs?: number;
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
  const databaseUrl = options.database ? ownDatabaseUrl(options.database) : undefined;
  const modelsDir = options.models ? path.join(os.tmpdir(), `openvox-models-${randomUUID()}`) : undefined;
  const deps = createTestDeps({
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...(modelsDir ? { MODELS_DIR: modelsDir } : {}),
    ...options.env,
  });
  let api: RunningApi | undefined;
  let worker: TestWorker | undefined;
  let modelsWatch: ModelsWatch | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    if (modelsDir) {
      await mkdir(modelsDir, { recursive: true });
      await options.models!(modelsDir);
    }
    if (databaseUrl) {
      await recreateDatabase(databaseUrl);
      await migrate(deps.db, deps.config);
    }
    [api, worker] = await Promise.all([
      options.api === false ? undefined : startApi(deps),
      options.worker ? startTestWorker(deps) : undefined,
    ]);
    if (options.watchModels) modelsWatch = await watchModelsDir(deps, options.watchModels);
  }, options.startTimeoutMs);
  afterAll(async () => {
    try {
      for (const cleanup of cleanups) await cleanup();
    } finally {
      modelsWatch?.close();
      await Promise.all([api?.close(), worker?.shutdown()]);
      await deps.close();
      if (databaseUrl) await dropDatabase(databaseUrl);
      if (modelsDir) await rm(modelsDir, { recursive: true, force: true });
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

/** DATABASE_URL with `_<name>` after its database's name. */
function ownDatabaseUrl(name: string): string {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `${url.pathname}_${name}`;
  return url.toString();
}

/** The worker process's watch of MODELS_DIR, with the engines its activities render with. */
function watchModelsDir(deps: ApiDeps, options: { pollMs?: number }): Promise<ModelsWatch> {
  const { config } = deps;
  const engines = sharedEngines({ enableNonFree: config.ENABLE_NONFREE_ENGINES, modelsDir: config.MODELS_DIR });
  return watchModels({ db: deps.db, engines, config, temporal: deps.temporal, logger: deps.logger }, options);
}

/**
 * An account of its own for the test file (or describe block), written in a beforeAll (after the stack's): a
 * view whose fields read it, so it may be passed around at once and read inside tests.
 */
export function useAccount(deps: ApiDeps, options: { credits?: number } = {}): TestAccount {
  let account: TestAccount | undefined;
  beforeAll(async () => {
    account = await createAccount(deps, options);
  });
  const read = (): TestAccount => {
    if (!account) throw new Error('the account is written in a beforeAll: read it inside a test or a later hook');
    return account;
  };
  return {
    get id() {
      return read().id;
    },
    get email() {
      return read().email;
    },
    get password() {
      return read().password;
    },
    get access() {
      return read().access;
    },
  };
}
