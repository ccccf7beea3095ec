import { readdirSync, readFileSync } from 'node:fs';
import { startIsolatedStack } from '../scripts/isolatedStack';

/**
 * Worker memory under the heaviest neural load a free plan allows at once:
 * 20 accounts each submit one 5000-character en-us-joe synthesis together,
 * on one worker process (its default concurrency: one render per core). Every
 * 250 ms it samples the worker's RSS and that of its whole process tree (the
 * Piper host processes, espeak-ng, ffmpeg), and prints the peaks beside the
 * idle worker's RSS measured in the same run.
 *
 *   npm run build && node dist/bench/rss.js   (BENCH_RSS_N=20, BENCH_RSS_CHARS=5000)
 *   BENCH_RSS_SECONDS=600 stops sampling after that long (a loaded machine) and says how far it got.
 */

const N = Number(process.env.BENCH_RSS_N ?? 20);
const CHARS = Number(process.env.BENCH_RSS_CHARS ?? 5000);
const LIMIT_SECONDS = Number(process.env.BENCH_RSS_SECONDS ?? 0);
const SENTENCES = [
  'Speech synthesis turns written words into sound for every listener.',
  'A neural voice learns its timing and tone from hours of recordings, so it pauses where a reader would pause.',
  'The meeting has been moved to next Tuesday afternoon, after the quarterly review.',
  'Please call me back when you get home tonight, and bring the notes from the library.',
  'The train to the city leaves every hour from the main station, except on public holidays.',
];

function text(chars: number): string {
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

async function main() {
  const stack = await startIsolatedStack({ name: 'rss', env: { VOICE_PREVIEWS: 'false', WORKER_METRICS_PORT: '0' } });
  try {
    await stack.startWorkers(1);
    await stack.startApi();
    const worker = stack.workers()[0];
    if (!worker?.pid) throw new Error('no worker process');
    const workerPid = tree(worker.pid).find((pid) => pid !== worker.pid && /worker\/main\.js/.test(cmdline(pid))) ?? worker.pid;
    const idle = kib(workerPid, 'VmRSS');
    const accounts = await stack.createAccounts(N, { credits: 1_000_000 });
    let peakTree = 0;
    let peakHosts = 0;
    const sampler = setInterval(() => {
      const pids = tree(workerPid);
      peakTree = Math.max(
        peakTree,
        pids.reduce((sum, pid) => sum + kib(pid, 'VmRSS'), 0),
      );
      const hosts = pids.filter((pid) => pid !== workerPid && /piper\/host\./.test(cmdline(pid)));
      peakHosts = Math.max(peakHosts, hosts.length);
    }, 250);
    const started = performance.now();
    const body = text(CHARS);
    let completed = 0;
    const all = Promise.all(
      accounts.map(async (account) => {
        const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${account.token}` };
        const response = await fetch(`${stack.apiUrl}/api/v1/tts/synthesize/`, { method: 'POST', headers, body: JSON.stringify({ text: body, voice_id: 'en-us-joe' }) });
        if (response.status !== 202) throw new Error(`submit answered ${response.status}: ${await response.text()}`);
        const { status_url } = (await response.json()) as { status_url: string };
        for (;;) {
          const status = (await (await fetch(`${stack.apiUrl}${status_url}`, { headers })).json()) as { status: string };
          if (status.status === 'completed') {
            completed += 1;
            return;
          }
          if (status.status !== 'queued' && status.status !== 'processing') throw new Error(`synthesis ${status.status}`);
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }),
    );
    const limit = LIMIT_SECONDS > 0 ? new Promise<void>((resolve) => setTimeout(resolve, LIMIT_SECONDS * 1000)) : new Promise<void>(() => {});
    await Promise.race([all, limit]);
    clearInterval(sampler);
    const [{ progress }] = await stack.db('syntheses').avg({ progress: 'progress' });
    const mib = (value: number) => `${(value / 1024).toFixed(0)} MiB`;
    const peakWorker = kib(workerPid, 'VmHWM');
    console.log(`| figure | value | baseline (idle worker, same run) | ratio |\n|---|---|---|---|`);
    console.log(`| worker process peak RSS (VmHWM), ${N} x ${body.length} chars en-us-joe | ${mib(peakWorker)} | ${mib(idle)} | ${(peakWorker / idle).toFixed(2)} |`);
    console.log(`| worker + its processes (Piper hosts, espeak-ng, ffmpeg), peak summed RSS | ${mib(peakTree)} | ${mib(idle)} | ${(peakTree / idle).toFixed(2)} |`);
    console.log(`| Piper host processes at once, peak | ${peakHosts} | | |`);
    console.log(`| wall time | ${((performance.now() - started) / 1000).toFixed(0)} s | | |`);
    console.log(`| syntheses completed | ${completed} of ${N} | | |`);
    console.log(`| mean progress of the ${N} syntheses | ${Number(progress).toFixed(2)} | | |`);
  } finally {
    await stack.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
