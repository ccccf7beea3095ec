import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CHUNK_CHARS } from '../activities/synthesis';
import { splitText } from '../engines/text';
import { PIPER_MAX_CALL_CHARS } from '../engines/piper';
import { findPiperModels } from '../engines/piper/models';
import { textToPhonemeIds } from '../engines/piper/phonemes';
import { PiperProcess } from '../engines/piper/pool';
import { defaultModelsDir } from '../lib/config';
import { longText } from './rss';
import { exitWhenDone } from './report';

/**
 * One Piper host's memory and CPU over the calls of a long text, the way the
 * service makes them (CHUNK_CHARS chunks, PIPER_MAX_CALL_CHARS calls), one
 * call at a time: RSS sampled every 50 ms (peak, after each call, at the
 * end), CPU seconds per audio second. PROBE_CHARS (5000), PROBE_TEXT (instead of
 * bench/rss.ts's text), PROBE_VOICE (joe).
 *
 *   npx tsx bench/piperMemory.ts
 */

const CHARS = Number(process.env.PROBE_CHARS ?? 5000);
const TICKS = 100;
const cpu = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const [utime, stime] = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 13)
    .map(Number);
  return (utime + stime) / TICKS;
};
const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function main() {
  const models = await findPiperModels(defaultModelsDir());
  const model =
    models.find((candidate) => candidate.name === (process.env.PROBE_VOICE ?? 'en_US-joe-medium')) ?? models[0];
  const calls: number[][][] = [];
  for (const chunk of splitText(process.env.PROBE_TEXT ?? longText(CHARS), CHUNK_CHARS)) {
    for (const piece of splitText(chunk, PIPER_MAX_CALL_CHARS))
      calls.push(await textToPhonemeIds(piece, { espeakVoice: model.espeakVoice, map: model.phonemeIdMap }));
  }
  const longest = Math.max(...calls.flat().map((ids) => ids.length));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'piper-memory-'));
  const host = new PiperProcess(model.modelPath);
  try {
    await host.synthesize({
      sentences: [[1, 2, 3, 4]],
      scales: [model.noiseScale, model.lengthScale, model.noiseW],
      sampleRate: model.sampleRate,
      outPath: path.join(dir, 'w.wav'),
      pauseSamples: 0,
    });
    const pid = host.pid!;
    const loaded = rssMiB(pid);
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 50);
    const cpuBefore = cpu(pid);
    const started = performance.now();
    let samples = 0;
    const after: number[] = [];
    for (const sentences of calls) {
      const result = await host.synthesize({
        sentences,
        scales: [model.noiseScale, model.lengthScale, model.noiseW],
        sampleRate: model.sampleRate,
        outPath: path.join(dir, 'w.wav'),
        pauseSamples: 0,
      });
      samples += result.samples;
      after.push(result.rss / 2 ** 20);
    }
    clearInterval(sampler);
    const audio = samples / model.sampleRate;
    const cpuSeconds = cpu(pid) - cpuBefore;
    console.log(
      JSON.stringify({
        calls: calls.length,
        longestIds: longest,
        audioSeconds: +audio.toFixed(1),
        wallSeconds: +((performance.now() - started) / 1000).toFixed(1),
        cpuPerAudioSecond: +(cpuSeconds / audio).toFixed(4),
        loadedMiB: Math.round(loaded),
        peakMiB: Math.round(peak),
        afterCallsMiB: { max: Math.round(Math.max(...after)), last: Math.round(after[after.length - 1]) },
      }),
    );
  } finally {
    host.kill();
    await rm(dir, { recursive: true, force: true });
  }
}

exitWhenDone(main());
