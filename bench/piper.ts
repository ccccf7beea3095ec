import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { splitText } from '../engines/text';
import { PIPER_MAX_CALL_CHARS } from '../engines/piper';
import { findPiperModels, type PiperModel } from '../engines/piper/models';
import { textToPhonemeIds } from '../engines/piper/phonemes';
import { PiperPool } from '../engines/piper/pool';
import { defaultModelsDir } from '../lib/config';

/**
 * The piper engine against raw ONNX Runtime inference, in one run, on the
 * joe voice (or argv[2]): RTF (audio seconds per wall second), CPU seconds
 * per audio second, RSS, and the time to the first audio.
 *
 * - raw: one InferenceSession in this process, one intra-op thread, the
 *   phoneme ids computed beforehand: what piper-tts does per sentence.
 * - engine: the service's path: espeak-ng phonemes, a kept host process
 *   (engines/piper/pool.ts), a WAV written; CPU counts the host and espeak-ng.
 *
 * Usage: npm run bench:piper [-- voice]
 */

const TEXTS: Record<string, string> = {
  'sentence (100 chars)':
    'The quick brown fox jumps over the lazy dog, and then it runs back home again to rest a while.',
  'chunk (400 chars)':
    'Speech synthesis turns written words into sound for every listener. A neural voice learns its timing and tone from hours of recordings, ' +
    'so it pauses where a reader would pause and rises at the end of a question. Does it always get it right? Not quite: numbers like 1,234 ' +
    'and names from other languages still trip it up, but it sounds far less robotic than the classic engines.',
};
const RUNS = 3;

const TICKS = 100;
function cpuSeconds(pid: number | 'self'): { own: number; children: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
  return { own: (utime + stime) / TICKS, children: (cutime + cstime) / TICKS };
}
function rssMiB(pid: number | 'self'): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

interface Row {
  path: string;
  text: string;
  audio: number;
  wall: number;
  cpu: number;
  first: number;
  rss: number;
}

async function phonemeIds(model: PiperModel, text: string): Promise<number[][]> {
  const sentences: number[][] = [];
  for (const piece of splitText(text, PIPER_MAX_CALL_CHARS))
    sentences.push(...(await textToPhonemeIds(piece, { espeakVoice: model.espeakVoice, map: model.phonemeIdMap })));
  return sentences;
}

async function raw(model: PiperModel, rows: Row[]): Promise<{ loadSeconds: number }> {
  const ort = await import('onnxruntime-node');
  const loadStarted = performance.now();
  const session = await ort.InferenceSession.create(model.modelPath, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  for (const [name, text] of Object.entries(TEXTS)) {
    const sentences = await phonemeIds(model, text);
    for (let run = 0; run < RUNS; run++) {
      const cpuBefore = cpuSeconds('self').own;
      const started = performance.now();
      let first = 0;
      let samples = 0;
      for (const ids of sentences) {
        const results = await session.run({
          input: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
          input_lengths: new ort.Tensor('int64', BigInt64Array.from([BigInt(ids.length)]), [1]),
          scales: new ort.Tensor(
            'float32',
            Float32Array.from([model.noiseScale, model.lengthScale, model.noiseW]),
            [3],
          ),
        });
        samples += results[session.outputNames[0]].size;
        if (!first) first = performance.now() - started;
      }
      const wall = (performance.now() - started) / 1000;
      rows.push({
        path: 'raw ORT',
        text: name,
        audio: samples / model.sampleRate,
        wall,
        cpu: cpuSeconds('self').own - cpuBefore,
        first: first / 1000,
        rss: rssMiB('self').rss,
      });
    }
  }
  await session.release();
  return { loadSeconds };
}

async function engine(
  model: PiperModel,
  rows: Row[],
  dir: string,
): Promise<{ coldFirst: number; hostRss: number; hostPeak: number }> {
  const pool = new PiperPool();
  let coldFirst = 0;
  let hostRss = 0;
  let hostPeak = 0;
  try {
    let index = 0;
    for (const [name, text] of Object.entries(TEXTS)) {
      for (let run = 0; run < RUNS; run++) {
        const selfBefore = cpuSeconds('self');
        const started = performance.now();
        const sentences = await phonemeIds(model, text);
        const phonemized = performance.now() - started;
        const outPath = path.join(dir, `${index++}.wav`);
        let hostCpu = 0;
        const result = await pool.with(model.modelPath, async (host) => {
          const before = cpuSeconds(host.pid!).own;
          const reply = await host.synthesize({
            sentences,
            scales: [model.noiseScale, model.lengthScale, model.noiseW],
            sampleRate: model.sampleRate,
            outPath,
            pauseSamples: 0,
          });
          hostCpu = cpuSeconds(host.pid!).own - before;
          ({ rss: hostRss, peak: hostPeak } = rssMiB(host.pid!));
          return reply;
        });
        const wall = (performance.now() - started) / 1000;
        const selfAfter = cpuSeconds('self');
        // This process's own CPU (phonemes in, WAV path out) and its waited children (espeak-ng).
        const cpu = hostCpu + (selfAfter.own - selfBefore.own) + (selfAfter.children - selfBefore.children);
        // The first sentence's audio exists once the phonemes are made and the host ran that sentence.
        const first = (phonemized + result.firstMs) / 1000;
        if (index === 1) coldFirst = wall;
        rows.push({
          path: index === 1 ? 'engine (cold)' : 'engine',
          text: name,
          audio: result.samples / model.sampleRate,
          wall,
          cpu,
          first,
          rss: hostRss,
        });
      }
    }
  } finally {
    pool.close();
  }
  return { coldFirst, hostRss, hostPeak };
}

async function main() {
  const name = process.argv[2] ?? 'en_US-joe-medium';
  const model = (await findPiperModels(process.env.MODELS_DIR ?? defaultModelsDir())).find(
    (candidate) => candidate.name === name,
  );
  if (!model) throw new Error(`${name} is not in MODELS_DIR (scripts/install.sh puts en_US-joe-medium there)`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-bench-piper-'));
  const rows: Row[] = [];
  try {
    const { coldFirst, hostRss, hostPeak } = await engine(model, rows, dir);
    const rssBeforeRaw = rssMiB('self').rss;
    const { loadSeconds } = await raw(model, rows);
    console.log(
      `voice ${model.name}, ${os.cpus().length} cores, ${RUNS} runs per text; noise on (the service's settings)`,
    );
    console.log(
      'path           text                   audio s  wall s   RTF(x)  CPU s/audio s  first audio s  RSS MiB',
    );
    for (const row of rows) {
      console.log(
        `${row.path.padEnd(14)} ${row.text.padEnd(22)} ${row.audio.toFixed(2).padStart(7)} ${row.wall.toFixed(3).padStart(7)} ${(row.audio / row.wall).toFixed(1).padStart(8)} ${(row.cpu / row.audio).toFixed(3).padStart(14)} ${row.first.toFixed(3).padStart(14)} ${row.rss.toFixed(0).padStart(8)}`,
      );
    }
    const summary = (label: string, pick: (row: Row) => boolean) => {
      const chosen = rows.filter(pick);
      const audio = chosen.reduce((sum, row) => sum + row.audio, 0);
      const wall = chosen.reduce((sum, row) => sum + row.wall, 0);
      const cpu = chosen.reduce((sum, row) => sum + row.cpu, 0);
      console.log(
        `${label.padEnd(8)} RTF ${(audio / wall).toFixed(1)}x real time (wall/audio ${(wall / audio).toFixed(3)}), CPU ${(cpu / audio).toFixed(3)} s per audio s`,
      );
    };
    console.log('warm totals:');
    summary('engine', (row) => row.path === 'engine');
    summary('raw', (row) => row.path === 'raw ORT');
    console.log(
      `engine host process RSS ${hostRss.toFixed(0)} MiB (peak ${hostPeak.toFixed(0)} MiB); raw in-process session added ${(rows.at(-1)!.rss - rssBeforeRaw).toFixed(0)} MiB to this process`,
    );
    console.log(
      `cold start (new host process, session load, first request): ${coldFirst.toFixed(2)} s; raw session load ${loadSeconds.toFixed(2)} s`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
