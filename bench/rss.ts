import { readdirSync, readFileSync } from 'node:fs';
import { type IsolatedStack, type StackAccount, startIsolatedStack } from '../scripts/isolatedStack';
import { freeLoopbackPort } from '../worker/metrics';
import type { GoalContext } from './goals';
import { exitWhenDone } from './report';

/**
 * Worker memory under the heaviest neural load a free plan allows at once:
 * 20 accounts each submit one 5000-character en-us-joe synthesis together,
 * on one worker process (its default concurrency: one render per core). Every
 * 250 ms it samples the worker's RSS and that of its whole process tree (the
 * Piper host processes, espeak-ng, ffmpeg), and prints the peaks beside the
 * idle worker's RSS measured in the same run, with what held the memory at
 * the tree's peak (the worker, each Piper host, the rest) and the worker's
 * V8 heap and external memory from its metrics endpoint.
 *
 *   npm run build && node dist/bench/rss.js   (BENCH_RSS_N=20, BENCH_RSS_CHARS=5000)
 *   BENCH_RSS_SECONDS=600 stops sampling after that long (a loaded machine) and says how far it got.
 *
 * `npm run bench:service` prints the same figure among the goals (bench/goals.ts, BENCH_GOALS_ONLY=memory).
 */

const SENTENCES = [
  'Speech synthesis turns written words into sound for every listener.',
  'A neural voice learns its timing and tone from hours of recordings, so it pauses where a reader would pause.',
  'The meeting has been moved to next Tuesday afternoon, after the quarterly review.',
  'Please call me back when you get home tonight, and bring the notes from the library.',
  'The train to the city leaves every hour from the main station, except on public holidays.',
];

/** The bench's long text: everyday sentences repeated to `chars` characters, ending on a full stop. */
export function longText(chars: number): string {
  let out = '';
  for (let i = 0; out.length < chars; i++) out += `${SENTENCES[i % SENTENCES.length]} `;
  return out.slice(0, chars).replace(/\s+\S*$/, '.');
}

const kib = (pid: number, field: 'VmRSS' | 'VmHWM') => {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
};

/** Proportional set size: shared pages (node's and ONNX Runtime's code in every host) counted once over the processes. */
const pssKiB = (pid: number) => {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
};

/** A process's command line, '' once it has exited (engines come and go between two reads). */
const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
};

/** The pids of `root` and every process below it. */
function tree(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited
    }
  }
  const pids = [root];
  for (let i = 0; i < pids.length; i++) for (const [pid, ppid] of parent) if (ppid === pids[i]) pids.push(pid);
  return pids;
}

/** The worker's own gauges (prom-client's defaults), bytes. */
async function workerGauges(port: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const name of ['nodejs_heap_size_used_bytes', 'nodejs_heap_size_total_bytes', 'nodejs_external_memory_bytes']) {
    const match = new RegExp(`^${name} (\\S+)`, 'm').exec(text);
    if (match) out[name] = Number(match[1]);
  }
  return out;
}

export interface WorkerMemory {
  syntheses: number;
  chars: number;
  /** KiB. */
  idleWorker: number;
  peakWorker: number;
  peakTree: number;
  peakTreePss: number;
  /** At the tree's peak: the worker, each Piper host (KiB, largest first), everything else. */
  atPeak: { worker: number; hosts: number[]; other: number };
  peakHostEach: number;
  peakHosts: number;
  /** Bytes, the worker's V8 heap used / external memory, peaks from its metrics. */
  peakHeapUsed: number;
  peakExternal: number;
  seconds: number;
  completed: number;
  meanProgress: number;
}

/**
 * Restarts the stack's worker (one process, default concurrency, no voice
 * previews), lets it settle, then runs `n` parallel `chars`-character
 * en-us-joe syntheses from `n` accounts and samples the memory until they end
 * (or `limitSeconds`).
 */
export async function measureWorkerMemory(
  stack: IsolatedStack,
  accounts: StackAccount[],
  { n = 20, chars = 5000, limitSeconds = 0 }: { n?: number; chars?: number; limitSeconds?: number } = {},
): Promise<WorkerMemory> {
  const metricsPort = await freeLoopbackPort();
  await stack.startWorkers(1, { extraEnv: { VOICE_PREVIEWS: 'false', WORKER_METRICS_PORT: String(metricsPort) } });
  const worker = stack.workers()[0];
  if (!worker?.pid) throw new Error('no worker process');
  const workerPid =
    tree(worker.pid).find((pid) => pid !== worker.pid && /worker\/main\.js/.test(cmdline(pid))) ?? worker.pid;
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const idleWorker = kib(workerPid, 'VmRSS');
  const result = {
    peakTree: 0,
    peakTreePss: 0,
    atPeak: { worker: 0, hosts: [] as number[], other: 0 },
    peakHostEach: 0,
    peakHosts: 0,
    peakHeapUsed: 0,
    peakExternal: 0,
  };
  let sampling = false;
  const sample = () => {
    const pids = tree(workerPid);
    const rss = new Map(pids.map((pid) => [pid, kib(pid, 'VmRSS')]));
    const total = [...rss.values()].reduce((sum, value) => sum + value, 0);
    const hosts = pids.filter((pid) => pid !== workerPid && /piper\/host\./.test(cmdline(pid)));
    const hostRss = hosts.map((pid) => rss.get(pid) ?? 0).sort((a, b) => b - a);
    result.peakHosts = Math.max(result.peakHosts, hosts.length);
    result.peakHostEach = Math.max(result.peakHostEach, ...hostRss, 0);
    if (total > result.peakTree) {
      const workerRss = rss.get(workerPid) ?? 0;
      const hostSum = hostRss.reduce((sum, value) => sum + value, 0);
      result.peakTree = total;
      result.atPeak = { worker: workerRss, hosts: hostRss, other: total - workerRss - hostSum };
    }
    // smaps_rollup walks the page tables: every other sample.
    if ((sampling = !sampling))
      result.peakTreePss = Math.max(
        result.peakTreePss,
        pids.reduce((sum, pid) => sum + pssKiB(pid), 0),
      );
  };
  const sampler = setInterval(sample, 250);
  const gauges = setInterval(() => {
    workerGauges(metricsPort).then(
      (values) => {
        result.peakHeapUsed = Math.max(result.peakHeapUsed, values.nodejs_heap_size_used_bytes ?? 0);
        result.peakExternal = Math.max(result.peakExternal, values.nodejs_external_memory_bytes ?? 0);
      },
      () => undefined,
    );
  }, 1_000);
  const started = performance.now();
  const body = longText(chars);
  let completed = 0;
  const ids: string[] = [];
  try {
    const all = Promise.all(
      accounts.slice(0, n).map(async (account) => {
        const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${account.token}` };
        const response = await fetch(`${stack.apiUrl}/api/v1/tts/synthesize/`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ text: body, voice_id: 'en-us-joe' }),
        });
        if (response.status !== 202) throw new Error(`submit answered ${response.status}: ${await response.text()}`);
        const { id, status_url } = (await response.json()) as { id: string; status_url: string };
        ids.push(id);
        for (;;) {
          const status = (await (await fetch(`${stack.apiUrl}${status_url}`, { headers })).json()) as {
            status: string;
          };
          if (status.status === 'completed') {
            completed += 1;
            return;
          }
          if (status.status !== 'queued' && status.status !== 'processing')
            throw new Error(`synthesis ${status.status}`);
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }),
    );
    const limit =
      limitSeconds > 0
        ? new Promise<void>((resolve) => setTimeout(resolve, limitSeconds * 1000))
        : new Promise<void>(() => {});
    await Promise.race([all, limit]);
  } finally {
    clearInterval(sampler);
    clearInterval(gauges);
  }
  const [{ progress }] = await stack.db('syntheses').whereIn('id', ids).avg({ progress: 'progress' });
  return {
    syntheses: n,
    chars: body.length,
    idleWorker,
    peakWorker: kib(workerPid, 'VmHWM'),
    ...result,
    seconds: (performance.now() - started) / 1000,
    completed,
    meanProgress: Number(progress),
  };
}

const mib = (kibValue: number) => `${(kibValue / 1024).toFixed(0)} MiB`;

/** The figures as table rows: figure, value, baseline (the idle worker, same run), ratio. */
export function workerMemoryRows(memory: WorkerMemory): [string, string, string, string][] {
  const { idleWorker: idle } = memory;
  const load = `${memory.syntheses} x ${memory.chars} chars en-us-joe`;
  return [
    [
      `worker + its processes (Piper hosts, espeak-ng, ffmpeg), peak summed RSS, ${load}`,
      mib(memory.peakTree),
      `${mib(idle)} idle worker`,
      (memory.peakTree / idle).toFixed(2),
    ],
    [
      '… at that peak: worker, Piper hosts, the rest',
      `${mib(memory.atPeak.worker)}; ${memory.atPeak.hosts.map(mib).join(' + ') || 'none'}; ${mib(memory.atPeak.other)}`,
      '',
      '',
    ],
    [
      'same, summed PSS (shared code pages counted once)',
      mib(memory.peakTreePss),
      `${mib(idle)} idle worker`,
      (memory.peakTreePss / idle).toFixed(2),
    ],
    [
      `worker process peak RSS (VmHWM)`,
      mib(memory.peakWorker),
      `${mib(idle)} idle worker`,
      (memory.peakWorker / idle).toFixed(2),
    ],
    [
      '… its V8 heap used / external memory, peaks',
      `${mib(memory.peakHeapUsed / 1024)} / ${mib(memory.peakExternal / 1024)}`,
      '',
      '',
    ],
    ["Piper hosts at once, peak; one host's peak RSS", `${memory.peakHosts}; ${mib(memory.peakHostEach)}`, '', ''],
    [
      'syntheses completed; mean progress; wall time',
      `${memory.completed} of ${memory.syntheses}; ${memory.meanProgress.toFixed(2)}; ${memory.seconds.toFixed(0)} s`,
      '',
      '',
    ],
  ];
}

/**
 * Goal 6 among bench:service's goal figures (BENCH_GOALS_ONLY=memory, and =1):
 * worker memory under 20 parallel 5000-character en-us-joe syntheses, against
 * the idle worker of the same run; the stack's default worker is started again after.
 */
export async function measureMemoryGoal(context: GoalContext): Promise<void> {
  const { stack, accounts } = context;
  const n = Math.min(20, accounts.length);
  const memory = await measureWorkerMemory(stack, accounts, {
    n,
    chars: 5000,
    limitSeconds: Number(process.env.BENCH_RSS_SECONDS ?? 0),
  });
  await stack.startWorkers(1);
  for (const [index, [figure, value, baseline, ratio]] of workerMemoryRows(memory).entries()) {
    const row: [string, string, string, string, string] = [
      figure,
      value,
      baseline,
      ratio,
      index === 0 ? '<= 1 GB (954 MiB)' : '',
    ];
    process.stdout.write(`| ${row.join(' | ')} |\n`);
    context.rows.push(row);
  }
}

async function main() {
  const stack = await startIsolatedStack({
    name: `rss_${process.pid}`,
    childOutput: 'log',
    removeDataOnClose: true,
    env: { VOICE_PREVIEWS: 'false', WORKER_METRICS_PORT: '0' },
  });
  try {
    await stack.startApi();
    const n = Number(process.env.BENCH_RSS_N ?? 20);
    const accounts = await stack.createAccounts(n, { credits: 1_000_000 });
    const memory = await measureWorkerMemory(stack, accounts, {
      n,
      chars: Number(process.env.BENCH_RSS_CHARS ?? 5000),
      limitSeconds: Number(process.env.BENCH_RSS_SECONDS ?? 0),
    });
    console.log(`| figure | value | baseline (same run) | ratio |\n|---|---|---|---|`);
    for (const row of workerMemoryRows(memory)) console.log(`| ${row.join(' | ')} |`);
  } finally {
    await stack.close();
  }
}

if (require.main === module) {
  exitWhenDone(main());
}
