import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { percentile as percentileOrNull } from '../audio/analysis';
import { createStorage } from '../lib/storage';
import { startIsolatedStack, type IsolatedStack, type StackAccount } from '../scripts/isolatedStack';
import { checkInvariants, expect, newFindings, runningWorkflows, waitQuiescent, type Findings } from './checks';
import {
  type Client,
  cloneCycle,
  deleteAccount,
  historyPage,
  makeCloneSample,
  type Op,
  registerWebhook,
  speech,
  synthesis,
} from './load';
import { heapDiffTable, samplingProfileTable } from './heapDiff';
import { allProcs, classifyWorkerChild, descendants, type GroupSample, type ProcInfo, sumGroup } from './procs';
import { startReceiver, type Receiver } from './receiver';
import { chaosStack, logger } from './stack';
import { sentences as textOf } from './texts';
import { linearTrend, type Point, type Tolerance, verdictOf } from './trend';

/**
 * The soak: a steady mixed load on an isolated stack for a set time, a sample
 * of every process and counter each minute, and at the end a verdict (linear
 * growth per hour of each series, with its 95 % interval) and the chaos
 * suite's invariants.
 *
 * Run: npm run soak -- --minutes 60 [--warmup 5] [--samples FILE] [--report FILE]
 *      npm run soak -- --analyse FILE   (the verdict of a samples file again)
 *      npm run soak -- --heap-diff BEFORE --heap-diff AFTER   (what grew between two heap snapshots)
 *      npm run soak -- --heap-profile FILE   (the live allocation sites of a sampling heap profile)
 */

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    warmup: { type: 'string', default: '5' },
    samples: { type: 'string' },
    report: { type: 'string' },
    analyse: { type: 'string' },
    'heap-diff': { type: 'string', multiple: true },
    'heap-profile': { type: 'string' },
  },
});
const MINUTES = Number(args.minutes);
const WARMUP_MINUTES = Number(args.warmup);
const log = logger('soak');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The voices exercised: Piper (neural), Festival HTS and diphone, Flite, eSpeak NG; every stored format. */
const VOICES = ['en-us-joe', 'en-us-slt', 'en-us-festival-kal', 'en-us-flite-rms', 'en-us-espeak-f'];
const FORMATS = ['wav', 'mp3', 'ogg', 'flac'];
const SPEECH = [
  { voice: 'en-us-joe', format: 'mp3', sse: false },
  { voice: 'alloy', format: 'wav', sse: false },
  { voice: 'en-us-joe', format: 'opus', sse: true },
  { voice: 'en-us-flite-rms', format: 'pcm', sse: false },
  { voice: 'en-us-slt', format: 'flac', sse: false },
];

/** How often each kind of operation starts (ms), and how many may run at once. */
const CADENCE = {
  synthesis: { everyMs: 5_000, maxInFlight: 6 },
  speech: { everyMs: 15_000, maxInFlight: 2 },
  history: { everyMs: 5_000, maxInFlight: 2 },
  clone: { everyMs: 180_000, maxInFlight: 1 },
  deletion: { everyMs: 300_000, maxInFlight: 1 },
};

interface ProcessSeries {
  api: GroupSample;
  /** Encoders the API runs for speech streams. */
  apiChildren: GroupSample;
  worker: GroupSample;
  piper: GroupSample;
  festival: GroupSample;
  /** espeak-ng, ffmpeg and the rest a worker runs. */
  workerOther: GroupSample;
  temporal: GroupSample;
  minio: GroupSample;
  postgres: GroupSample;
}

export interface Sample {
  at: string;
  minute: number;
  hours: number;
  load: [number, number, number];
  processes: ProcessSeries;
  pgConnections: number;
  openWorkflows: number;
  ops: Record<string, { n: number; errors: number; p50: number; p99: number }>;
  errors: number;
  errorKinds: Record<string, number>;
  /** Ticks skipped because that kind already had its maximum in flight (a backlog). */
  skipped: number;
  /** The V8 heap of the api's and the worker's main thread (chaos/heapProbe.ts), their latest probe. */
  heap?: { api?: HeapSample; worker?: HeapSample };
}

/** MiB: `process.memoryUsage()` as found and after a full GC, and /proc/<pid>/status's RssAnon and RssFile. */
export interface HeapSample {
  found: MemoryUsage;
  afterGc: MemoryUsage;
  gcMs: number;
  rssAnon: number;
  rssFile: number;
}
interface MemoryUsage {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** The heap probe's answers (chaos/heapProbe.ts), in order. */
type ProbeLine = Partial<HeapSample> & { pid: number; command: string; snapshot?: string; heapprofile?: string };
function readProbe(file: string): ProbeLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        return line ? [JSON.parse(line) as ProbeLine] : [];
      } catch {
        return []; // A line being written as it is read.
      }
    });
}

const EMPTY: GroupSample = { count: 0, rssMiB: 0, anonMiB: 0, fds: 0 };

function processSeries(stack: IsolatedStack): ProcessSeries {
  const procs = allProcs();
  const byPid = new Map(procs.map((info) => [info.pid, info]));
  const own = (pid: number | undefined) => (pid && byPid.get(pid) ? [byPid.get(pid)!] : []);
  const apiPid = stack.api()?.pid;
  const workerPids = stack.workers().map((worker) => worker.pid!);
  const workerChildren = workerPids.flatMap((pid) => descendants(pid, procs));
  const of = (kind: ReturnType<typeof classifyWorkerChild>) =>
    workerChildren.filter((info) => classifyWorkerChild(info) === kind);
  const temporal = procs.filter(
    (info) =>
      /\btemporal\b.*server start-dev/.test(info.cmdline) && info.cmdline.includes(`--port ${stack.ports.temporal} `),
  );
  const minio = procs.filter(
    (info) => /\bminio server\b/.test(info.cmdline) && info.cmdline.includes(`127.0.0.1:${stack.ports.minio} `),
  );
  return {
    api: sumGroup(own(apiPid)),
    apiChildren: apiPid ? sumGroup(descendants(apiPid, procs)) : EMPTY,
    worker: sumGroup(workerPids.flatMap(own)),
    piper: sumGroup(of('piper')),
    festival: sumGroup(of('festival')),
    workerOther: sumGroup(of('other')),
    temporal: sumGroup(temporal.flatMap((info) => [info, ...descendants(info.pid, procs)])),
    minio: sumGroup(minio),
    postgres: EMPTY,
  };
}

async function postgresBackends(
  stack: IsolatedStack,
  procs: ProcInfo[],
): Promise<{ count: number; group: GroupSample }> {
  const { rows } = (await stack.db.raw(
    'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
  )) as { rows: { pid: number }[] };
  const pids = new Set(rows.map((row) => row.pid));
  return { count: pids.size, group: sumGroup(procs.filter((info) => pids.has(info.pid))) };
}

async function openWorkflows(stack: IsolatedStack): Promise<number> {
  try {
    return (await stack.temporal.workflow.count('ExecutionStatus="Running"')).count;
  } catch {
    return (await runningWorkflows(stack)).size;
  }
}

function summarizeOps(ops: Op[]): Pick<Sample, 'ops' | 'errors' | 'errorKinds'> {
  const byKind = new Map<string, Op[]>();
  for (const op of ops) byKind.set(op.kind, [...(byKind.get(op.kind) ?? []), op]);
  const summary: Sample['ops'] = {};
  for (const [kind, list] of byKind) {
    const ok = list.filter((op) => op.ok).map((op) => op.ms);
    summary[kind] = {
      n: list.length,
      errors: list.length - ok.length,
      p50: percentile(ok, 0.5),
      p99: percentile(ok, 0.99),
    };
  }
  const errorKinds: Record<string, number> = {};
  for (const op of ops)
    if (!op.ok) errorKinds[`${op.kind}: ${op.error}`] = (errorKinds[`${op.kind}: ${op.error}`] ?? 0) + 1;
  return { ops: summary, errors: ops.filter((op) => !op.ok).length, errorKinds };
}

// ------------------------------------------------------------------ verdict

interface SeriesSpec {
  name: string;
  unit: string;
  value: (sample: Sample) => number;
  tolerance: Tolerance;
}

const MEMORY: Tolerance = { relative: 0.05, absolute: 5 };
const DESCRIPTORS: Tolerance = { relative: 0.05, absolute: 2 };
const COUNT: Tolerance = { relative: 0.05, absolute: 0.5 };
const LATENCY: Tolerance = { relative: 0.1, absolute: 50 };

function seriesSpecs(samples: Sample[]): SeriesSpec[] {
  const specs: SeriesSpec[] = [];
  const groups: (keyof ProcessSeries)[] = [
    'api',
    'apiChildren',
    'worker',
    'piper',
    'festival',
    'workerOther',
    'temporal',
    'minio',
    'postgres',
  ];
  for (const group of groups) {
    specs.push({ name: `${group} RSS`, unit: 'MiB', value: (s) => s.processes[group].rssMiB, tolerance: MEMORY });
    if (group === 'postgres')
      specs.push({
        name: `${group} RssAnon`,
        unit: 'MiB',
        value: (s) => s.processes[group].anonMiB,
        tolerance: MEMORY,
      });
    specs.push({
      name: `${group} open fds`,
      unit: 'fds',
      value: (s) => s.processes[group].fds,
      tolerance: DESCRIPTORS,
    });
    if (!['api', 'worker', 'minio'].includes(group))
      specs.push({
        name: `${group} processes`,
        unit: 'procs',
        value: (s) => s.processes[group].count,
        tolerance: COUNT,
      });
  }
  // The V8 heap after a full GC (what is retained), buffers outside it, and native memory against mapped files.
  for (const role of ['api', 'worker'] as const) {
    if (!samples.some((s) => s.heap?.[role])) continue;
    const heap = (pick: (h: HeapSample) => number) => (s: Sample) => (s.heap?.[role] ? pick(s.heap[role]!) : NaN);
    const memory = (name: string, value: (h: HeapSample) => number) =>
      specs.push({ name: `${role} ${name}`, unit: 'MiB', value: heap(value), tolerance: MEMORY });
    memory('heapUsed after GC', (h) => h.afterGc.heapUsed);
    memory('heapTotal', (h) => h.afterGc.heapTotal);
    memory('external after GC', (h) => h.afterGc.external);
    memory('arrayBuffers after GC', (h) => h.afterGc.arrayBuffers);
    memory('RssAnon', (h) => h.rssAnon);
    memory('RssFile', (h) => h.rssFile);
  }
  specs.push({ name: 'PostgreSQL connections', unit: 'conns', value: (s) => s.pgConnections, tolerance: COUNT });
  specs.push({ name: 'Temporal open workflows', unit: 'wfs', value: (s) => s.openWorkflows, tolerance: COUNT });
  const kinds = [...new Set(samples.flatMap((s) => Object.keys(s.ops)))].sort();
  for (const kind of kinds) {
    specs.push({ name: `${kind} p50`, unit: 'ms', value: (s) => s.ops[kind]?.p50 ?? NaN, tolerance: LATENCY });
    specs.push({ name: `${kind} p99`, unit: 'ms', value: (s) => s.ops[kind]?.p99 ?? NaN, tolerance: LATENCY });
  }
  specs.push({ name: 'errors per minute', unit: 'errors', value: (s) => s.errors, tolerance: COUNT });
  specs.push({
    name: 'load average (1 min)',
    unit: '',
    value: (s) => s.load[0],
    tolerance: { relative: 0.1, absolute: 0.5 },
  });
  return specs;
}

/** NaN rather than null for no values: a missing point in a series. */
const percentile = (values: number[], q: number) => percentileOrNull(values, q) ?? NaN;
const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');

/** The verdict table (markdown) of the samples after the warm-up; returns it and the series that grow. */
export function verdictTable(samples: Sample[], warmupMinutes: number): { table: string; growing: string[] } {
  const kept = samples.filter((sample) => sample.minute >= warmupMinutes);
  const rows = [
    '| series | mean | slope per hour | 95 % interval | R² | verdict | second half: slope, 95 % interval |',
    '|---|---|---|---|---|---|---|',
  ];
  const growing: string[] = [];
  const secondHalf = kept.slice(Math.floor(kept.length / 2));
  for (const spec of seriesSpecs(kept)) {
    const pointsOf = (list: Sample[]): Point[] =>
      list.map((sample) => ({ hours: sample.hours, value: spec.value(sample) }));
    const trend = linearTrend(pointsOf(kept));
    const verdict = verdictOf(trend, spec.tolerance);
    // A cache that fills and then stays is steep in the first half only; a leak keeps its slope.
    const late = linearTrend(pointsOf(secondHalf));
    if (verdict === 'grows' && spec.name !== 'load average (1 min)') growing.push(spec.name);
    const unit = spec.unit ? ` ${spec.unit}` : '';
    const lateCell = late ? `${fixed(late.slope, 2)} (${fixed(late.low, 2)} … ${fixed(late.high, 2)})` : '–';
    rows.push(
      trend
        ? `| ${spec.name} | ${fixed(trend.mean)}${unit} | ${fixed(trend.slope, 2)}${unit}/h | ${fixed(trend.low, 2)} … ${fixed(trend.high, 2)} | ${fixed(trend.r2, 2)} | ${verdict} | ${lateCell} |`
        : `| ${spec.name} | – | – | – | – | ${verdict} | – |`,
    );
  }
  return { table: rows.join('\n'), growing };
}

function analyse(file: string, warmupMinutes: number): string {
  const samples = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Sample);
  const { table, growing } = verdictTable(samples, warmupMinutes);
  const loads = samples.map((sample) => sample.load[0]);
  return [
    `${samples.length} samples, ${samples.length ? fixed(samples[samples.length - 1].hours * 60, 0) : 0} minutes; the first ${warmupMinutes} left out of the fit (warm-up).`,
    `Machine load (1 min) ${fixed(Math.min(...loads))}-${fixed(Math.max(...loads))}, median ${fixed(percentile(loads, 0.5))}.`,
    '',
    table,
    '',
    growing.length ? `Growing beyond noise: ${growing.join(', ')}.` : 'No series grows beyond noise.',
  ].join('\n');
}

// --------------------------------------------------------------------- run

async function soak(): Promise<number> {
  const started = Date.now();
  const endAt = started + MINUTES * 60_000;
  log(`soak of ${MINUTES} min: starting the isolated stack`);
  const stack = await startIsolatedStack(
    chaosStack('soak', {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      API_METRICS_PORT: '0',
      WORKER_METRICS_PORT: '0',
    }),
  );
  const samplesFile = args.samples ?? path.join(stack.logDir, 'soak-samples.jsonl');
  writeFileSync(samplesFile, '');
  // The heap probe in the api and the worker, driven by SIGUSR2; what it writes stays in the log directory (/tmp).
  const heapDir = path.join(stack.logDir, 'heap');
  mkdirSync(heapDir, { recursive: true });
  const probeFile = path.join(heapDir, 'probe.jsonl');
  const probed = {
    nodeArgs: ['--expose-gc', '--require', path.join(__dirname, 'heapProbe.js')],
    extraEnv: { HEAP_PROBE_DIR: heapDir },
  };
  /** Runs a probe command in the api and the worker; their answers by pid once both answered (or at the limit). */
  const probe = async (command: string, limitMs: number) => {
    const pids = [stack.api()?.pid, ...stack.workers().map((worker) => worker.pid)].filter(
      (pid): pid is number => !!pid,
    );
    const seen = readProbe(probeFile).length;
    for (const pid of pids) {
      if (command !== 'sample') writeFileSync(path.join(heapDir, `${pid}.command`), command);
      process.kill(pid, 'SIGUSR2');
    }
    const deadline = Date.now() + limitMs;
    const answers = new Map<number, ProbeLine>();
    while (answers.size < pids.length && Date.now() < deadline) {
      await sleep(200);
      for (const line of readProbe(probeFile).slice(seen)) if (line.command === command) answers.set(line.pid, line);
    }
    if (command !== 'sample')
      log(
        `heap probe ${command}: ${[...answers.values()].map((line) => line.snapshot ?? line.heapprofile ?? JSON.stringify(line)).join(', ')}`,
      );
    return answers;
  };
  let receiver: Receiver | undefined;
  const findings: Findings = newFindings();
  const ops: Op[] = [];
  let skipped = 0;
  try {
    await stack.startWorkers(1, probed);
    await stack.startApi(probed);
    log(`stack up (logs in ${stack.logDir}); samples in ${samplesFile}`);
    const hooks = await startReceiver();
    receiver = hooks;
    const before = await runningWorkflows(stack);
    const accounts = await stack.createAccounts(4, { credits: 50_000_000, plan: 'pro' });
    const clients: (Client & { account: StackAccount })[] = accounts.map((account) => ({
      account,
      token: account.token,
      baseUrl: () => stack.apiUrl,
    }));
    for (const [index, client] of clients.entries()) {
      const name = `main-${index}`;
      receiver.secretFor(name, await registerWebhook(client, `${receiver.url}/${name}`));
    }
    const accepted = new Set<string>();
    const deleted: StackAccount[] = [];
    const sample = await makeCloneSample();
    const password = `soak_${process.pid} password`;

    const inFlight: Record<string, number> = {};
    const running = new Set<Promise<unknown>>();
    let tick = 0;
    const every = (kind: keyof typeof CADENCE, work: (n: number) => Promise<Op[]>) => {
      const { everyMs, maxInFlight } = CADENCE[kind];
      let n = 0;
      const loop = async () => {
        while (Date.now() < endAt) {
          if ((inFlight[kind] ?? 0) >= maxInFlight) skipped += 1;
          else {
            inFlight[kind] = (inFlight[kind] ?? 0) + 1;
            const count = n++;
            const job = work(count)
              .then((done) => ops.push(...done))
              .catch((error) =>
                ops.push({
                  kind,
                  ok: false,
                  ms: 0,
                  endedAt: Date.now(),
                  error: `threw: ${error instanceof Error ? error.message : String(error)}`,
                }),
              )
              .finally(() => {
                inFlight[kind] -= 1;
                running.delete(job);
              });
            running.add(job);
          }
          await sleep(Math.min(everyMs, Math.max(0, endAt - Date.now())));
        }
      };
      return loop();
    };

    const loops = [
      every('synthesis', async (n) => {
        const client = clients[n % clients.length];
        return [
          await synthesis(
            client,
            {
              text: textOf(1 + (n % 3), n),
              voice: VOICES[n % VOICES.length],
              format: FORMATS[Math.floor(n / VOICES.length) % FORMATS.length],
              sse: n % 2 === 0,
              timeoutMs: 300_000,
            },
            (id) => accepted.add(id),
          ),
        ];
      }),
      every('speech', async (n) => {
        const { voice, format, sse } = SPEECH[n % SPEECH.length];
        const op = await speech(clients[n % clients.length], textOf(2, n), voice, format, sse);
        if (op.id) accepted.add(op.id);
        return [op];
      }),
      every('history', async (n) => [await historyPage(clients[n % clients.length], 1 + (n % 3))]),
      every('clone', async (n) => {
        const done = await cloneCycle(clients[n % clients.length], sample, textOf(1, n), 300_000);
        for (const op of done) if (op.kind === 'synthesis' && op.id) accepted.add(op.id);
        return done;
      }),
      every('deletion', async (n) => {
        const [account] = await stack.createAccounts(1, { credits: 100_000, plan: 'pro' });
        const client: Client = { token: account.token, baseUrl: () => stack.apiUrl };
        const name = `doomed-${n}`;
        receiver!.secretFor(name, await registerWebhook(client, `${receiver!.url}/${name}`));
        const first = await synthesis(client, {
          text: textOf(1, n),
          voice: 'en-us-joe',
          format: 'mp3',
          sse: true,
          timeoutMs: 120_000,
        });
        // A second one still running when the account goes: the erasure cancels it.
        void synthesis(client, {
          text: textOf(3, n),
          voice: 'en-us-slt',
          format: 'wav',
          sse: false,
          timeoutMs: 20_000,
        });
        await sleep(1_500);
        const deletion = await deleteAccount(client, password);
        const erasedFrom = Date.now();
        let gone = false;
        while (!gone && Date.now() - erasedFrom < 180_000) {
          await sleep(1_000);
          gone = !(await stack.db('accounts').where({ id: account.id }).first('id'));
        }
        deleted.push(account);
        return [
          first,
          deletion,
          {
            kind: 'erasure',
            ok: gone,
            ms: Date.now() - erasedFrom,
            endedAt: Date.now(),
            error: gone ? undefined : 'account still there after 180 s',
          },
        ];
      }),
    ];

    const sampler = (async () => {
      let sent = 0;
      for (let minute = 0; minute <= MINUTES; minute++) {
        const due = started + minute * 60_000;
        await sleep(Math.max(0, due - Date.now()));
        const processes = processSeries(stack);
        const backends = await postgresBackends(stack, allProcs()).catch(() => ({ count: NaN, group: EMPTY }));
        processes.postgres = backends.group;
        const window = ops.slice(sent);
        sent = ops.length;
        // After /proc's figures: the probe's full GC changes them.
        const heap = await probe('sample', 30_000).catch(() => new Map<number, ProbeLine>());
        const heapOf = (pid: number | undefined) => (pid ? (heap.get(pid) as HeapSample | undefined) : undefined);
        const record: Sample = {
          at: new Date().toISOString(),
          minute,
          hours: (Date.now() - started) / 3_600_000,
          load: loadavg() as [number, number, number],
          processes,
          pgConnections: backends.count,
          openWorkflows: await openWorkflows(stack).catch(() => NaN),
          ...summarizeOps(window),
          skipped,
          heap: { api: heapOf(stack.api()?.pid), worker: heapOf(stack.workers()[0]?.pid) },
        };
        skipped = 0;
        appendFileSync(samplesFile, `${JSON.stringify(record)}\n`);
        tick += 1;
        // What is allocated from the end of the warm-up on and still alive at the end, by allocation stack.
        if (minute === Math.min(WARMUP_MINUTES, MINUTES)) await probe('start-sampling', 30_000);
        log(
          `minute ${minute}: load ${fixed(record.load[0], 2)}, api ${fixed(processes.api.rssMiB, 0)} MiB/${processes.api.fds} fds (heap ${fixed(record.heap?.api?.afterGc.heapUsed ?? NaN, 0)}), worker ${fixed(processes.worker.rssMiB, 0)} MiB/${processes.worker.fds} fds (heap ${fixed(record.heap?.worker?.afterGc.heapUsed ?? NaN, 0)}), piper ${processes.piper.count}, festival ${processes.festival.count}, pg ${record.pgConnections}, wfs ${record.openWorkflows}, ops ${window.length} (${record.errors} errors)`,
        );
      }
    })();
    await Promise.all([...loops, sampler]);
    // Heap snapshots once the series are done: one costs seconds and leaves RSS a few hundred MiB higher.
    await probe('sampling-profile', 300_000);
    await probe('snapshot', 300_000);
    log(`load over after ${tick} samples; waiting for ${running.size} operations in flight`);
    await Promise.all([...running]);

    // Invariants as in the chaos suite, over the accounts that still exist; the erased ones must be gone whole.
    const accountIds = accounts.map((account) => account.id);
    const quiet = await waitQuiescent(stack, accountIds, before, 300_000, async () => undefined);
    await probe('snapshot', 300_000);
    expect(findings, quiet !== null, 'not quiescent', () => 'not quiescent within 300 s after the load');
    const tally = await checkInvariants(
      stack,
      { accountIds, accepted: new Set([...accepted].filter(Boolean)), reportedKeys: new Set() },
      findings,
    );
    findings.notes.push(
      `${accepted.size} accepted syntheses of the remaining accounts and the erased ones: ${tally.completed} completed, ${tally.failed} failed, ${tally.canceled} canceled in the remaining accounts`,
    );
    const storage = createStorage(stack.config);
    for (const account of deleted) {
      const rows = await stack.db('syntheses').where({ account_id: account.id }).count<{ n: string }[]>({ n: '*' });
      expect(
        findings,
        Number(rows[0].n) === 0,
        'erased account left syntheses',
        () => `account ${account.id}: ${rows[0].n} syntheses after erasure`,
      );
      const objects = await storage.list(`syntheses/${account.id}/`);
      expect(
        findings,
        objects.length === 0,
        'erased account left objects',
        () => `account ${account.id}: ${objects.length} objects after erasure`,
      );
      const reserved = await stack
        .db('credit_ledger')
        .where({ account_id: account.id })
        .count<{ n: string }[]>({ n: '*' });
      expect(
        findings,
        Number(reserved[0].n) === 0,
        'erased account left ledger rows with its id',
        () => `account ${account.id}: ${reserved[0].n} ledger rows still name it`,
      );
    }
    // Webhooks: every completed synthesis of the remaining accounts announced once at the receiver, signatures valid.
    const deliveriesDeadline = Date.now() + 180_000;
    let pending = Infinity;
    while (pending > 0 && Date.now() < deliveriesDeadline) {
      pending = Number(
        (await stack.db('webhook_deliveries').where({ status: 'pending' }).count<{ n: string }[]>({ n: '*' }))[0].n,
      );
      if (pending > 0) await sleep(2_000);
    }
    expect(
      findings,
      pending === 0,
      'webhook deliveries still pending',
      () => `${pending} deliveries still pending 180 s after the load`,
    );
    const completed = await stack
      .db('syntheses')
      .whereIn('account_id', accountIds)
      .where({ status: 'completed' })
      .pluck('id');
    const announced = new Set(
      [...hooks.events.values()]
        .filter((event) => event.type === 'synthesis.completed')
        .map((event) => event.resourceId),
    );
    const missing = completed.filter((id: string) => !announced.has(id));
    expect(
      findings,
      missing.length === 0,
      'completed synthesis not announced',
      () =>
        `${missing.length} of ${completed.length} completed syntheses never reached the receiver (e.g. ${missing.slice(0, 3).join(', ')})`,
    );
    expect(
      findings,
      hooks.badSignatures === 0,
      'webhook signature did not verify',
      () => `${hooks.badSignatures} deliveries failed verification`,
    );
    findings.notes.push(
      `webhooks: ${hooks.events.size} events (${hooks.requests} requests) received; ${completed.length} completed syntheses in the remaining accounts, ${deleted.length} accounts erased`,
    );
  } finally {
    await receiver?.close();
    await stack.close();
  }

  const out: string[] = [];
  const opsByKind = new Map<string, Op[]>();
  for (const op of ops) opsByKind.set(op.kind, [...(opsByKind.get(op.kind) ?? []), op]);
  out.push(`# OpenVox soak — ${new Date(started).toISOString()}, ${MINUTES} min, node ${process.version}`, '');
  out.push('| operation | count | errors | p50 ms | p99 ms |', '|---|---|---|---|---|');
  for (const [kind, list] of [...opsByKind].sort()) {
    const ok = list.filter((op) => op.ok).map((op) => op.ms);
    out.push(
      `| ${kind} | ${list.length} | ${list.length - ok.length} | ${fixed(percentile(ok, 0.5), 0)} | ${fixed(percentile(ok, 0.99), 0)} |`,
    );
  }
  const errorKinds = new Map<string, number>();
  for (const op of ops)
    if (!op.ok) errorKinds.set(`${op.kind}: ${op.error}`, (errorKinds.get(`${op.kind}: ${op.error}`) ?? 0) + 1);
  if (errorKinds.size) out.push('', `Errors: ${[...errorKinds].map(([kind, n]) => `${n} × ${kind}`).join('; ')}`);
  const reopened = ops.filter((op) => op.note?.startsWith('sse reopened')).length;
  out.push('', `SSE followers whose stream had to be reopened: ${reopened}.`, '');
  out.push(analyse(samplesFile, WARMUP_MINUTES), '');
  out.push(`Invariants: ${findings.checks} checks, ${findings.violations.length} violations.`);
  for (const violation of findings.violations.slice(0, 20))
    out.push(`- VIOLATION ${violation.check}: ${violation.detail}`);
  for (const note of findings.notes) out.push(`- note: ${note}`);
  const report = `${out.join('\n')}\n`;
  process.stdout.write(report);
  if (args.report) writeFileSync(args.report, report);
  return findings.violations.length ? 1 : 0;
}

if (args['heap-diff']) {
  const [before, after] = args['heap-diff'];
  if (!after) throw new Error('--heap-diff takes two snapshots: --heap-diff BEFORE --heap-diff AFTER');
  process.stdout.write(`${heapDiffTable(before, after)}\n`);
} else if (args['heap-profile']) {
  process.stdout.write(`${samplingProfileTable(args['heap-profile'])}\n`);
} else if (args.analyse) {
  process.stdout.write(`${analyse(args.analyse, WARMUP_MINUTES)}\n`);
} else {
  soak().then(
    (code) => (process.exitCode = code),
    (error) => {
      process.stderr.write(`soak failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(2);
    },
  );
}
