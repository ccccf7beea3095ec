import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { renderChunk } from '../audio';
import { wavSamplesOf } from '../audio/wav';
import { findPremadeVoice } from '../engines/catalog';
import { createEngines } from '../engines/registry';
import { joinSentences } from '../api/routes/openai/stream';
import { TRAIN_SENTENCES } from './texts';

/**
 * What the OpenAI stream's per-sentence work costs in the API: each stored
 * sentence (rendered once with the voice into STREAM_JOIN_DIR, default
 * /tmp/stream-join-<voice>) read from its WAV bytes as the API gets them,
 * brought to the emotion's loudness with its peaks limited and turned into
 * PCM bytes (`joinSentences`), ROUNDS times over every sentence: CPU, wall,
 * bytes of typed arrays allocated (heap growth between collections is not
 * counted; `--expose-gc` lets it collect before each run) and the time the
 * collector took in that run.
 *
 * Run: npm run build && node --expose-gc dist/bench/streamJoin.js   (STREAM_JOIN_VOICE, default en-us-joe; ROUNDS, default 20)
 */
const VOICE = process.env.STREAM_JOIN_VOICE ?? 'en-us-joe';
const ROUNDS = Number(process.env.ROUNDS ?? 20);
const dir = process.env.STREAM_JOIN_DIR ?? `/tmp/stream-join-${VOICE}`;

async function sentences(): Promise<Buffer[]> {
  await mkdir(dir, { recursive: true });
  const files = TRAIN_SENTENCES.map((_, index) => path.join(dir, `sentence-${String(index).padStart(3, '0')}.wav`));
  const have = new Set(await readdir(dir));
  if (files.some((file) => !have.has(path.basename(file)))) {
    const voice = findPremadeVoice(VOICE)!;
    const engines = createEngines({
      modelsDir: process.env.MODELS_DIR ?? path.join(homedir(), '.cache/openvox/models'),
    });
    for (const [index, text] of TRAIN_SENTENCES.entries())
      await renderChunk({ voice, text, emotion: 'neutral', outPath: files[index], engines });
  }
  return Promise.all(files.map((file) => readFile(file)));
}

async function main() {
  const wavs = await sentences();
  const seconds = wavs.reduce((sum, wav) => sum + wavSamplesOf(wav).samples.length / 24_000, 0);
  process.stdout.write(`${wavs.length} sentences, ${seconds.toFixed(1)} s of audio, ${ROUNDS} rounds\n`);
  let gcMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  });
  observer.observe({ entryTypes: ['gc'] });
  const collect = (globalThis as { gc?: () => void }).gc;
  for (let run = 0; run < 3; run++) {
    collect?.();
    await new Promise((resolve) => setTimeout(resolve, 20));
    gcMs = 0;
    const before = process.memoryUsage().arrayBuffers;
    let peakBuffers = before;
    const cpu = process.cpuUsage();
    const started = performance.now();
    let bytesOut = 0;
    const digest = createHash('md5');
    for (let round = 0; round < ROUNDS; round++) {
      const join = joinSentences('neutral', 1);
      for (const wav of wavs) {
        // The API reads the object as one Buffer per sentence: a copy, as Buffer.concat of its pieces makes.
        const samples = wavSamplesOf(Buffer.concat([wav.subarray(0, 1000), wav.subarray(1000)]), 'sentence').samples;
        for (const pcm of join(samples)) {
          bytesOut += pcm.length;
          if (round === 0) digest.update(pcm);
        }
        peakBuffers = Math.max(peakBuffers, process.memoryUsage().arrayBuffers);
      }
    }
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const per = wavs.length * ROUNDS;
    process.stdout.write(
      `run ${run}: ${((used.user + used.system) / 1000 / per).toFixed(2)} ms cpu per sentence, ${(wall / per).toFixed(2)} ms wall, ` +
        `gc ${(gcMs / per).toFixed(2)} ms per sentence, array buffers peak +${((peakBuffers - before) / 2 ** 20).toFixed(1)} MiB, ${bytesOut} bytes out, md5 of a round ${digest.digest('hex')}\n`,
    );
  }
  observer.disconnect();
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
