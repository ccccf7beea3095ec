import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultModelsDir } from '../lib/config';
import { startIsolatedStack, type StackAccount } from '../scripts/isolatedStack';
import { freePorts, stopChild, waitFor } from '../scripts/stack';
import { stackGroups } from './goals';
import { cpuDelta, cpuSnapshot, type ProcessGroup, summarizeProfile } from './processes';
import { EVERYDAY_SENTENCES, TRAIN_SENTENCES } from './texts';
import { table } from './report';

/**
 * The neural path against Piper's own HTTP server (piper-tts 1.8.0 from
 * PyPI, `python -m piper.http_server`), the same model (en_US-joe-medium) on
 * the same machine, in the same run: requests alternate between the two, and
 * every figure is printed with its ratio against the peer measured beside it.
 *
 * - one sentence, one client: p50 from the request to the whole audio;
 * - a 6-sentence paragraph, one client: our first audio byte (a stream) as a
 *   fraction of the peer's whole answer (it sends nothing before the end),
 *   and both full times;
 * - 4 clients at once, 12 paragraphs each side: paragraphs per second.
 *
 * Ours: `POST /v1/audio/speech {model: 'tts-1', voice: 'en-us-joe', response_format: 'wav'}`
 * on an isolated stack (api and worker processes, as deployed). The peer:
 * `POST /synthesize {"text"}`, which answers a WAV, its Flask server bound to
 * 127.0.0.1, given the model's path (it downloads nothing).
 *
 * The Python environment is made once, outside the repository
 * (`~/.cache/openvox/peer-venv`, PEER_VENV to move it).
 *
 * Run: npm run bench:peer   (BENCH_N=2 doubles the samples; PEER_ONLY=sentence|paragraph|throughput;
 * PEER_PROFILE=1 profiles our worker and api over the throughput rounds)
 */

const N = Number(process.env.BENCH_N ?? 1);
const ONLY = process.env.PEER_ONLY ?? '';
/** PEER_PROFILE=1: CPU profiles (`node --cpu-prof`) of our worker and api over the 4-client paragraphs, printed per paragraph. */
const PROFILE = process.env.PEER_PROFILE === '1';
const MODEL = 'en_US-joe-medium';
const VOICE = 'en-us-joe';
const PIPER_VERSION = '1.8.0';
const CLIENTS = 4;
const PARAGRAPHS = 12;
const VENV =
  process.env.PEER_VENV ??
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'openvox', 'peer-venv');

const SENTENCE = EVERYDAY_SENTENCES[0];
/** Six sentences each, a different paragraph per request (the first of each as long as the others). */
const paragraph = (index: number) =>
  Array.from({ length: 6 }, (_, k) => TRAIN_SENTENCES[(index + k) % TRAIN_SENTENCES.length]).join(' ');

const fmt = (value: number, digits = 0) => value.toFixed(digits);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The venv with piper-tts, made once; a marker file says it is complete. */
function ensureVenv(): string {
  const python = path.join(VENV, 'bin', 'python');
  const marker = path.join(VENV, `.piper-tts-${PIPER_VERSION}`);
  if (existsSync(marker)) return python;
  process.stderr.write(`[peer] creating ${VENV} with piper-tts==${PIPER_VERSION} (once)\n`);
  rmSync(VENV, { recursive: true, force: true });
  mkdirSync(path.dirname(VENV), { recursive: true });
  execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
  // The HTTP server needs Flask, which piper-tts lists as an extra only.
  execFileSync(python, ['-m', 'pip', 'install', '--quiet', `piper-tts==${PIPER_VERSION}`, 'flask'], {
    stdio: 'inherit',
  });
  writeFileSync(marker, '');
  return python;
}

/** Reads a response to its end: when the first non-empty body chunk and the last came. */
async function timed(
  request: () => Promise<Response>,
): Promise<{ firstByteMs: number; totalMs: number; bytes: number; response: Response }> {
  const started = performance.now();
  const response = await request();
  if (!response.ok) throw new Error(`answered ${response.status}: ${await response.text()}`);
  const reader = response.body!.getReader();
  let firstByteMs = NaN;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.length && Number.isNaN(firstByteMs)) firstByteMs = performance.now() - started;
    bytes += value.length;
  }
  return { firstByteMs, totalMs: performance.now() - started, bytes, response };
}

async function main() {
  const python = ensureVenv();
  const modelPath = path.join(process.env.MODELS_DIR ?? defaultModelsDir(), `${MODEL}.onnx`);
  if (!existsSync(modelPath)) throw new Error(`${modelPath} is missing (scripts/install.sh fetches it)`);
  process.env.WORKER_METRICS_PORT ??= '0';
  // No voice previews: a new stack's worker renders one per premade voice at start, which ran into the first rounds.
  const stack = await startIsolatedStack({
    name: `peer_${process.pid}`,
    childOutput: 'log',
    env: { VOICE_PREVIEWS: 'false' },
  });
  let peer: ChildProcess | undefined;
  const rows: string[][] = [];
  const cpuRows: string[][] = [];
  const profiles: string[] = [];
  let requestsOfOurs = 0;
  try {
    await stack.startWorkers(1, { profileAs: PROFILE ? 'worker' : undefined });
    await stack.startApi({ profileAs: PROFILE ? 'api' : undefined });
    const accounts = await stack.createAccounts(CLIENTS, { credits: 100_000_000, plan: 'pro' });

    // Piper's server: its own data directory (it looks there for voices and would download into it, which it
    // does not do when given an existing model's path), bound to loopback only.
    const [peerPort] = await freePorts(1);
    const peerDir = path.join(stack.dataDir, 'peer');
    mkdirSync(peerDir, { recursive: true });
    const peerLog = openSync(path.join(stack.logDir, 'peer.log'), 'a');
    peer = spawn(
      python,
      [
        '-m',
        'piper.http_server',
        '-m',
        modelPath,
        '--host',
        '127.0.0.1',
        '--port',
        String(peerPort),
        '--data-dir',
        peerDir,
        '--download-dir',
        peerDir,
      ],
      {
        cwd: peerDir,
        stdio: ['ignore', peerLog, peerLog],
      },
    );
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    await waitFor('Piper server', async () => (await fetch(`${peerUrl}/info`)).ok, 120_000, peer);

    const ours = (account: StackAccount, input: string) => {
      requestsOfOurs += 1;
      return timed(() =>
        fetch(`${stack.apiUrl}/v1/audio/speech`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${account.token}` },
          body: JSON.stringify({ model: 'tts-1', voice: VOICE, input, response_format: 'wav' }),
        }),
      );
    };
    /** Ours, then until the synthesis has ended (its stored file is finished after the stream): the next request starts on a quiet service. */
    const oursSettled = async (account: StackAccount, input: string) => {
      const result = await ours(account, input);
      const id = result.response.headers.get('x-synthesis-id')!;
      await waitFor(
        'completion',
        async () => (await stack.db('syntheses').where({ id }).first('status')).status !== 'processing',
        60_000,
      );
      return result;
    };
    const theirs = (input: string) =>
      timed(() =>
        fetch(`${peerUrl}/synthesize`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ text: input }),
        }),
      );

    // Warm-up: model sessions loaded, encoders and pools started on both sides.
    for (let i = 0; i < 3; i++) {
      await oursSettled(accounts[0], paragraph(i));
      await theirs(paragraph(i));
    }

    if (!ONLY || ONLY === 'sentence') {
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < 10 * N; i++) {
        // Alternating, each side first every other time.
        if (i % 2 === 0) {
          a.push((await oursSettled(accounts[0], SENTENCE)).totalMs);
          b.push((await theirs(SENTENCE)).totalMs);
        } else {
          b.push((await theirs(SENTENCE)).totalMs);
          a.push((await oursSettled(accounts[0], SENTENCE)).totalMs);
        }
      }
      const [ourP50, peerP50] = [median(a), median(b)];
      rows.push([
        'one sentence, 1 client, p50 to full audio',
        `${fmt(ourP50)} ms`,
        `${fmt(peerP50)} ms`,
        `${ourP50 >= peerP50 ? '+' : '−'}${fmt(Math.abs(ourP50 - peerP50))} ms (${fmt(ourP50 / peerP50, 2)}×)`,
        '≤ +50 ms',
      ]);
    }

    if (!ONLY || ONLY === 'paragraph') {
      const first: number[] = [];
      const full: number[] = [];
      const peerFull: number[] = [];
      for (let i = 0; i < 6 * N; i++) {
        const text = paragraph(i);
        const run = async () => {
          const result = await oursSettled(accounts[0], text);
          first.push(result.firstByteMs);
          full.push(result.totalMs);
        };
        const peerRun = async () => void peerFull.push((await theirs(text)).totalMs);
        if (i % 2 === 0) {
          await run();
          await peerRun();
        } else {
          await peerRun();
          await run();
        }
      }
      const peerP50 = median(peerFull);
      rows.push([
        '6-sentence paragraph, 1 client: our first byte / peer full (p50)',
        `${fmt(median(first))} ms`,
        `${fmt(peerP50)} ms`,
        `${fmt(median(first) / peerP50, 2)}×`,
        '≤ 0.25×',
      ]);
      rows.push([
        '6-sentence paragraph, 1 client: full audio (p50)',
        `${fmt(median(full))} ms`,
        `${fmt(peerP50)} ms`,
        `${fmt(median(full) / peerP50, 2)}×`,
        '',
      ]);
    }

    if (!ONLY || ONLY === 'throughput') {
      // CPU per paragraph: our stack's processes (bench/goals.ts's groups: the kept espeak-ng among the spawned) and the peer's.
      const groups: ProcessGroup[] = [...stackGroups(stack), { name: 'peer', match: (stat) => stat.pid === peer?.pid }];
      const cpu = { ours: new Map<string, number>(), peer: new Map<string, number>() };
      /** CLIENTS clients at once, PARAGRAPHS × N paragraphs in all: paragraphs per second. */
      const throughput = async (side: 'ours' | 'peer') => {
        const queue = Array.from({ length: PARAGRAPHS * N }, (_, index) => paragraph(index));
        const before = cpuSnapshot(groups);
        const started = performance.now();
        await Promise.all(
          accounts.map(async (account) => {
            for (let text = queue.shift(); text !== undefined; text = queue.shift())
              await (side === 'ours' ? ours(account, text) : theirs(text));
          }),
        );
        const seconds = (performance.now() - started) / 1000;
        // Ours ends once every stored file is finished, so that the next round starts on a quiet service.
        if (side === 'ours')
          await waitFor(
            'completion',
            async () =>
              Number((await stack.db('syntheses').where({ status: 'processing' }).count({ n: '*' }))[0].n) === 0,
            120_000,
          );
        for (const [name, seconds] of cpuDelta(before, cpuSnapshot(groups)))
          cpu[side].set(name, (cpu[side].get(name) ?? 0) + seconds);
        return (PARAGRAPHS * N) / seconds;
      };
      // ABBA: drift in the machine's load hits both sides alike.
      const a = [await throughput('ours')];
      const b = [await throughput('peer'), await throughput('peer')];
      a.push(await throughput('ours'));
      const [ourRate, peerRate] = [(a[0] + a[1]) / 2, (b[0] + b[1]) / 2];
      rows.push([
        `${CLIENTS} clients, ${PARAGRAPHS * N} paragraphs: throughput`,
        `${fmt(ourRate, 2)} /s (${a.map((x) => fmt(x, 2)).join(', ')})`,
        `${fmt(peerRate, 2)} /s (${b.map((x) => fmt(x, 2)).join(', ')})`,
        `${fmt(ourRate / peerRate, 2)}×`,
        '≥ 1.0×',
      ]);
      // Two rounds each side.
      const perParagraph = (seconds = 0) => `${fmt((seconds * 1000) / (2 * PARAGRAPHS * N))} ms`;
      const names = [...new Set([...cpu.ours.keys()].filter((name) => name !== 'peer'))];
      const total = (side: Map<string, number>, only?: string[]) =>
        [...side].filter(([name]) => !only || only.includes(name)).reduce((sum, [, seconds]) => sum + seconds, 0);
      for (const name of names) cpuRows.push([name, perParagraph(cpu.ours.get(name))]);
      cpuRows.push(['all of ours', perParagraph(total(cpu.ours, names))]);
      cpuRows.push([`the peer (Piper's server, same run)`, perParagraph(cpu.peer.get('peer'))]);
    }
    if (PROFILE) {
      // The profiles are written as the processes exit.
      await stack.stopWorkers();
      await stack.stopApi();
      for (const name of ['worker', 'api']) {
        const dir = path.join(stack.dataDir, 'profiles', name);
        for (const file of existsSync(dir) ? readdirSync(dir) : []) {
          const summary = summarizeProfile(path.join(dir, file), 25);
          const perParagraph = (share: number) => `${fmt((share * summary.seconds * 1000) / requestsOfOurs)} ms`;
          profiles.push(`\n${name} (${fmt(summary.seconds, 1)} s busy over the whole run; per request of it):\n\n`);
          profiles.push(
            table(
              ['owner', 'share'],
              summary.byOwner.map(([owner, share]) => [owner, perParagraph(share)]),
            ),
          );
          profiles.push(
            '\n' +
              table(
                ['function', 'share'],
                summary.byFunction.map(([fn, share]) => [fn, perParagraph(share)]),
              ),
          );
        }
      }
    }
  } finally {
    if (peer) await stopChild(peer).catch(() => undefined);
    await stack.close();
  }
  process.stdout.write(
    `\nOpenVox neural path against Piper's own server — ${new Date().toISOString()}, node ${process.version}, BENCH_N=${N}, ${MODEL}, load ${os.loadavg()[0].toFixed(1)}\n\n`,
  );
  process.stdout.write(table(['figure', 'OpenVox', `Piper ${PIPER_VERSION} server (same run)`, 'ratio', 'goal'], rows));
  if (cpuRows.length > 0)
    process.stdout.write(`\nCPU per paragraph in the throughput rounds:\n\n${table(['process', 'CPU'], cpuRows)}`);
  process.stdout.write(profiles.join(''));
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
