import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

/**
 * Starts the embedded infrastructure (PostgreSQL, Temporal dev server, MinIO)
 * for the start command and for the test suite. Each service already answering
 * on its port is reused, not started twice.
 */

const exec = promisify(execFile);
const BIN_DIR =
  process.env.OPENVOX_BIN_DIR ??
  path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'openvox', 'bin');

/** Search attributes the workflows set; registered at server start (compose registers them too). */
/** Custom search attributes (the Temporal UI's filters): a job's account, a synthesis's voice and size, a conversion's project and progress. */
export const SEARCH_ATTRIBUTES = {
  Account: 'Keyword',
  VoiceId: 'Keyword',
  Characters: 'Int',
  ProjectId: 'Keyword',
  Progress: 'Double',
} as const;

/**
 * One partition per task queue. The default four spread a queue's tasks over
 * partitions that one worker's pollers visit in turn; at this scale a task
 * then waits in a partition nobody polls (bench:service measured renders
 * waiting 2.4 s on average with two free slots, and bimodal workflow rates).
 * Eager activities: an activity on the workflow's own task queue, scheduled
 * by a worker with a free slot, starts in that worker without a trip through
 * matching (bench/orchestration/server.ts: ~50 ms less per such activity).
 */
export const TEMPORAL_DYNAMIC_CONFIG = {
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  'system.enableActivityEagerExecution': true,
} as const;

export interface Managed {
  name: string;
  /** Stops the process if this run started it; a reused service is left running. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash or the OOM killer would (the chaos suite); a reused service is left running. */
  kill(): Promise<void>;
}

function binary(name: string): string {
  return path.join(BIN_DIR, name);
}

/** A port the OS says is free now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * `count` distinct free ports. freePort() closes its probe before answering,
 * so two calls in a row may get the same port back (MinIO then refuses a
 * console port equal to its own); these probes stay open until all are found.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

export function portOpen(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export async function waitFor(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
  child?: ChildProcess,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}; see its log`);
    if (await probe().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000} s`);
}

function spawnLogged(
  name: string,
  command: string,
  args: string[],
  logDir: string,
  env: NodeJS.ProcessEnv = {},
): ChildProcess {
  mkdirSync(logDir, { recursive: true });
  const log = openSync(path.join(logDir, `${name}.log`), 'a');
  return spawn(command, args, { stdio: ['ignore', log, log], env: { ...process.env, ...env } });
}

/** SIGTERM, then SIGKILL if the process has not exited within the timeout. */
export async function stopChild(child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/** SIGKILL, no grace; resolves once the process has exited. */
export async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

function managed(name: string, child: ChildProcess | null): Managed {
  return {
    name,
    stop: () => (child ? stopChild(child) : Promise.resolve()),
    kill: () => (child ? killChild(child) : Promise.resolve()),
  };
}

// ---------------------------------------------------------------- Temporal

export interface TemporalOptions {
  port: number;
  uiPort: number;
  /** Persistent sqlite file, which a restarted server picks up again; in-memory when absent (tests). */
  dbFile?: string;
  /**
   * The sqlite file's durability. `wal` (the default for a file): WAL with
   * synchronous=NORMAL, which survives a killed server and may lose the last
   * transactions (not the file) to a power cut; ~1.5× the workflows per second
   * of `durable` (sqlite's own defaults: a rollback journal, synchronous=FULL).
   * `fast` (always, in memory): WAL with synchronous=OFF, the SDK test
   * server's settings; a file then survives a killed server, not a power cut.
   */
  sqlite?: 'durable' | 'wal' | 'fast';
  /** Dynamic config beyond TEMPORAL_DYNAMIC_CONFIG (benchmarks). */
  dynamicConfig?: Record<string, boolean | number | string>;
  headless?: boolean;
  logDir: string;
}

export async function startTemporal(options: TemporalOptions): Promise<Managed> {
  if (await portOpen(options.port)) return managed('temporal', null);
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--log-level', 'warn'];
  if (options.headless) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort));
  if (options.dbFile) {
    mkdirSync(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }
  // In memory, always what the SDK's own test server uses: fast and throwaway.
  const sqlite = options.dbFile ? (options.sqlite ?? 'wal') : 'fast';
  if (sqlite !== 'durable') {
    const synchronous = sqlite === 'wal' ? 'NORMAL' : 'OFF';
    args.push('--sqlite-pragma', 'journal_mode=WAL', '--sqlite-pragma', `synchronous=${synchronous}`);
  }
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=${type}`);
  for (const [key, value] of Object.entries({ ...TEMPORAL_DYNAMIC_CONFIG, ...options.dynamicConfig }))
    args.push('--dynamic-config-value', `${key}=${value}`);
  const child = spawnLogged('temporal', binary('temporal'), args, options.logDir);
  await waitFor('Temporal', () => portOpen(options.port), 60_000, child);
  // The frontend accepts connections a moment before the default namespace answers.
  await waitFor(
    'Temporal namespace',
    async () => {
      await exec(binary('temporal'), [
        'operator',
        'namespace',
        'describe',
        '--namespace',
        'default',
        '--address',
        `127.0.0.1:${options.port}`,
      ]);
      return true;
    },
    30_000,
    child,
  );
  return managed('temporal', child);
}

// ------------------------------------------------------------------- MinIO

export interface MinioOptions {
  port: number;
  consolePort: number;
  dataDir: string;
  accessKey: string;
  secretKey: string;
  logDir: string;
}

export async function startMinio(options: MinioOptions): Promise<Managed> {
  const ready = async () => (await fetch(`http://127.0.0.1:${options.port}/minio/health/ready`)).ok;
  if (await portOpen(options.port)) {
    await waitFor('MinIO', ready, 30_000);
    return managed('minio', null);
  }
  mkdirSync(options.dataDir, { recursive: true });
  const args = [
    'server',
    options.dataDir,
    '--quiet',
    '--address',
    `127.0.0.1:${options.port}`,
    '--console-address',
    `127.0.0.1:${options.consolePort}`,
  ];
  const child = spawnLogged('minio', binary('minio'), args, options.logDir, {
    MINIO_ROOT_USER: options.accessKey,
    MINIO_ROOT_PASSWORD: options.secretKey,
    MINIO_BROWSER_REDIRECT: 'off',
    MINIO_UPDATE: 'off',
  });
  await waitFor('MinIO', ready, 60_000, child);
  return managed('minio', child);
}

// -------------------------------------------------------------- PostgreSQL

async function canConnect(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
const quoteLiteral = (value: string) => `'${value.replace(/'/g, "''")}'`;

async function psqlAsPostgres(sql: string, port: string): Promise<string> {
  const { stdout } = await exec('runuser', [
    '-u',
    'postgres',
    '--',
    'psql',
    '-p',
    port,
    '-v',
    'ON_ERROR_STOP=1',
    '-tAc',
    sql,
  ]);
  return stdout.trim();
}

/**
 * Makes DATABASE_URL connectable. If it already is, nothing is touched (an
 * operator's database). Otherwise, on a local host and as root, starts Debian's
 * PostgreSQL cluster and creates the role (with CREATEDB, for the test
 * database) and the database.
 */
/**
 * `keepRunning`: a cluster this call starts stays up when its caller stops
 * (test runs: another run may have found it up and be using it).
 */
export async function ensurePostgres(databaseUrl: string, { keepRunning = false } = {}): Promise<Managed> {
  if (await canConnect(databaseUrl)) return managed('postgresql', null);
  const url = new URL(databaseUrl);
  const local = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(url.hostname);
  if (!local)
    throw new Error(`cannot connect to the database at ${url.hostname}:${url.port || 5432}; check DATABASE_URL`);
  if (process.getuid?.() !== 0) {
    throw new Error(
      'the local PostgreSQL is not reachable with DATABASE_URL, and managing it needs root (run as root, or point DATABASE_URL at a database you own)',
    );
  }
  const port = url.port || '5432';
  const { stdout } = await exec('pg_lsclusters', ['--no-header']);
  const cluster = stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find((fields) => fields[2] === port);
  let started: string[] | null = null;
  if (!cluster) {
    await exec('pg_createcluster', ['15', 'main', '--port', port, '--start']);
    started = ['15', 'main'];
  } else if (cluster[3] !== 'online') {
    await exec('pg_ctlcluster', [cluster[0], cluster[1], 'start']);
    started = [cluster[0], cluster[1]];
  }
  await waitFor('PostgreSQL', async () => (await psqlAsPostgres('select 1', port)) === '1', 30_000);

  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  const database = decodeURIComponent(url.pathname.slice(1));
  if (!user || !database) throw new Error('DATABASE_URL must name a user and a database');
  const roleExists = await psqlAsPostgres(`select 1 from pg_roles where rolname = ${quoteLiteral(user)}`, port);
  const roleSql = `${quoteIdent(user)} login createdb password ${quoteLiteral(password)}`;
  await psqlAsPostgres(roleExists ? `alter role ${roleSql}` : `create role ${roleSql}`, port);
  const dbExists = await psqlAsPostgres(`select 1 from pg_database where datname = ${quoteLiteral(database)}`, port);
  if (!dbExists) await psqlAsPostgres(`create database ${quoteIdent(database)} owner ${quoteIdent(user)}`, port);
  await waitFor('PostgreSQL login', () => canConnect(databaseUrl), 10_000);
  const stop = async () => {
    if (started && !keepRunning) await exec('pg_ctlcluster', [...started, 'stop']);
  };
  // Only a cluster this run started is stopped again (the cluster is shared: never SIGKILLed).
  return { name: 'postgresql', stop, kill: stop };
}

/** Runs `work` connected as the role of `url` to the `postgres` database; returns the database named in `url`. */
async function asAdmin<T>(url: string, work: (client: Client, database: string) => Promise<T>): Promise<T> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await work(client, decodeURIComponent(new URL(url).pathname.slice(1)));
  } finally {
    await client.end();
  }
}

/** Drops and creates the database named in `url`. */
export function recreateDatabase(url: string): Promise<void> {
  return asAdmin(url, async (client, database) => {
    await client.query(`drop database if exists ${quoteIdent(database)} with (force)`);
    await client.query(`create database ${quoteIdent(database)}`);
  });
}

export function dropDatabase(url: string): Promise<void> {
  return asAdmin(url, async (client, database) => {
    await client.query(`drop database if exists ${quoteIdent(database)} with (force)`);
  });
}

/** Test databases left by runs that died (`<name>_test_<pid>` whose process is gone). */
export function dropStaleTestDatabases(url: string): Promise<void> {
  return asAdmin(url, async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      `select datname from pg_database where datname ~ '_test_[0-9]+$'`,
    );
    for (const { datname } of rows) {
      const pid = Number(/_test_(\d+)$/.exec(datname)?.[1]);
      let alive = true;
      try {
        process.kill(pid, 0);
      } catch {
        alive = false;
      }
      if (!alive) await client.query(`drop database if exists ${quoteIdent(datname)} with (force)`);
    }
  });
}
