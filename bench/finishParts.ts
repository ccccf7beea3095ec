import { mkdir, readdir, stat } from 'node:fs/promises';
import { cpus, homedir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { finishAudio, renderChunk, splitText, readWavSamples } from '../audio';
import { normalizeLoudness } from '../audio/loudness';
import { normalizeLoudnessInParallel } from '../audio/parallelLoudness';
import { ffmpeg, fileUrl } from '../audio/ffmpeg';
import { findPremadeVoice } from '../engines/catalog';
import { createEngines } from '../engines/registry';
import { CHUNK_CHARS } from '../activities/synthesis';
import { LONG_TEXT } from './goals';

/**
 * What a long text's finish costs, part by part, on real chunks (rendered once
 * into FINISH_DIR, default /tmp/finish-parts-<voice>): reading the chunks, the
 * loudness normalization (in one thread and over the cores; the cpu column
 * counts this process's threads), the whole finishAudio; for mp3, the encode and the true-peak decode.
 *
 * Run: npm run build && node dist/bench/finishParts.js   (LONG_VOICE, default en-us-slt)
 */
const VOICE = process.env.LONG_VOICE ?? 'en-us-slt';
const dir = process.env.FINISH_DIR ?? `/tmp/finish-parts-${VOICE}`;

const timed = async <T>(label: string, work: () => Promise<T> | T): Promise<T> => {
  // The event loop's longest stall: what holds up an activity's heartbeat timer in the worker.
  const stalls = monitorEventLoopDelay({ resolution: 5 });
  stalls.enable();
  // Its first tick only sets the clock it measures later ticks against: let it tick before the work.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await work();
  const used = process.cpuUsage(cpu);
  const wall = (performance.now() - started).toFixed(0).padStart(6);
  // A stall is recorded when the loop gets to the monitor's timer again: once more round the loop first.
  await new Promise((resolve) => setTimeout(resolve, 10));
  stalls.disable();
  process.stdout.write(
    `${label.padEnd(36)} ${wall} ms wall ${((used.user + used.system) / 1000).toFixed(0).padStart(6)} ms cpu (this process), event loop stalled up to ${(stalls.max / 1e6).toFixed(0)} ms\n`,
  );
  return result;
};

async function main() {
  await mkdir(dir, { recursive: true });
  const texts = splitText(LONG_TEXT, CHUNK_CHARS);
  const chunks = texts.map((_, index) => path.join(dir, `chunk-${String(index).padStart(4, '0')}.wav`));
  const have = new Set(await readdir(dir));
  if (chunks.some((chunk) => !have.has(path.basename(chunk)))) {
    const voice = findPremadeVoice(VOICE)!;
    const engines = createEngines({
      modelsDir: process.env.MODELS_DIR ?? path.join(homedir(), '.cache/openvox/models'),
    });
    for (const [index, text] of texts.entries())
      await timed(`render chunk ${index}`, () =>
        renderChunk({ voice, text, emotion: 'neutral', outPath: chunks[index], engines }),
      );
  }
  process.stdout.write(`${chunks.length} chunks, ${cpus().length} cpus\n`);
  const pieces = await timed('read chunks', () =>
    Promise.all(chunks.map(async (chunk) => (await readWavSamples(chunk)).samples)),
  );
  await timed('normalizeLoudness (one thread)', () => normalizeLoudness(pieces, 24000, -16, -1.5));
  await timed('normalizeLoudnessInParallel', () => normalizeLoudnessInParallel(pieces, 24000, -16, -1.5));
  for (const format of ['wav', 'mp3'] as const) {
    const outPath = path.join(dir, `out.${format}`);
    await timed(`finishAudio ${format}`, () =>
      finishAudio({ chunks, speed: 1, pitch: 0, emotion: 'neutral', format, outPath }),
    );
    process.stdout.write(`  ${(await stat(outPath)).size} bytes\n`);
  }
  await timed('ffmpeg wav -> mp3', () =>
    ffmpeg([
      '-i',
      fileUrl(path.join(dir, 'out.wav')),
      '-c:a',
      'libmp3lame',
      '-b:a',
      '64k',
      '-f',
      'mp3',
      fileUrl(path.join(dir, 'x.mp3')),
    ]),
  );
  await timed('ffmpeg ebur128 true peak of mp3', () =>
    ffmpeg([
      '-v',
      'info',
      '-i',
      fileUrl(path.join(dir, 'out.mp3')),
      '-af',
      'ebur128=peak=true:framelog=verbose',
      '-f',
      'null',
      '-',
    ]),
  );
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
