import { Client, Connection } from '@temporalio/client';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, readdirSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { createTokenService } from '../api/auth/tokens';
import { hashPassword } from '../api/auth/passwords';
import { createDb, type Db } from '../db/knex';
import { applyGrant } from '../db/ledger';
import { migrate } from '../db/migrate';
import { type Config, loadConfig, ROOT } from '../lib/config';
import { NODE_FLAGS } from '../lib/nodeFlags';
import { cpuTaskQueue } from '../lib/temporal';
import {
  dropDatabase,
  ensurePostgres,
  freePorts,
  type Managed,
  type MinioOptions,
  recreateDatabase,
  startMinio,
  startTemporal,
  stopChild,
  type TemporalOptions,
  waitFor,
} from './stack';

/**
 * A whole OpenVox stack of its own for the benchmark and the chaos suite: its
 * own PostgreSQL database, Temporal dev server, MinIO and data directory on
 * free ports, with the compiled api and worker (`dist/`) as child processes
 * that can be stopped, killed and started again.
 */

export interface IsolatedStackOptions {
  /** Names the database (`<dev database>_<name>`) and the data directory. */
  name: string;
  /**
   * Temporal keeps its state in a sqlite file in the data directory, so a
   * server killed and restarted picks up every workflow (the chaos suite).
   */
  persistentTemporal?: boolean;
  /** Where the api and worker write: the caller's terminal, or `<dataDir>/logs/<name>.log`. */
  childOutput?: 'inherit' | 'log';
  /** Extra settings for the api and worker. */
  env?: Record<string, string>;
  /** On close, remove MinIO's data and Temporal's sqlite file (hundreds of MB after a chaos run); logs stay. */
  removeDataOnClose?: boolean;
}

export interface StackAccount {
  id: string;
  /** An access JWT. */
  token: string;
}

export interface NodeStart {
  extraEnv?: Record<string, string>;
  /** Writes a V8 CPU profile into `<dataDir>/profiles/<name>/` when the process exits. */
  profileAs?: string;
  /** More node flags before the script (e.g. the soak's `--expose-gc --require <heap probe>`). */
  nodeArgs?: string[];
}

export interface IsolatedStack {
  dataDir: string;
  logDir: string;
  env: Record<string, string>;
  config: Config;
  db: Db;
  temporal: Client;
  apiUrl: string;
  ports: { temporal: number; minio: number; api: number };
  api(): ChildProcess | undefined;
  workers(): ChildProcess[];
  /** (Re)starts the api and waits until /readyz answers 200. */
  startApi(options?: NodeStart): Promise<void>;
  stopApi(): Promise<void>;
  /** SIGKILL to the api's process group. */
  killApi(): Promise<void>;
  /** Replaces the worker processes and waits until each one polls both task queues. */
  startWorkers(count?: number, options?: NodeStart & { concurrency?: number }): Promise<void>;
  stopWorkers(): Promise<void>;
  /** SIGKILL to every worker's process group: the worker and the engines it runs. */
  killWorkers(): Promise<void>;
  killTemporal(): Promise<void>;
  /** Starts the Temporal server again (on the same sqlite file when persistent). */
  startTemporal(): Promise<void>;
  stopMinio(): Promise<void>;
  /** Starts MinIO again on the same port and data directory. */
  startMinio(): Promise<void>;
  /** Verified accounts written straight to the database, credited through the ledger (a grant). */
  createAccounts(count: number, options: { credits: number; plan?: string }): Promise<StackAccount[]>;
  /** Stops everything this stack started and drops its database (the data directory stays, or only its logs). */
  close(): Promise<void>;
}

const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

/** SIGKILL to a process group; resolves once nothing of it is left. */
async function killGroup(child: ChildProcess): Promise<void> {
  const pgid = child.pid;
  if (!pgid) return;
  const exited =
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
  await exited;
  await waitFor(`process group ${pgid} gone`, async () => !groupAlive(pgid), 10_000);
}

/**
 * Verified accounts written straight to the database of a stack (`name` marks
 * their emails; their password is `<name> password`), credited through the
 * ledger (a grant), each with an access JWT signed with `jwtSecret`.
 */
export async function createStackAccounts(
  db: Db,
  config: Config,
  jwtSecret: string,
  name: string,
  count: number,
  { credits, plan = 'free' }: { credits: number; plan?: string },
): Promise<StackAccount[]> {
  const tokens = createTokenService(config, new TextEncoder().encode(jwtSecret));
  const passwordHash = await hashPassword(`${name} password`);
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const id = randomUUID();
      await db.transaction(async (trx) => {
        await trx('accounts').insert({
          id,
          email: `${name}-${index}-${id}@example.com`,
          password_hash: passwordHash,
          email_verified_at: new Date(),
          subscription_tier: plan,
        });
        await applyGrant(trx, id, credits, `${name}-grant`);
      });
      return { id, token: await tokens.issueAccess(id) };
    }),
  );
}

export async function startIsolatedStack(options: IsolatedStackOptions): Promise<IsolatedStack> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `openvox-${options.name}-`));
  const logDir = path.join(dataDir, 'logs');
  const profileDir = path.join(dataDir, 'profiles');
  mkdirSync(logDir, { recursive: true });
  const [temporalPort, minioPort, apiPort, minioConsole] = await freePorts(4);
  const ports = { temporal: temporalPort, minio: minioPort, api: apiPort };
  const devUrl = loadConfig().DATABASE_URL;
  const databaseUrl = devUrl.replace(/\/([^/]+)$/, `/$1_${options.name}`);
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
    MINIO_ENDPOINT: `http://127.0.0.1:${ports.minio}`,
    MINIO_ACCESS_KEY: 'isolated',
    MINIO_SECRET_KEY: 'isolated-secret',
    PORT: String(ports.api),
    JWT_SECRET: randomUUID() + randomUUID(),
    // Tokens outlive the longest run.
    ACCESS_TOKEN_TTL: String(6 * 3600),
    ...options.env,
  };
  const config = loadConfig(env);
  const temporalOptions: TemporalOptions = {
    port: ports.temporal,
    uiPort: 0,
    headless: true,
    logDir,
    ...(options.persistentTemporal && { dbFile: path.join(dataDir, 'temporal.sqlite'), sqlite: 'fast' }),
  };
  const minioOptions: MinioOptions = {
    port: ports.minio,
    consolePort: minioConsole,
    dataDir: path.join(dataDir, 'minio'),
    accessKey: env.MINIO_ACCESS_KEY,
    secretKey: env.MINIO_SECRET_KEY,
    logDir,
  };

  let postgres: Managed | undefined;
  let temporalServer: Managed | undefined;
  let minio: Managed | undefined;
  let apiChild: ChildProcess | undefined;
  let workerChildren: ChildProcess[] = [];
  let db: Db | undefined;
  let temporal: Client | undefined;
  const apiUrl = `http://127.0.0.1:${ports.api}`;

  const startNode = (name: 'api' | 'worker', { extraEnv = {}, profileAs, nodeArgs: more = [] }: NodeStart = {}) => {
    const nodeArgs = [
      ...NODE_FLAGS[name],
      ...(profileAs ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, profileAs)}`] : []),
      ...more,
    ];
    const output = options.childOutput === 'log' ? openSync(path.join(logDir, `${name}.log`), 'a') : 'inherit';
    return spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'dist', name, 'main.js')], {
      env: { ...env, ...extraEnv },
      stdio: ['ignore', output, output],
      // Its own process group: a kill reaches the engines and ffmpeg it runs, as a container kill would.
      detached: true,
    });
  };

  const close = async () => {
    for (const child of [...workerChildren, ...(apiChild ? [apiChild] : [])])
      await stopChild(child).catch(() => undefined);
    await temporal?.connection.close().catch(() => undefined);
    await db?.destroy().catch(() => undefined);
    for (const service of [minio, temporalServer]) await service?.stop().catch(() => undefined);
    await dropDatabase(databaseUrl).catch(() => undefined);
    await postgres?.stop().catch(() => undefined);
    if (options.removeDataOnClose) {
      for (const name of readdirSync(dataDir))
        if (name !== 'logs') rmSync(path.join(dataDir, name), { recursive: true, force: true });
    }
  };

  try {
    postgres = await ensurePostgres(devUrl);
    await recreateDatabase(databaseUrl);
    temporalServer = await startTemporal(temporalOptions);
    minio = await startMinio(minioOptions);
    db = createDb(config);
    await migrate(db, config);
    temporal = new Client({
      connection: await Connection.connect({ address: config.TEMPORAL_ADDRESS }),
      namespace: config.TEMPORAL_NAMESPACE,
    });
  } catch (error) {
    await close();
    throw error;
  }
  const client = temporal;
  const database = db;

  const stack: IsolatedStack = {
    dataDir,
    logDir,
    env,
    config,
    db: database,
    temporal: client,
    apiUrl,
    ports,
    api: () => apiChild,
    workers: () => workerChildren,

    async startApi(start) {
      if (apiChild) await stopChild(apiChild);
      const child = startNode('api', start);
      apiChild = child;
      await waitFor('API', async () => (await fetch(`${apiUrl}/readyz`)).ok, 120_000, child);
    },
    async stopApi() {
      if (apiChild) await stopChild(apiChild);
      apiChild = undefined;
    },
    async killApi() {
      if (apiChild) await killGroup(apiChild);
      apiChild = undefined;
    },

    async startWorkers(count = 1, { concurrency, ...start } = {}) {
      await Promise.all(workerChildren.map((worker) => stopChild(worker)));
      const extraEnv = { ...start.extraEnv, ...(concurrency && { SYNTHESIS_CONCURRENCY: String(concurrency) }) };
      workerChildren = Array.from({ length: count }, () => startNode('worker', { ...start, extraEnv }));
      const identities = workerChildren.map((worker) => `${worker.pid}@${hostname()}`);
      const polling = async (queue: string, type: number) => {
        const { pollers } = await client.workflowService.describeTaskQueue({
          namespace: config.TEMPORAL_NAMESPACE,
          taskQueue: { name: queue },
          taskQueueType: type,
        });
        return identities.every((identity) => pollers?.some((poller) => poller.identity === identity));
      };
      // Task queue types: 1 = workflow, 2 = activity.
      await waitFor(
        'workers',
        async () => {
          const dead = workerChildren.find((worker) => worker.exitCode !== null);
          if (dead) throw new Error(`a worker exited with code ${dead.exitCode}`);
          return (await polling(config.TEMPORAL_TASK_QUEUE, 1)) && (await polling(cpuTaskQueue(config), 2));
        },
        120_000,
      );
    },
    async stopWorkers() {
      await Promise.all(workerChildren.map((worker) => stopChild(worker)));
      workerChildren = [];
    },
    async killWorkers() {
      await Promise.all(workerChildren.map(killGroup));
      workerChildren = [];
    },

    async killTemporal() {
      await temporalServer?.kill();
      temporalServer = undefined;
    },
    async startTemporal() {
      temporalServer = await startTemporal(temporalOptions);
    },
    async stopMinio() {
      await minio?.stop();
      minio = undefined;
    },
    async startMinio() {
      minio = await startMinio(minioOptions);
    },

    createAccounts: (count, account) =>
      createStackAccounts(database, config, env.JWT_SECRET, options.name, count, account),

    close,
  };
  return stack;
}
