import { Client as TemporalClient, Connection } from '@temporalio/client';
import { type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { createDb, type Db } from '../db/knex';
import { migrate } from '../db/migrate';
import { type Config, loadConfig, ROOT } from '../lib/config';
import { cpuTaskQueue } from '../lib/temporal';
import { createStackAccounts, type StackAccount } from '../scripts/isolatedStack';
import { SEARCH_ATTRIBUTES, TEMPORAL_DYNAMIC_CONFIG, waitFor } from '../scripts/stack';
import {
  expect,
  findingsReport,
  type Findings,
  newFindings,
  type Observed,
  type RunRow,
  runningWorkflows,
  settle,
} from './checks';
import { type Client, followToEnd, type Op, registerWebhook, speech, synthesis } from './load';
import { createTopology, sh, type NodeNs, type Topology } from './netns';
import { startReceiver, type Receiver } from './receiver';
import { logger } from './stack';
import { sentences as textOf } from './texts';

/**
 * The multi-node harness: on this machine, in Linux network namespaces it
 * makes and removes, a "data" namespace with PostgreSQL (a cluster of its
 * own), the Temporal server and MinIO, and two "node" namespaces each with an
 * API and a worker of this build, reached over veth links through a bridge.
 * The clients round-robin over the APIs (client-side balancing) and retry
 * on the other node. Each node fault runs under load; then the chaos suite's
 * invariants are checked. Exits 1 on any violation or anything left behind.
 *
 * Run (as root): npm run multinode
 *   MULTINODE_ONLY=1,3   only these faults (numbers as in the table)
 */

const ONLY = (process.env.MULTINODE_ONLY ?? '').split(',').filter(Boolean).map(Number);
const BIN_DIR =
  process.env.OPENVOX_BIN_DIR ??
  path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'openvox', 'bin');
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const FAKETIME_LIB = process.env.FAKETIME_LIB ?? '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
const API_PORT = 3000;
const PG_PORT = 5432;
/** The relay in front of PostgreSQL that the nodes use (delayProxy.ts): the fault slows it. */
const PG_RELAY_PORT = 6432;
const SKEW_SECONDS = 90;
const QUIESCE_MS = 300_000;

const log = logger('multinode');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Piper (neural), Festival, Flite, eSpeak NG: the fast classic engines twice as often, so a 2-core machine drains the load within minutes. */
const VOICES = ['en-us-joe', 'en-us-espeak-f', 'en-us-slt', 'en-us-flite-rms', 'en-us-espeak-f', 'en-us-flite-rms'];
const FORMATS = ['mp3', 'wav', 'ogg', 'flac'];

function preconditions(): void {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root (network namespaces, veth links, a PostgreSQL cluster of its own)');
  for (const binary of [
    path.join(BIN_DIR, 'temporal'),
    path.join(BIN_DIR, 'minio'),
    path.join(PG_BIN, 'initdb'),
    path.join(PG_BIN, 'postgres'),
  ])
    if (!existsSync(binary)) missing.push(binary);
  if (!existsSync(FAKETIME_LIB)) missing.push(`${FAKETIME_LIB} (Debian package faketime: apt-get install faketime)`);
  if (!['/usr/sbin/iptables', '/sbin/iptables'].some((binary) => existsSync(binary)))
    missing.push('iptables (Debian package iptables: apt-get install iptables)');
  if (missing.length) throw new Error(`the multi-node harness needs: ${missing.join('; ')}`);
}

interface NodeProcesses {
  api?: ChildProcess;
  worker?: ChildProcess;
  skewed: boolean;
}

interface Harness {
  topology: Topology;
  dataDir: string;
  logDir: string;
  /** The settings every node gets (shared secrets included). */
  nodeEnv: Record<string, string>;
  /** The harness's own view: PostgreSQL directly (not through the relay), Temporal, MinIO. */
  observed: Observed;
  db: Db;
  temporal: TemporalClient;
  relay?: ChildProcess;
  nodes: Map<string, NodeProcesses>;
  apiUrls: string[];
  receiver: Receiver;
  jwtSecret: string;
}

async function startDataNamespace(
  topology: Topology,
  dataDir: string,
): Promise<{ databaseUrl: string; relay: ChildProcess; minioKeys: { access: string; secret: string } }> {
  const { ns, address } = topology.data;
  // PostgreSQL: a cluster of its own, owned by the postgres user, listening only inside the data namespace.
  const pgDir = path.join(dataDir, 'pg');
  mkdirSync(pgDir, { recursive: true });
  chmodSync(dataDir, 0o755);
  await sh('chown', ['postgres:postgres', pgDir]);
  const password = randomBytes(18).toString('base64url');
  await sh('runuser', [
    '-u',
    'postgres',
    '--',
    path.join(PG_BIN, 'initdb'),
    '-D',
    pgDir,
    '-U',
    'postgres',
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  appendFileSync(path.join(pgDir, 'pg_hba.conf'), `host all all ${topology.subnet}.0/24 scram-sha-256\n`);
  topology.spawnIn(ns, 'postgres', 'runuser', [
    '-u',
    'postgres',
    '--',
    path.join(PG_BIN, 'postgres'),
    '-D',
    pgDir,
    '-c',
    `listen_addresses=${address},127.0.0.1`,
    '-c',
    `port=${PG_PORT}`,
    '-c',
    `unix_socket_directories=${pgDir}`,
    '-c',
    'max_connections=200',
    '-c',
    'fsync=off',
  ]);
  const psql = (sql: string) =>
    sh('ip', [
      'netns',
      'exec',
      ns,
      'runuser',
      '-u',
      'postgres',
      '--',
      path.join(PG_BIN, 'psql'),
      '-h',
      pgDir,
      '-p',
      String(PG_PORT),
      '-v',
      'ON_ERROR_STOP=1',
      '-tAc',
      sql,
    ]);
  await waitFor('PostgreSQL in the data namespace', async () => (await psql('select 1')) === '1', 60_000);
  await psql(`create role openvox login createdb password '${password}'`);
  await psql('create database openvox owner openvox');
  const relay = topology.spawnIn(ns, 'pg-relay', process.execPath, [
    path.join(ROOT, 'dist', 'chaos', 'delayProxy.js'),
    address,
    String(PG_RELAY_PORT),
    '127.0.0.1',
    String(PG_PORT),
    '200',
  ]);

  // Temporal on a sqlite file, as the chaos suite runs it, listening on the data namespace's address.
  // Its internal services dial 127.0.0.1, so it listens on every address of the namespace (lo and the bridge only).
  const temporalArgs = [
    'server',
    'start-dev',
    '--ip',
    '0.0.0.0',
    '--port',
    '7233',
    '--headless',
    '--log-level',
    'warn',
    '--db-filename',
    path.join(dataDir, 'temporal.sqlite'),
  ];
  temporalArgs.push('--sqlite-pragma', 'journal_mode=WAL', '--sqlite-pragma', 'synchronous=OFF');
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES))
    temporalArgs.push('--search-attribute', `${name}=${type}`);
  for (const [key, value] of Object.entries(TEMPORAL_DYNAMIC_CONFIG))
    temporalArgs.push('--dynamic-config-value', `${key}=${value}`);
  topology.spawnIn(ns, 'temporal', path.join(BIN_DIR, 'temporal'), temporalArgs);

  const minioKeys = { access: 'multinode', secret: randomBytes(18).toString('base64url') };
  topology.spawnIn(
    ns,
    'minio',
    path.join(BIN_DIR, 'minio'),
    [
      'server',
      path.join(dataDir, 'minio'),
      '--quiet',
      '--address',
      `${address}:9000`,
      '--console-address',
      `${address}:9001`,
    ],
    {
      MINIO_ROOT_USER: minioKeys.access,
      MINIO_ROOT_PASSWORD: minioKeys.secret,
      MINIO_BROWSER_REDIRECT: 'off',
      MINIO_UPDATE: 'off',
    },
  );
  await waitFor(
    'MinIO in the data namespace',
    async () => (await fetch(`http://${address}:9000/minio/health/ready`)).ok,
    60_000,
  );
  return { databaseUrl: `postgres://openvox:${password}@${address}:${PG_PORT}/openvox`, relay, minioKeys };
}

async function startNode(harness: Harness, node: NodeNs, { skewed = false } = {}): Promise<void> {
  const env: Record<string, string> = {
    ...harness.nodeEnv,
    HOST: node.address,
    DATA_DIR: path.join(harness.dataDir, node.name),
    ...(skewed && {
      LD_PRELOAD: FAKETIME_LIB,
      FAKETIME: `+${SKEW_SECONDS}s`,
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
      FAKETIME_NO_CACHE: '1',
    }),
  };
  const spawnNode = (role: 'api' | 'worker') =>
    harness.topology.spawnIn(
      node.ns,
      `${node.name}-${role}`,
      process.execPath,
      [path.join(ROOT, 'dist', role, 'main.js')],
      env,
    );
  const processes: NodeProcesses = { skewed, worker: spawnNode('worker'), api: spawnNode('api') };
  harness.nodes.set(node.name, processes);
  const url = `http://${node.address}:${API_PORT}`;
  await waitFor(
    `${node.name} API`,
    async () => (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) })).ok,
    180_000,
    processes.api,
  );
  const identity = `${processes.worker!.pid}@${hostname()}`;
  const config = harness.observed.config;
  const polling = async (queue: string, type: number) => {
    const { pollers } = await harness.temporal.workflowService.describeTaskQueue({
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: { name: queue },
      taskQueueType: type,
    });
    return !!pollers?.some((poller) => poller.identity === identity);
  };
  await waitFor(
    `${node.name} worker`,
    async () => (await polling(config.TEMPORAL_TASK_QUEUE, 1)) && (await polling(cpuTaskQueue(config), 2)),
    180_000,
    processes.worker,
  );
}

/** Stops a node's API and worker gracefully (SIGTERM, then SIGKILL after 30 s). */
async function stopNode(harness: Harness, node: NodeNs): Promise<void> {
  for (const child of Object.values(harness.nodes.get(node.name) ?? {})) {
    if (typeof child !== 'object' || !child || child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }
  await harness.topology.killAllIn(node.ns);
}

// ------------------------------------------------------------------ load

interface LoadResult {
  ops: Op[];
  accepted: Set<string>;
  /** Speech streams cut mid-way and finished from history on another node. */
  resumed: number;
  /** Speech streams cut before their synthesis id arrived (or refused): the client made a new request. */
  restarted: number;
  /** Why speech attempts were asked again, by error. */
  retryReasons: Map<string, number>;
}

/** A client-side round robin over the APIs: each request goes to the next one, so a retry goes to another node. */
function roundRobin(urls: string[]): () => string {
  let next = 0;
  return () => urls[next++ % urls.length];
}

/**
 * Steady load for `durationMs`: a synthesis every 3 s (half followed by SSE,
 * half by polling) and a speech stream every 10 s, over the accounts, each
 * client balancing over every API. A speech stream that is cut is finished
 * the way a client can: from history if its X-Synthesis-Id arrived, else by
 * asking again.
 */
async function runLoad(harness: Harness, accounts: StackAccount[], durationMs: number): Promise<LoadResult> {
  const result: LoadResult = { ops: [], accepted: new Set(), resumed: 0, restarted: 0, retryReasons: new Map() };
  const clients: Client[] = accounts.map((account) => ({
    token: account.token,
    baseUrl: roundRobin(harness.apiUrls),
    timeoutMs: 15_000,
  }));
  const jobs: Promise<void>[] = [];
  const endAt = Date.now() + durationMs;
  let n = 0;
  let m = 0;
  const synthesisLoop = async () => {
    while (Date.now() < endAt) {
      const index = n++;
      const client = clients[index % clients.length];
      jobs.push(
        synthesis(
          client,
          {
            text: textOf(1 + (index % 2), index),
            voice: VOICES[index % VOICES.length],
            format: FORMATS[index % FORMATS.length],
            sse: index % 2 === 0,
            timeoutMs: 400_000,
          },
          (id) => result.accepted.add(id),
        ).then((op) => {
          result.ops.push(op);
        }),
      );
      await sleep(3_000);
    }
  };
  const speechLoop = async () => {
    while (Date.now() < endAt) {
      const index = m++;
      const client = clients[index % clients.length];
      jobs.push(
        (async () => {
          // A careful client: asks again (the next request goes to the next API) for up to 150 s, backing off to 5 s.
          const giveUpAt = Date.now() + 150_000;
          for (let attempt = 0; attempt < 40 && Date.now() < giveUpAt; attempt++) {
            const op = await speech(
              client,
              textOf(2, index),
              index % 2 ? 'en-us-joe' : 'alloy',
              index % 3 ? 'mp3' : 'wav',
              index % 4 === 0,
            );
            if (op.id) result.accepted.add(op.id);
            if (op.ok) return void result.ops.push(op);
            if (op.id) {
              // Cut after its synthesis id: the rest comes from history through another API.
              result.resumed += 1;
              return void result.ops.push(
                await followToEnd(client, op.id, { sse: true, timeoutMs: 400_000 }, Date.now() - op.ms, 'speech'),
              );
            }
            result.restarted += 1;
            result.retryReasons.set(op.error ?? '?', (result.retryReasons.get(op.error ?? '?') ?? 0) + 1);
            await sleep(Math.min(5_000, 1_000 * 1.5 ** attempt));
          }
          result.ops.push({ kind: 'speech', ok: false, ms: 0, endedAt: Date.now(), error: 'no stream within 150 s' });
        })(),
      );
      await sleep(10_000);
    }
  };
  await Promise.all([synthesisLoop(), speechLoop()]);
  await Promise.all(jobs);
  return result;
}

// -------------------------------------------------------------- scenarios

interface FaultContext {
  harness: Harness;
  findings: Findings;
}

interface Fault {
  name: string;
  /** Load duration, and the fault run alongside it. */
  loadMs: number;
  inject(context: FaultContext): Promise<void>;
  /** Checks of its own after the invariants (optional). */
  after?(context: FaultContext, accounts: StackAccount[]): Promise<void>;
}

const nodeOf = (harness: Harness, name: string) => harness.topology.nodes.find((node) => node.name === name)!;

const faults: Fault[] = [
  {
    name: 'node1 killed whole (SIGKILL to every process in its namespace), back after 30 s',
    loadMs: 100_000,
    async inject({ harness, findings }) {
      await sleep(25_000);
      const node = nodeOf(harness, 'node1');
      const killed = await harness.topology.killAllIn(node.ns);
      findings.notes.push(`${killed} processes killed in ${node.ns} (API, worker and what they ran)`);
      log(`node1 killed (${killed} processes)`);
      await sleep(30_000);
      await startNode(harness, node);
      log('node1 back');
    },
  },
  {
    name: 'node2 cut from the network for 30 s (link down), then back',
    loadMs: 100_000,
    async inject({ harness }) {
      await sleep(25_000);
      const node = nodeOf(harness, 'node2');
      await harness.topology.linkDown(node);
      log('node2 link down');
      await sleep(30_000);
      await harness.topology.linkUp(node);
      log('node2 link up');
    },
  },
  {
    name: 'link to PostgreSQL slowed 60 s (200 ms delay on replies, 1 % loss)',
    loadMs: 100_000,
    async inject({ harness, findings }) {
      await sleep(20_000);
      const { ns } = harness.topology.data;
      const rule = [
        '-p',
        'tcp',
        '--sport',
        String(PG_RELAY_PORT),
        '-m',
        'statistic',
        '--mode',
        'random',
        '--probability',
        '0.01',
        '-j',
        'DROP',
      ];
      harness.relay!.kill('SIGUSR1');
      await sh('ip', ['netns', 'exec', ns, 'iptables', '-A', 'OUTPUT', ...rule]);
      log('PostgreSQL link slowed');
      await sleep(60_000);
      const counters = await sh('ip', ['netns', 'exec', ns, 'iptables', '-L', 'OUTPUT', '-v', '-n', '-x']).catch(
        () => '',
      );
      await sh('ip', ['netns', 'exec', ns, 'iptables', '-D', 'OUTPUT', ...rule]);
      harness.relay!.kill('SIGUSR2');
      const dropped = /^\s*(\d+)\s+\d+\s+DROP/m.exec(counters)?.[1] ?? '?';
      findings.notes.push(
        `200 ms on every reply by the relay, 1 % loss by iptables statistic in the data namespace (${dropped} packets dropped); this kernel has no sch_netem`,
      );
      log('PostgreSQL link back to normal');
    },
  },
  {
    name: `node2's clock ${SKEW_SECONDS} s ahead (libfaketime), tokens and keys used across nodes`,
    loadMs: 90_000,
    async inject({ harness, findings }) {
      const node2 = nodeOf(harness, 'node2');
      await stopNode(harness, node2);
      await startNode(harness, node2, { skewed: true });
      log(`node2 restarted ${SKEW_SECONDS} s ahead`);
      const [account] = await createStackAccounts(
        harness.db,
        harness.observed.config,
        harness.jwtSecret,
        'multinode-clock',
        1,
        { credits: 100_000, plan: 'pro' },
      );
      const email = (await harness.db('accounts').where({ id: account.id }).first('email')).email as string;
      const [url1, url2] = harness.apiUrls;
      const post = (url: string, pathname: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${url}${pathname}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...headers },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
      // A token pair issued by the node whose clock is ahead, used on the other one; refreshed there.
      const login = await post(url2, '/api/v1/auth/login/', { email, password: 'multinode-clock password' });
      expect(
        findings,
        login.status === 200,
        'login on the skewed node failed',
        () => `login on node2: ${login.status}`,
      );
      const tokens = (await login.json()) as { access: string; refresh: string };
      const profile = await fetch(`${url1}/api/v1/auth/profile/`, {
        headers: { Authorization: `Bearer ${tokens.access}` },
      });
      expect(
        findings,
        profile.status === 200,
        'token from the skewed node refused elsewhere',
        () => `node2's access token on node1: ${profile.status}`,
      );
      const refreshed = await post(url1, '/api/v1/auth/refresh/', { refresh: tokens.refresh });
      expect(
        findings,
        refreshed.status === 200,
        'refresh from the skewed node refused elsewhere',
        () => `node2's refresh token on node1: ${refreshed.status}`,
      );
      // The other way round: a token of node1 on node2.
      const login1 = await post(url1, '/api/v1/auth/login/', { email, password: 'multinode-clock password' });
      const access1 = ((await login1.json()) as { access: string }).access;
      const profile2 = await fetch(`${url2}/api/v1/auth/profile/`, { headers: { Authorization: `Bearer ${access1}` } });
      expect(
        findings,
        profile2.status === 200,
        'token refused by the skewed node',
        () => `node1's access token on node2: ${profile2.status}`,
      );
      // One Idempotency-Key submitted to both nodes at once, then retried on each: one synthesis, every 202 the same.
      const key = `multinode-${randomUUID()}`;
      const body = { text: textOf(1, 3), voice_id: 'en-us-espeak-f' };
      const auth = { Authorization: `Bearer ${tokens.access}`, 'Idempotency-Key': key };
      const ids = new Set<string>();
      const statuses: number[] = [];
      const started = Date.now();
      for (let round = 0; round < 40 && Date.now() - started < 60_000; round++) {
        const answers = await Promise.all([url2, url1].map((url) => post(url, '/api/v1/tts/synthesize/', body, auth)));
        for (const answer of answers) {
          statuses.push(answer.status);
          if (answer.status === 202) ids.add(((await answer.json()) as { id: string }).id);
          else await answer.body?.cancel();
        }
        if (answers.every((answer) => answer.status === 202)) break;
        await sleep(500);
      }
      expect(
        findings,
        ids.size === 1,
        'one key, several syntheses across nodes',
        () => `one Idempotency-Key on both nodes gave ${ids.size} syntheses (${[...ids].join(', ')})`,
      );
      const settled = statuses.slice(-2).every((status) => status === 202);
      expect(
        findings,
        settled,
        'key not settled across nodes',
        () => `both nodes did not answer 202 for one key within 60 s (statuses ${statuses.join(',')})`,
      );
      findings.notes.push(
        `one key on both nodes: ${statuses.length} answers (${statuses.join(',')}) settled in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      const [row] = await harness
        .db('idempotency_keys')
        .where({ key })
        .select('locked_until', harness.db.raw('now() as db_now'));
      if (row)
        findings.notes.push(
          `that key's locked_until is ${((new Date(row.locked_until).getTime() - new Date(row.db_now).getTime()) / 1000).toFixed(1)} s after the database's now()`,
        );
      // Wait out the load on both clocks, then put node2 back on the right time.
      await sleep(60_000);
      await stopNode(harness, node2);
      await startNode(harness, node2);
      log('node2 back on the right time');
    },
  },
];

// ------------------------------------------------------------------- main

interface Row extends RunRow {
  ops: Op[];
  resumed: number;
  restarted: number;
}

async function main(): Promise<number> {
  preconditions();
  const started = Date.now();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'openvox-multinode-'));
  const logDir = path.join(dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  log(`making the namespaces (logs in ${logDir})`);
  const topology = await createTopology(2, logDir);
  const seenPids = new Set<number>();
  const remember = async () => {
    for (const ns of [topology.data.ns, ...topology.nodes.map((node) => node.ns)])
      for (const pid of await topology.pidsIn(ns)) seenPids.add(pid);
  };
  let harness: Harness | undefined;
  let interrupted = false;
  const cleanUp = async () => {
    await remember().catch(() => undefined);
    await harness?.receiver.close().catch(() => undefined);
    await harness?.temporal.connection.close().catch(() => undefined);
    await harness?.db.destroy().catch(() => undefined);
    await topology.teardown();
  };
  const onSignal = () => {
    interrupted = true;
    void cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const rows: Row[] = [];
  try {
    log(`data namespace ${topology.data.ns} (${topology.data.address}): PostgreSQL, Temporal, MinIO`);
    const data = await startDataNamespace(topology, dataDir);
    const jwtSecret = randomBytes(48).toString('base64url');
    const nodeEnv: Record<string, string> = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      PORT: String(API_PORT),
      DATABASE_URL: data.databaseUrl.replace(`:${PG_PORT}/`, `:${PG_RELAY_PORT}/`),
      TEMPORAL_ADDRESS: `${topology.data.address}:7233`,
      MINIO_ENDPOINT: `http://${topology.data.address}:9000`,
      MINIO_ACCESS_KEY: data.minioKeys.access,
      MINIO_SECRET_KEY: data.minioKeys.secret,
      JWT_SECRET: jwtSecret,
      ACCESS_TOKEN_TTL: String(6 * 3600),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    };
    const config: Config = loadConfig({
      ...process.env,
      ...nodeEnv,
      DATABASE_URL: data.databaseUrl,
      DATA_DIR: path.join(dataDir, 'harness'),
    });
    const db = createDb(config);
    await migrate(db, config);
    let temporal: TemporalClient | undefined;
    await waitFor(
      'Temporal in the data namespace',
      async () => {
        const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS, connectTimeout: 2_000 });
        const client = new TemporalClient({ connection, namespace: config.TEMPORAL_NAMESPACE });
        await client.workflowService.describeNamespace({ namespace: config.TEMPORAL_NAMESPACE });
        temporal = client;
        return true;
      },
      90_000,
    );
    const receiver = await startReceiver(topology.hostAddress);
    harness = {
      topology,
      dataDir,
      logDir,
      nodeEnv,
      observed: { db, temporal: temporal!, config },
      db,
      temporal: temporal!,
      relay: data.relay,
      nodes: new Map(),
      apiUrls: topology.nodes.map((node) => `http://${node.address}:${API_PORT}`),
      receiver,
      jwtSecret,
    };
    for (const node of topology.nodes) {
      log(`${node.name} (${node.ns}, ${node.address}): API and worker`);
      await startNode(harness, node);
    }
    await remember();
    log('two nodes up');

    for (const [index, fault] of faults.entries()) {
      if (ONLY.length && !ONLY.includes(index + 1)) continue;
      const name = `${index + 1}. ${fault.name}`;
      log(`fault ${name}`);
      const faultStarted = Date.now();
      const findings = newFindings();
      const before = await runningWorkflows(harness.observed);
      const accounts = await createStackAccounts(db, config, jwtSecret, `multinode-${index + 1}`, 6, {
        credits: 10_000_000,
        plan: 'pro',
      });
      for (const [position, account] of accounts.entries()) {
        const endpoint = `f${index + 1}-${position}`;
        receiver.secretFor(
          endpoint,
          await registerWebhook(
            { token: account.token, baseUrl: () => harness!.apiUrls[0] },
            `${receiver.url}/${endpoint}`,
          ),
        );
      }
      let load: LoadResult;
      try {
        [load] = await Promise.all([runLoad(harness, accounts, fault.loadMs), fault.inject({ harness, findings })]);
      } catch (error) {
        findings.violations.push({
          check: 'fault aborted',
          detail: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
        load = { ops: [], accepted: new Set(), resumed: 0, restarted: 0, retryReasons: new Map() };
      }
      await remember();
      const accountIds = accounts.map((account) => account.id);
      const tally = await settle(
        harness.observed,
        {
          accountIds,
          accepted: load.accepted,
          reportedKeys: new Set(),
          before,
          quiesceMs: QUIESCE_MS,
          allCompleted: true,
        },
        findings,
      );
      for (const op of load.ops.filter((candidate) => !candidate.ok))
        expect(findings, false, 'client could not finish', () => `${op.kind} ${op.id ?? ''}: ${op.error}`);
      // Webhooks: every completed synthesis announced (deliveries retried past the fault).
      const deadline = Date.now() + 120_000;
      const completed: string[] = await db('syntheses')
        .whereIn('account_id', accountIds)
        .where({ status: 'completed' })
        .pluck('id');
      let missing = completed;
      while (missing.length && Date.now() < deadline) {
        const announced = new Set(
          [...receiver.events.values()]
            .filter((event) => event.type === 'synthesis.completed')
            .map((event) => event.resourceId),
        );
        missing = completed.filter((id) => !announced.has(id));
        if (missing.length) await sleep(2_000);
      }
      expect(
        findings,
        missing.length === 0,
        'completed synthesis not announced',
        () => `${missing.length} of ${completed.length} completed syntheses never reached the webhook receiver`,
      );
      if (load.retryReasons.size)
        findings.notes.push(
          `speech requests asked again: ${[...load.retryReasons].map(([reason, n]) => `${n} × ${reason}`).join(', ')}`,
        );
      await fault.after?.({ harness, findings }, accounts);
      rows.push({
        name,
        accepted: load.accepted.size,
        completed: tally.completed,
        failed: tally.failed,
        canceled: tally.canceled,
        ops: load.ops,
        resumed: load.resumed,
        restarted: load.restarted,
        findings,
        seconds: (Date.now() - faultStarted) / 1000,
      });
      log(`${name}: ${findings.violations.length} violations`);
      // Every fault starts from two healthy nodes.
      for (const node of topology.nodes) {
        const processes = harness.nodes.get(node.name);
        if (
          !processes?.api ||
          processes.api.exitCode !== null ||
          processes.api.signalCode !== null ||
          !processes.worker ||
          processes.worker.exitCode !== null ||
          processes.worker.signalCode !== null
        ) {
          findings.notes.push(`${node.name} had to be restarted after the fault`);
          await stopNode(harness, node);
          await startNode(harness, node);
        }
      }
    }
  } finally {
    if (!interrupted) await cleanUp();
  }

  // Nothing left behind: no namespace, link or address of this run, no process that ran in one.
  const left = await topology.leftovers();
  // A process killed a moment ago may not be reaped yet: give them 15 s.
  const running = (pid: number) => {
    try {
      return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  const survivorsDeadline = Date.now() + 15_000;
  while (Date.now() < survivorsDeadline && [...seenPids].some(running)) await sleep(500);
  const survivors = [...seenPids].filter(running);
  rmSync(path.join(dataDir, 'minio'), { recursive: true, force: true });
  rmSync(path.join(dataDir, 'pg'), { recursive: true, force: true });

  const out = (text: string) => process.stdout.write(text);
  out(
    `\nOpenVox multi-node harness — ${new Date().toISOString()}, node ${process.version}, ${((Date.now() - started) / 1000).toFixed(0)} s in all, 2 nodes\n\n`,
  );
  out(
    '| fault | accepted | completed | failed | canceled | client ops (errors) | speech resumed from history / asked again | SSE reopened | checks | violations | wall time |\n',
  );
  out('|---|---|---|---|---|---|---|---|---|---|---|\n');
  for (const row of rows) {
    const errors = row.ops.filter((op) => !op.ok).length;
    const reopened = row.ops.filter((op) => op.note?.startsWith('sse reopened')).length;
    out(
      `| ${row.name} | ${row.accepted} | ${row.completed} | ${row.failed} | ${row.canceled} | ${row.ops.length} (${errors}) | ${row.resumed} / ${row.restarted} | ${reopened} | ${row.findings.checks} | ${row.findings.violations.length} | ${row.seconds.toFixed(0)} s |\n`,
    );
  }
  const report = findingsReport(rows, 10);
  out(report.text);
  out(
    `\nLeft behind: ${left.length ? left.join('; ') : 'no namespace, link or address'}; ${survivors.length ? `${survivors.length} processes still alive (${survivors.join(', ')})` : `none of the ${seenPids.size} processes that ran in the namespaces is alive`}.\n`,
  );
  const total = report.violations + left.length + survivors.length;
  out(`\n${total === 0 ? 'All invariants hold; nothing left behind.' : `${total} violations.`}\n`);
  return total === 0 ? 0 : 1;
}

main().then(
  (code) => (process.exitCode = code),
  (error) => {
    process.stderr.write(`multi-node harness failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(2);
  },
);
