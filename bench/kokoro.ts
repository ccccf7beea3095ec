import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { speechBounds } from '../audio/pcm';
import { readWavSamples } from '../audio/wav';
import { createKokoroEngine, KOKORO_DIR, KOKORO_MODEL } from '../engines/kokoro';
import { kokoroSymbols } from '../engines/kokoro/phonemes';
import { textToPhonemes } from '../engines/piper/phonemes';
import { resolveOpenAiVoice } from '../api/routes/openai/voices';
import { defaultModelsDir } from '../lib/config';
import { startIsolatedStack } from '../scripts/isolatedStack';
import { durationAndF0, hear, wordErrors } from './measures';
import { exitWhenDone } from './report';
import { EVERYDAY_SENTENCES } from './texts';

/**
 * Kokoro here against kokoro-onnx's own Python API (PyPI, in a venv under ~/.cache/openvox), same
 * machine, same run, same model file, same style and the same phonemes (ours, fed with
 * `is_phonemes=True`; kokoro-onnx's own phonemizer as a third row): CPU seconds per audio second
 * (the host process's, from /proc; Python's process time), the first sentence's latency (what a
 * stream's first audio waits for), pocketsphinx WER and the audio's duration. Then the same through the
 * service (an isolated stack: api and worker processes, MODELS_DIR holding the model and the bench's style):
 * each sentence through the normal API and the OpenAI route, downloaded, its WER and duration against
 * kokoro-onnx's rendering of the same phonemes and style; and a streamed text's first audio byte
 * (`/v1/audio/speech`, its first sentence rendered alone) against kokoro-onnx's own time for that sentence,
 * runs alternating, the ratio taken run by run.
 *
 *   npm run bench:kokoro -- [style .npy]   (default: MODELS_DIR/kokoro/voices/jf_alpha.npy, the shipped style)
 */

const run = promisify(execFile);
const VENV = path.join(os.homedir(), '.cache', 'openvox', 'kokoro-onnx-venv');
const PYTHON = path.join(VENV, 'bin', 'python');

const PY = String.raw`
import json, sys, time, wave
import numpy as np
from kokoro_onnx import Kokoro
model, npz, out, requests = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(open(sys.argv[4]).read())
kokoro = Kokoro(model, npz)
style = kokoro.voices["af_bench"]
results = []
kokoro.create("Warm up.", voice=style, lang="en-us", trim=False)
for index, request in enumerate(requests):
    cpu, wall = time.process_time(), time.perf_counter()
    if request["phonemes"]:
        audio, rate = kokoro.create(request["phonemes"], voice=style, is_phonemes=True, trim=False, sentence_pause=0, clause_pause=0)
    else:
        audio, rate = kokoro.create(request["text"], voice=style, lang="en-us", trim=False, sentence_pause=0, clause_pause=0)
    results.append({"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall, "seconds": len(audio) / rate})
    with wave.open(f"{out}/{index}.wav", "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(rate)
        w.writeframes((np.clip(audio, -1, 1) * 32767).astype(np.int16).tobytes())
print(json.dumps(results))
`;

/** kokoro-onnx kept loaded, one request a line (its phonemes), answering its wall time: the latency baseline. */
const PY_SERVER = String.raw`
import json, sys, time
from kokoro_onnx import Kokoro
kokoro = Kokoro(sys.argv[1], sys.argv[2])
style = kokoro.voices["af_bench"]
kokoro.create("Warm up.", voice=style, lang="en-us", trim=False)
print("ready", flush=True)
for line in sys.stdin:
    request = json.loads(line)
    wall = time.perf_counter()
    audio, rate = kokoro.create(request["phonemes"], voice=style, is_phonemes=True, trim=False)
    print(json.dumps({"wall": time.perf_counter() - wall, "seconds": len(audio) / rate}), flush=True)
`;

/** Streamed first-audio latency runs (each: the service's first byte, then kokoro-onnx's time). */
const LATENCY_RUNS = Number(process.env.BENCH_RUNS ?? 5);
/** Seconds from the first to the last sound above -55 dBFS: the span the service keeps of a chunk (audio/render.ts). */
async function speechSeconds(wav: string): Promise<number> {
  const { samples, sampleRate } = await readWavSamples(wav);
  const { start, end } = speechBounds(samples, sampleRate, -55, 0, 0);
  return (end - start) / sampleRate;
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function ensureVenv() {
  if (existsSync(PYTHON)) return;
  await run('python3', ['-m', 'venv', VENV]);
  await run(path.join(VENV, 'bin', 'pip'), ['install', '--quiet', 'kokoro-onnx==0.6.1'], { maxBuffer: 1 << 24 });
}

async function main() {
  const shared = path.join(process.env.MODELS_DIR || defaultModelsDir(), KOKORO_DIR);
  const stylePath = process.argv[2] ?? path.join(shared, 'voices', 'jf_alpha.npy');
  await ensureVenv();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-bench-kokoro-'));
  const modelsDir = path.join(dir, 'models');
  await mkdir(path.join(modelsDir, KOKORO_DIR, 'voices'), { recursive: true });
  await symlink(path.join(shared, KOKORO_MODEL), path.join(modelsDir, KOKORO_DIR, KOKORO_MODEL));
  await copyFile(path.join(shared, 'vocab.json'), path.join(modelsDir, KOKORO_DIR, 'vocab.json'));
  await copyFile(stylePath, path.join(modelsDir, KOKORO_DIR, 'voices', 'af_bench.npy'));
  const vocab = (
    JSON.parse(await readFile(path.join(shared, 'vocab.json'), 'utf8')) as { vocab: Record<string, number> }
  ).vocab;
  // One thread each side: the comparison is of CPU per audio second, not of how many cores each grabs.
  const engine = createKokoroEngine({ modelsDir, loneThreads: 1, maxHosts: 1 });
  try {
    const sentences = [...EVERYDAY_SENTENCES];
    const phonemes: string[] = [];
    for (const sentence of sentences) {
      const [first] = await textToPhonemes(sentence, { espeakVoice: 'en-us' });
      phonemes.push(kokoroSymbols(first.phonemes, vocab).symbols.join(''));
    }
    // Ours: warm the host, then each sentence alone (its first sentence's time is the first-audio latency).
    await engine.synthesize({ text: 'Warm up.', voice: 'af_bench', outPath: path.join(dir, 'warm.wav') });
    const ours: Array<{ cpu: number; wall: number; seconds: number; wav: string }> = [];
    for (const [index, sentence] of sentences.entries()) {
      const wav = path.join(dir, `ours-${index}.wav`);
      let pid = 0;
      let cpu = 0;
      const started = performance.now();
      await engine.pool.with(path.join(modelsDir, KOKORO_DIR, KOKORO_MODEL), async (host) => {
        pid = host.pid!;
        cpu = await cpuSeconds(pid);
      });
      await engine.synthesize({ text: sentence, voice: 'af_bench', outPath: wav });
      const wall = (performance.now() - started) / 1000;
      ours.push({ cpu: (await cpuSeconds(pid)) - cpu, wall, seconds: (await durationAndF0(wav)).seconds, wav });
    }
    // kokoro-onnx on the same phonemes, and on its own phonemes of the text.
    const npz = path.join(dir, 'style.npz');
    await run(PYTHON, [
      '-c',
      `import numpy as np, sys; np.savez(sys.argv[1], af_bench=np.load(sys.argv[2]))`,
      npz,
      stylePath,
    ]);
    const reference = async (label: string, requests: Array<{ text: string; phonemes: string | null }>) => {
      const out = path.join(dir, label);
      await mkdir(out);
      const requestsFile = path.join(dir, `${label}.json`);
      await writeFile(requestsFile, JSON.stringify(requests));
      const { stdout } = await run(PYTHON, ['-c', PY, path.join(shared, KOKORO_MODEL), npz, out, requestsFile], {
        env: { ...process.env, OMP_NUM_THREADS: '1' },
        maxBuffer: 1 << 24,
      });
      return (
        JSON.parse(stdout.trim().split('\n').at(-1)!) as Array<{ cpu: number; wall: number; seconds: number }>
      ).map((row, index) => ({ ...row, wav: path.join(out, `${index}.wav`) }));
    };
    const samePhonemes = await reference(
      'same',
      sentences.map((text, index) => ({ text, phonemes: phonemes[index] })),
    );
    const ownPhonemes = await reference(
      'own',
      sentences.map((text) => ({ text, phonemes: null })),
    );

    const heard = async (wav: string) => (await hear(wav)) ?? '';
    const rows: string[][] = [];
    const base = { cpu: 0, seconds: 0, first: 0 };
    for (const [label, results] of [
      ['openvox kokoro engine', ours],
      ['kokoro-onnx, same phonemes', samePhonemes],
      ['kokoro-onnx, its own phonemes', ownPhonemes],
    ] as const) {
      const cpu = results.reduce((sum, row) => sum + row.cpu, 0);
      const seconds = results.reduce((sum, row) => sum + row.seconds, 0);
      let hypothesis = '';
      for (const row of results) hypothesis += ` ${await heard(row.wav)}`;
      const { errors, words } = wordErrors(sentences.join(' '), hypothesis);
      if (label === 'openvox kokoro engine')
        Object.assign(base, { cpu: cpu / seconds, seconds, first: results[0].wall });
      rows.push([
        label,
        (cpu / seconds).toFixed(3),
        `${(cpu / seconds / base.cpu).toFixed(2)}×`,
        `${(results[0].wall * 1000).toFixed(0)} ms`,
        `${(results[0].wall / base.first).toFixed(2)}×`,
        `${seconds.toFixed(2)} s`,
        `${(seconds / base.seconds).toFixed(3)}×`,
        `${((100 * errors) / words).toFixed(1)} % (${errors}/${words})`,
      ]);
      console.log(rows.at(-1)!.join(' | '));
    }
    const header = [
      'rendering',
      'CPU s per audio s',
      'vs ours',
      'first sentence',
      'vs ours',
      'audio',
      'vs ours',
      'WER (pocketsphinx)',
    ];
    console.log(
      `\n${sentences.length} sentences, one thread each side, load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores\n`,
    );
    console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
    for (const row of rows) console.log(`| ${row.join(' | ')} |`);
    console.log(`\nphonemes (ours, fed to both): ${phonemes[0]}`);

    await throughTheService({
      dir,
      modelsDir,
      sentences,
      phonemes,
      reference: samePhonemes,
      npz,
      model: path.join(shared, KOKORO_MODEL),
      heard,
    });
  } finally {
    engine.pool.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The same sentences through a running service, and a stream's first audio against kokoro-onnx's time for
 * its first sentence.
 */
async function throughTheService({
  dir,
  modelsDir,
  sentences,
  phonemes,
  reference,
  npz,
  model,
  heard,
}: {
  dir: string;
  modelsDir: string;
  sentences: string[];
  phonemes: string[];
  reference: Array<{ seconds: number; wav: string }>;
  npz: string;
  model: string;
  heard: (wav: string) => Promise<string>;
}) {
  process.env.WORKER_METRICS_PORT ??= '0';
  const stack = await startIsolatedStack({
    name: `kokoro_${process.pid}`,
    childOutput: 'log',
    env: { MODELS_DIR: modelsDir, VOICE_PREVIEWS: 'false', SYNTHESIS_CONCURRENCY: '2' },
  });
  let python: ReturnType<typeof spawn> | undefined;
  try {
    await stack.startWorkers(1);
    await stack.startApi();
    const [account] = await stack.createAccounts(1, { credits: 100_000_000, plan: 'pro' });
    const auth = { Authorization: `Bearer ${account.token}`, 'Content-Type': 'application/json' };
    const voiceId = 'en-us-kokoro-bench';
    // alloy, the first female name, takes the one female neural voice installed.
    const openAiVoice = 'alloy';
    const resolved = await resolveOpenAiVoice(stack.db, openAiVoice);
    if (resolved !== voiceId) throw new Error(`${openAiVoice} speaks with ${resolved}, not ${voiceId}`);
    const download = async (response: Response, file: string) => {
      if (!response.ok) throw new Error(`answered ${response.status}: ${await response.text()}`);
      await writeFile(file, Buffer.from(await response.arrayBuffer()));
      return file;
    };
    const viaApi = async (text: string, file: string) => {
      const accepted = await fetch(`${stack.apiUrl}/api/v1/tts/synthesize/`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ text, voice_id: voiceId, output_format: 'wav' }),
      });
      if (accepted.status !== 202) throw new Error(`synthesize answered ${accepted.status}: ${await accepted.text()}`);
      const { status_url: statusUrl } = (await accepted.json()) as { status_url: string };
      for (;;) {
        const status = (await (await fetch(`${stack.apiUrl}${statusUrl}`, { headers: auth })).json()) as {
          status: string;
          audio_url: string | null;
          error: unknown;
        };
        if (status.status === 'completed')
          return download(await fetch(`${stack.apiUrl}${status.audio_url}`, { headers: auth }), file);
        if (status.status === 'failed' || status.status === 'canceled')
          throw new Error(`synthesis ${status.status}: ${JSON.stringify(status.error)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const speech = (input: string, format: string) =>
      fetch(`${stack.apiUrl}/v1/audio/speech`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ model: 'tts-1', voice: openAiVoice, input, response_format: format }),
      });
    const viaOpenAi = async (text: string, file: string) => download(await speech(text, 'wav'), file);

    // Warm the worker's Kokoro host (its first call loads the model).
    await viaApi('Warm up.', path.join(dir, 'warm-api.wav'));
    const rows: string[][] = [];
    const referenceSeconds = reference.reduce((sum, row) => sum + row.seconds, 0);
    let referenceSpoken = 0;
    for (const row of reference) referenceSpoken += await speechSeconds(row.wav);
    let referenceHeard = '';
    for (const row of reference) referenceHeard += ` ${await heard(row.wav)}`;
    const referenceErrors = wordErrors(sentences.join(' '), referenceHeard);
    for (const [label, render] of [
      [`POST /api/v1/tts/synthesize/ (${voiceId}, wav)`, viaApi],
      [`POST /v1/audio/speech (${openAiVoice} → ${voiceId}, wav)`, viaOpenAi],
    ] as const) {
      let seconds = 0;
      let spoken = 0;
      let hypothesis = '';
      for (const [index, sentence] of sentences.entries()) {
        const wav = await render(sentence, path.join(dir, `${label.slice(5, 12).replace(/\W/g, '')}-${index}.wav`));
        seconds += (await durationAndF0(wav)).seconds;
        spoken += await speechSeconds(wav);
        hypothesis += ` ${await heard(wav)}`;
      }
      const { errors, words } = wordErrors(sentences.join(' '), hypothesis);
      rows.push([
        label,
        `${seconds.toFixed(2)} s`,
        `${referenceSeconds.toFixed(2)} s`,
        `${(seconds / referenceSeconds).toFixed(3)}×`,
        `${spoken.toFixed(2)} s`,
        `${referenceSpoken.toFixed(2)} s`,
        `${(spoken / referenceSpoken).toFixed(3)}×`,
        `${((100 * errors) / words).toFixed(1)} % (${errors}/${words})`,
        `${((100 * referenceErrors.errors) / referenceErrors.words).toFixed(1)} % (${referenceErrors.errors}/${referenceErrors.words})`,
      ]);
      console.log(rows.at(-1)!.join(' | '));
    }
    const header = [
      'through the service',
      'audio',
      'kokoro-onnx, same phonemes',
      'ratio',
      'speech (ends trimmed at -55 dBFS)',
      'kokoro-onnx speech',
      'ratio',
      'WER',
      'kokoro-onnx WER',
    ];
    console.log(`\n| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
    for (const row of rows) console.log(`| ${row.join(' | ')} |`);

    // First audio of a stream: three sentences, the first (~4 s of speech) rendered alone.
    const text = sentences.slice(0, 3).join(' ');
    python = spawn(PYTHON, ['-c', PY_SERVER, model, npz], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: python.stdout! })[Symbol.asyncIterator]();
    const next = async () => {
      const { value, done } = await lines.next();
      if (done) throw new Error('kokoro-onnx exited');
      return value as string;
    };
    if ((await next()) !== 'ready') throw new Error('kokoro-onnx did not start');
    const onnxFirst = async () => {
      python!.stdin!.write(`${JSON.stringify({ phonemes: phonemes[0] })}\n`);
      return JSON.parse(await next()) as { wall: number; seconds: number };
    };
    const streamFirstByte = async () => {
      const started = performance.now();
      const response = await speech(text, 'mp3');
      if (!response.ok) throw new Error(`speech answered ${response.status}: ${await response.text()}`);
      const reader = response.body!.getReader();
      let first = NaN;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (value.length && Number.isNaN(first)) first = (performance.now() - started) / 1000;
      }
      return first;
    };
    await streamFirstByte();
    await onnxFirst();
    const runs: Array<{ stream: number; onnx: number; seconds: number }> = [];
    for (let run = 0; run < LATENCY_RUNS; run++) {
      const stream = await streamFirstByte();
      const onnx = await onnxFirst();
      runs.push({ stream, onnx: onnx.wall, seconds: onnx.seconds });
      console.log(
        `run ${run + 1}: first byte ${(stream * 1000).toFixed(0)} ms, kokoro-onnx ${(onnx.wall * 1000).toFixed(0)} ms (${(stream / onnx.wall).toFixed(2)}×)`,
      );
    }
    const ratios = runs.map((run) => run.stream / run.onnx);
    console.log(
      `\nfirst sentence (${runs[0].seconds.toFixed(2)} s of audio from kokoro-onnx), ${LATENCY_RUNS} alternating runs, load average ${os.loadavg()[0].toFixed(1)}\n`,
    );
    console.log('| first audio | median | min | max |\n|---|---|---|---|');
    const line = (label: string, values: number[], unit: (value: number) => string) =>
      console.log(
        `| ${label} | ${unit(median(values))} | ${unit(Math.min(...values))} | ${unit(Math.max(...values))} |`,
      );
    const ms = (value: number) => `${(value * 1000).toFixed(0)} ms`;
    line(
      '/v1/audio/speech, mp3: first audio byte',
      runs.map((run) => run.stream),
      ms,
    );
    line(
      "kokoro-onnx create(), the first sentence's phonemes",
      runs.map((run) => run.onnx),
      ms,
    );
    line('ratio, run by run', ratios, (value) => `${value.toFixed(2)}×`);
  } finally {
    python?.stdin?.end();
    python?.kill();
    await stack.close();
  }
}

exitWhenDone(main());
