import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bookMarkdown } from '../chaos/texts';
import { allStats, type ProcStat } from '../chaos/procs';
import { createPiperEngine } from '../engines/piper';
import { splitText } from '../engines/text';
import { mapLimit } from '../lib/concurrency';
import { defaultModelsDir } from '../lib/config';
import { type IsolatedStack, startIsolatedStack, type StackAccount } from '../scripts/isolatedStack';
import { CHUNK_CHARS } from '../synthesis/speechPlan';
import { currentRssMiB, summarizeProfile } from './processes';
import { exitWhenDone, table } from './report';
import { EVERYDAY_SENTENCES, TRAIN_SENTENCES } from './texts';

/**
 * A Studio conversion against the engine alone, in one run on this machine:
 * a 10-chapter Markdown book of BENCH_STUDIO_CHARS characters (default
 * 50,000) read by en-us-joe, converted through the API on an isolated stack
 * (compiled api and worker, as deployed) once per STUDIO_MAX_PARALLEL_BLOCKS
 * value (BENCH_STUDIO_PARALLEL, default "1,2"; each on an account of its own,
 * so nothing is reused), and the same blocks rendered by the Piper engine
 * directly in this process (engines/piper: its kept hosts, one thread each),
 * two at a time, the machine's cores, and once serially on two threads.
 * Figures, each against its same-run baseline:
 *
 * - the conversion's wall time (POST convert/ to `completed`) ÷ the engine's,
 *   two blocks at a time (above), and ÷ the engine's serial time on both
 *   cores (one host with two threads, the blocks one after another);
 * - CPU outside the engine (api, worker, its ffmpeg and other children,
 *   Temporal, PostgreSQL, MinIO) ÷ the engine's CPU (the worker's Piper hosts
 *   and espeak-ng), both over the conversion, from /proc sampled every 500 ms
 *   per process (an engine host replaced meanwhile counts up to its last sample);
 * - p50 of one-sentence `POST /v1/audio/speech` requests from another
 *   account during the conversion (one at a time, 3 s apart) ÷ the same
 *   with the stack idle, measured just before (the probes' CPU, measured
 *   per request while idle, is taken off the conversion's);
 * - the worker's RSS (Node process alone, and with its engine hosts) when
 *   chapter 1 and chapter 10 are converted.
 *
 * Run: npm run bench:studio   (BENCH_STUDIO_CHARS=10000 for a quick run;
 * BENCH_STUDIO_PROFILE=1 adds the worker's CPU profile, `node --cpu-prof`, over the whole run)
 */

const CHARACTERS = Number(process.env.BENCH_STUDIO_CHARS ?? 50_000);
const PARALLEL = (process.env.BENCH_STUDIO_PARALLEL ?? '1,2').split(',').map(Number);
const PROFILE = process.env.BENCH_STUDIO_PROFILE === '1';
const CHAPTERS = 10;
/** Paragraphs of about this many characters: two 400-character chunks for most, as in a printed book. */
const PARAGRAPH = 600;
const VOICE = 'en-us-joe';
const MODEL = 'en_US-joe-medium';
const SENTENCE = EVERYDAY_SENTENCES[0];
const IDLE_PROBES = 10;
/** Between two probes: a sentence every few seconds, a light load beside the book. */
const PROBE_GAP_MS = 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const fmt = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const ratio = (a: number, b: number) => `${fmt(a / b, 2)}×`;

/**
 * CPU seconds per group over a window, from per-process samples: a process
 * seen at the start counts from there, one born later from zero, each up to
 * its last sample. `spawned` is what the worker's children that exited
 * (ffmpeg and the like) used after their last sample, or unsampled.
 */
class CpuWindow {
  private seen = new Map<number, { group: string; first: number; last: number; ppid: number }>();
  private workerChildren = new Map<number, { first: number; last: number }>();
  private timer: NodeJS.Timeout;

  constructor(
    private classify: (stat: ProcStat) => string | null,
    private workerPids: () => Set<number | undefined>,
  ) {
    this.sample(true);
    this.timer = setInterval(() => this.sample(false), 500);
  }

  private sample(start: boolean) {
    for (const stat of allStats()) {
      const group = this.classify(stat);
      if (!group) continue;
      const entry = this.seen.get(stat.pid);
      if (entry) entry.last = stat.cpuOwn;
      else this.seen.set(stat.pid, { group, first: start ? stat.cpuOwn : 0, last: stat.cpuOwn, ppid: stat.ppid });
      if (group === 'worker') {
        const children = this.workerChildren.get(stat.pid);
        if (children) children.last = stat.cpuChildren;
        else this.workerChildren.set(stat.pid, { first: stat.cpuChildren, last: stat.cpuChildren });
      }
    }
  }

  stop(): Map<string, number> {
    clearInterval(this.timer);
    this.sample(false);
    const alive = new Set(allStats().map((stat) => stat.pid));
    const totals = new Map<string, number>();
    const add = (group: string, seconds: number) => totals.set(group, (totals.get(group) ?? 0) + seconds);
    // A child of the worker that exited is in the worker's children's CPU whole: what it had at its
    // last sample is counted in its own group (from its first sample on), the rest is `spawned`.
    let exited = 0;
    for (const [pid, entry] of this.seen) {
      add(entry.group, entry.last - entry.first);
      if (!alive.has(pid) && this.workerPids().has(entry.ppid)) exited += entry.last;
    }
    let spawned = 0;
    for (const children of this.workerChildren.values()) spawned += children.last - children.first;
    add('spawned', Math.max(0, spawned - exited));
    return totals;
  }
}

/** The stack's processes: the worker's engine (Piper hosts, espeak-ng) apart from everything else. */
function stackClassifier(stack: IsolatedStack) {
  const workerPids = () => new Set(stack.workers().map((child) => child.pid));
  const database = stack.config.DATABASE_URL.replace(/.*\//, '');
  const classify = (stat: ProcStat): string | null => {
    const workers = workerPids();
    if (workers.has(stat.pid)) return 'worker';
    if (workers.has(stat.ppid) && (stat.cmdline.includes(path.join('piper', 'host')) || stat.comm === 'espeak-ng'))
      return 'engine';
    if (workers.has(stat.ppid)) return 'worker children';
    if (stat.pid === stack.api()?.pid) return 'api';
    if (stat.comm === 'temporal' && stat.cmdline.includes(`--port ${stack.ports.temporal} `)) return 'temporal';
    if (stat.cmdline.startsWith('postgres:') && stat.cmdline.includes(` ${database} `)) return 'postgres';
    if (stat.comm === 'minio' && stat.cmdline.includes(`127.0.0.1:${stack.ports.minio} `)) return 'minio';
    return null;
  };
  return { classify, workerPids };
}

/** The worker's RSS, alone and with its engine hosts, MiB. */
function workerRss(stack: IsolatedStack): { node: number; withHosts: number } {
  const pid = stack.workers()[0]?.pid;
  const node = currentRssMiB(pid);
  const hosts = allStats()
    .filter((stat) => stat.ppid === pid && stat.cmdline.includes(path.join('piper', 'host')))
    .reduce((sum, stat) => sum + currentRssMiB(stat.pid), 0);
  return { node, withHosts: node + hosts };
}

/**
 * The engine alone: every block's chunks (as renderBlock cuts them), either
 * two blocks at a time with one thread per host (`lanes` 2: the most the
 * cores give), or one after another in one host with two threads (`lanes`
 * 1: the engine's own serial time on both cores).
 */
async function engineBaseline(texts: string[], lanes: 1 | 2): Promise<{ wall: number; cpu: number }> {
  const modelsDir = process.env.MODELS_DIR ?? defaultModelsDir();
  const engine = createPiperEngine({ modelsDir, maxHosts: lanes, loneThreads: lanes === 2 ? 1 : 2 });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-bench-studio-'));
  const children = () => allStats().filter((stat) => stat.ppid === process.pid);
  try {
    // Warm both hosts: a session load is once per process, not per book.
    await Promise.all(
      Array.from({ length: lanes }, (_, index) =>
        engine.synthesize({ text: SENTENCE, voice: MODEL, outPath: path.join(dir, `warm-${index}.wav`) }),
      ),
    );
    const ownBefore = process.cpuUsage();
    const before = new Map(children().map((stat) => [stat.pid, stat.cpuOwn]));
    const last = new Map<number, number>();
    const timer = setInterval(() => children().forEach((stat) => last.set(stat.pid, stat.cpuOwn)), 500);
    const started = performance.now();
    let index = 0;
    await mapLimit(texts, lanes, async (text) => {
      for (const chunk of splitText(text, CHUNK_CHARS))
        await engine.synthesize({ text: chunk, voice: MODEL, outPath: path.join(dir, `${index++ % 8}.wav`) });
    });
    const wall = (performance.now() - started) / 1000;
    clearInterval(timer);
    children().forEach((stat) => last.set(stat.pid, stat.cpuOwn));
    const own = process.cpuUsage(ownBefore);
    let cpu = (own.user + own.system) / 1e6;
    for (const [pid, seconds] of last) cpu += seconds - (before.get(pid) ?? 0);
    return { wall, cpu };
  } finally {
    engine.pool.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** One sentence through the OpenAI-compatible endpoint, to the last byte, ms. */
async function sentenceMs(stack: IsolatedStack, account: StackAccount): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${stack.apiUrl}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${account.token}` },
    body: JSON.stringify({ model: 'tts-1', voice: VOICE, input: SENTENCE, response_format: 'wav' }),
  });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`speech answered ${response.status}`);
  return performance.now() - started;
}

interface Conversion {
  parallel: number;
  wall: number;
  /** CPU seconds per group over the conversion: `measured` with the probes in it, `cpu` without (see convert). */
  cpu: Map<string, number>;
  measured: Map<string, number>;
  idleP50: number;
  busyP50: number;
  probes: number;
  failedProbes: number;
  rss: { at1: { node: number; withHosts: number }; at10: { node: number; withHosts: number } };
  characters: number;
  blocks: number;
}

async function convert(stack: IsolatedStack, markdown: string, parallel: number): Promise<Conversion> {
  await stack.startApi({ extraEnv: { STUDIO_MAX_PARALLEL_BLOCKS: String(parallel) } });
  const [owner, other] = await stack.createAccounts(2, { credits: 10_000_000, plan: 'pro' });
  const api = async (method: string, url: string, body?: unknown) => {
    const response = await fetch(`${stack.apiUrl}/api/v1/projects/${url}`, {
      method,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${owner.token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const projectId = (await api('POST', '', { name: `Bench book ${parallel}` })).id as string;
  await api('PATCH', `${projectId}/`, { default_voice_id: VOICE });
  await api('POST', `${projectId}/content/`, { format: 'markdown', text: markdown });

  // The idle baseline, just before: warm first (the other account's first request loads a host).
  // Its CPU per request is what the probes during the conversion add, taken off the conversion's.
  await sentenceMs(stack, other);
  const { classify, workerPids } = stackClassifier(stack);
  const idleWindow = new CpuWindow(classify, workerPids);
  const idle: number[] = [];
  for (let i = 0; i < IDLE_PROBES; i++) {
    idle.push(await sentenceMs(stack, other));
    await sleep(PROBE_GAP_MS);
  }
  const perProbe = idleWindow.stop();

  const window = new CpuWindow(classify, workerPids);
  const started = performance.now();
  const snapshotId = (await api('POST', `${projectId}/convert/`, {})).id as string;
  let done = false;
  const busy: number[] = [];
  let failedProbes = 0;
  const probing = (async () => {
    while (!done) {
      // A failed probe (the shared PostgreSQL restarting, say) is counted, not fatal to the run.
      await sentenceMs(stack, other).then(
        (ms) => busy.push(ms),
        () => (failedProbes += 1),
      );
      await sleep(PROBE_GAP_MS);
    }
  })();
  const rss: Conversion['rss'] = { at1: { node: NaN, withHosts: NaN }, at10: { node: NaN, withHosts: NaN } };
  let row: {
    status: string;
    chapters: unknown[];
    characters_rendered: number;
    blocks_rendered: number;
    error: unknown;
  };
  for (;;) {
    row = await stack.db('project_snapshots').where({ id: snapshotId }).first();
    if (row.chapters.length >= 1 && Number.isNaN(rss.at1.node)) rss.at1 = workerRss(stack);
    if (row.chapters.length >= CHAPTERS && Number.isNaN(rss.at10.node)) rss.at10 = workerRss(stack);
    if (!['queued', 'converting'].includes(row.status)) break;
    await sleep(250);
  }
  const wall = (performance.now() - started) / 1000;
  const measured = window.stop();
  done = true;
  await probing;
  const cpu = new Map(
    [...measured].map(([name, seconds]) => [
      name,
      Math.max(0, seconds - (busy.length * (perProbe.get(name) ?? 0)) / IDLE_PROBES),
    ]),
  );
  if (row.status !== 'completed') throw new Error(`conversion ${row.status}: ${JSON.stringify(row.error)}`);
  return {
    parallel,
    wall,
    cpu,
    measured,
    idleP50: median(idle),
    busyP50: median(busy),
    probes: busy.length,
    failedProbes,
    rss,
    characters: row.characters_rendered,
    blocks: row.blocks_rendered,
  };
}

async function main() {
  const { markdown } = bookMarkdown(CHAPTERS, CHARACTERS / CHAPTERS, PARAGRAPH, TRAIN_SENTENCES);
  process.env.WORKER_METRICS_PORT ??= '0';
  const stack = await startIsolatedStack({
    name: `studio_${process.pid}`,
    childOutput: 'log',
    env: { VOICE_PREVIEWS: 'false' },
  });
  const conversions: Conversion[] = [];
  let baselines: { wall: number; cpu: number }[] = [];
  let texts: string[] = [];
  try {
    await stack.startWorkers(1, PROFILE ? { profileAs: 'worker' } : {});
    for (const parallel of PARALLEL) {
      process.stderr.write(`[studio] conversion, STUDIO_MAX_PARALLEL_BLOCKS=${parallel}\n`);
      conversions.push(await convert(stack, markdown, parallel));
      if (texts.length === 0)
        texts = (
          await stack
            .db('project_blocks')
            .join('project_chapters', 'project_chapters.id', 'project_blocks.chapter_id')
            .join('projects', 'projects.id', 'project_chapters.project_id')
            .where('projects.name', `Bench book ${parallel}`)
            .orderBy(['project_chapters.index', 'project_blocks.index'])
            .select('project_blocks.text')
        ).map((block: { text: string }) => block.text);
    }
    // The profile is written as the worker exits.
    if (PROFILE) await stack.stopWorkers();
  } finally {
    await stack.close();
  }
  const profileDir = path.join(stack.dataDir, 'profiles', 'worker');
  const profiles = PROFILE && existsSync(profileDir) ? readdirSync(profileDir) : [];
  // The engine after the stack is gone: the same blocks, on a machine with nothing else of ours running.
  // Twice (before and after would straddle the stack's start-up): the mean is the baseline.
  for (let run = 0; run < 2; run++) {
    process.stderr.write(`[studio] the engine alone, run ${run + 1}\n`);
    baselines.push(await engineBaseline(texts, 2));
  }
  process.stderr.write(`[studio] the engine alone, serial on two threads\n`);
  const serial = await engineBaseline(texts, 1);
  baselines = baselines.filter((baseline) => Number.isFinite(baseline.wall));
  const engineWall = baselines.reduce((sum, one) => sum + one.wall, 0) / baselines.length;
  const engineCpu = baselines.reduce((sum, one) => sum + one.cpu, 0) / baselines.length;

  const out = (text: string) => process.stdout.write(text);
  const first = conversions[0];
  out(
    `\nStudio conversion against the engine — ${new Date().toISOString()}, node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}\n` +
      `${CHAPTERS} chapters, ${first.blocks} blocks, ${first.characters} characters, ${VOICE}; the engine alone: ${baselines.map((one) => `${fmt(one.wall, 1)} s`).join(', ')} wall, ${fmt(engineCpu, 1)} CPU s\n\n`,
  );
  const rows: string[][] = [];
  for (const run of conversions) {
    const engine = run.cpu.get('engine') ?? 0;
    const outside = [...run.cpu].filter(([name]) => name !== 'engine').reduce((sum, [, seconds]) => sum + seconds, 0);
    const p = `parallel ${run.parallel}`;
    rows.push([
      `${p}: conversion wall ÷ engine alone (2 at a time)`,
      `${fmt(run.wall, 1)} s`,
      `${fmt(engineWall, 1)} s`,
      ratio(run.wall, engineWall),
    ]);
    rows.push([
      `${p}: conversion wall ÷ engine alone (serial, two threads)`,
      `${fmt(run.wall, 1)} s`,
      `${fmt(serial.wall, 1)} s`,
      ratio(run.wall, serial.wall),
    ]);
    rows.push([
      `${p}: CPU outside the engine ÷ the engine's`,
      `${fmt(outside, 1)} s`,
      `${fmt(engine, 1)} s`,
      ratio(outside, engine),
    ]);
    rows.push([
      `${p}: the engine's CPU in the conversion ÷ alone`,
      `${fmt(engine, 1)} s`,
      `${fmt(engineCpu, 1)} s`,
      ratio(engine, engineCpu),
    ]);
    rows.push([
      `${p}: one sentence p50 during ÷ idle (${run.probes} during${run.failedProbes ? `, ${run.failedProbes} failed` : ''}, ${IDLE_PROBES} idle)`,
      `${fmt(run.busyP50)} ms`,
      `${fmt(run.idleP50)} ms`,
      ratio(run.busyP50, run.idleP50),
    ]);
    rows.push([
      `${p}: worker RSS at chapter 10 ÷ chapter 1 (Node; with hosts)`,
      `${fmt(run.rss.at10.node)} MiB; ${fmt(run.rss.at10.withHosts)} MiB`,
      `${fmt(run.rss.at1.node)} MiB; ${fmt(run.rss.at1.withHosts)} MiB`,
      `${ratio(run.rss.at10.node, run.rss.at1.node)}; ${ratio(run.rss.at10.withHosts, run.rss.at1.withHosts)}`,
    ]);
  }
  out(table(['figure', 'measured', 'baseline (same run)', 'ratio'], rows));
  out(
    '\nCPU seconds over each conversion, by process: without the probes (as measured, the probes in it); `worker children` are the live ones sampled, `spawned` what exited unsampled:\n\n',
  );
  const names = [...new Set(conversions.flatMap((run) => [...run.cpu.keys()]))];
  out(
    table(
      ['process', ...conversions.map((run) => `parallel ${run.parallel}`)],
      names.map((name) => [
        name,
        ...conversions.map((run) => `${fmt(run.cpu.get(name) ?? 0, 1)} (${fmt(run.measured.get(name) ?? 0, 1)})`),
      ]),
    ),
  );
  for (const file of profiles) {
    const summary = summarizeProfile(path.join(profileDir, file), 30);
    const blocksRendered = conversions.reduce((sum, run) => sum + run.blocks, 0);
    const perBlock = (share: number) => `${fmt((share * summary.seconds * 1000) / blocksRendered, 1)} ms`;
    // `CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile`: thread 0 is the main one (activities), another the workflows'.
    const thread = /\.(\d+)\.\d+\.cpuprofile$/.exec(file)?.[1];
    const which = thread === '0' ? 'main thread (activities)' : `thread ${thread} (workflows)`;
    out(`\nThe worker's ${which}: ${fmt(summary.seconds, 1)} s busy over the run; per block rendered:\n\n`);
    out(
      table(
        ['owner', 'per block'],
        summary.byOwner.map(([owner, share]) => [owner, perBlock(share)]),
      ),
    );
    out(
      '\n' +
        table(
          ['function', 'per block'],
          summary.byFunction.map(([name, share]) => [name, perBlock(share)]),
        ),
    );
  }
}

exitWhenDone(main());
