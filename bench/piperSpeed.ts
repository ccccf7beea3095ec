import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { speechBounds } from '../audio/pcm';
import { readWavSamples } from '../audio/wav';
import { findPiperModels } from '../engines/piper/models';
import { textToPhonemeIds } from '../engines/piper/phonemes';
import { PiperPool } from '../engines/piper/pool';
import { lengthScaleForRate } from '../engines/piper/speed';
import { defaultModelsDir } from '../lib/config';

/**
 * Measures how Piper's length_scale changes the duration of speech (silence
 * at the ends trimmed, as renderChunk trims it), without sampling noise, and
 * prints the rate -> length_scale table of engines/piper/speed.ts and how far
 * the current table is from 1/rate. Usage: npx tsx bench/piperSpeed.ts [voice]
 */

const SENTENCES = [
  'Hello, this is a short test of my voice.',
  'The quick brown fox jumps over the lazy dog, and then it runs away into the forest.',
  'Is it working? Yes! It works: really; truly, deeply.',
  'Numbers like 1,234 and 3.5 are read aloud by the engine.',
  'OpenVox renders neural speech offline; no network is needed at run time.',
  'She sells sea shells by the sea shore, while the waves keep rolling in.',
];
const SCALES = [
  0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2, 2.2,
  2.4, 2.6,
];
const RATES = [
  0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1, 1.05, 1.1, 1.15, 1.2, 1.25, 1.3, 1.4, 1.5, 1.6,
];

async function main() {
  const name = process.argv[2] ?? 'en_US-joe-medium';
  const model = (await findPiperModels(process.env.MODELS_DIR ?? defaultModelsDir())).find(
    (candidate) => candidate.name === name,
  );
  if (!model) throw new Error(`${name} not in MODELS_DIR`);
  const pool = new PiperPool();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-speed-'));
  const ids = await Promise.all(
    SENTENCES.map((text) => textToPhonemeIds(text, { espeakVoice: model.espeakVoice, map: model.phonemeIdMap })),
  );
  const duration = async (lengthScale: number) => {
    let seconds = 0;
    for (const [index, sentences] of ids.entries()) {
      const outPath = path.join(dir, `${index}.wav`);
      await pool.with(model.modelPath, (host) =>
        host.synthesize({
          sentences,
          scales: [0, lengthScale * model.lengthScale, 0],
          sampleRate: model.sampleRate,
          outPath,
          pauseSamples: 0,
        }),
      );
      const { samples, sampleRate } = await readWavSamples(outPath);
      const { start, end } = speechBounds(samples, sampleRate, -55, 0, 0);
      seconds += (end - start) / sampleRate;
    }
    return seconds;
  };
  try {
    const base = await duration(1);
    const curve: [number, number][] = [];
    for (const scale of SCALES) curve.push([scale, (await duration(scale)) / base]);
    console.log('length_scale -> duration ratio');
    for (const [scale, ratio] of curve) console.log(`  ${scale.toFixed(2)}  ${ratio.toFixed(3)}`);
    // Invert: the scale whose ratio is 1/rate, linear between measured points.
    const scaleFor = (target: number) => {
      for (let i = 1; i < curve.length; i++) {
        const [s0, r0] = curve[i - 1];
        const [s1, r1] = curve[i];
        if (target >= r0 && target <= r1) return s0 + ((target - r0) / (r1 - r0)) * (s1 - s0);
      }
      return NaN;
    };
    console.log('table (rate, length_scale):');
    console.log(RATES.map((rate) => `  [${rate}, ${scaleFor(1 / rate).toFixed(3)}],`).join('\n'));
    console.log('current table: rate -> duration x rate (1 = exact)');
    for (const rate of RATES) {
      const ratio = (await duration(lengthScaleForRate(rate))) / base;
      console.log(`  ${rate.toFixed(2)}  ${(ratio * rate).toFixed(3)}  (${((ratio * rate - 1) * 100).toFixed(1)} %)`);
    }
  } finally {
    pool.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
