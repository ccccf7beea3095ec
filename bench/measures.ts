import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { analyseAudio, decodeAudio } from '../audio/analysis';
import { ffmpeg, fileUrl } from '../audio/ffmpeg';
import { mfccFrames } from '../audio/cloning/mfcc';

/**
 * The objective measures of bench/quality.ts, each chosen because it can be
 * shipped here (no model weights) and read without a listening test:
 *
 * - MCD (mel-cepstral distortion, dB, after DTW alignment) against the raw
 *   engine rendering of the same text: the standard objective TTS measure
 *   (Kubichek 1993). It sees what a pitch shifter or a time stretch does to
 *   the spectral envelope (phasiness, smeared formants, lost highs) and
 *   ignores timing and F0, which DTW and the cepstrum (c1..c13, no c0) leave
 *   out. 0 = the engine's own sound; ~1 dB is hard to hear, 3-4 dB obvious.
 * - WER by pocketsphinx (Debian pocketsphinx + pocketsphinx-en-us, the
 *   default en-us acoustic and language model): intelligibility to a
 *   machine listener, on the same audio brought to the same loudness.
 * - Duration and F0 error against what was asked (1/speed, semitones).
 */

const run = promisify(execFile);

/** Mel-cepstral distortion in dB between two recordings after DTW alignment of their speech frames. */
export async function melCepstralDistortion(referencePath: string, testPath: string): Promise<number> {
  const [a, b] = await Promise.all(
    [referencePath, testPath].map(async (file) => mfccFrames((await decodeAudio(file)).samples, 16_000)),
  );
  return mcdFrames(a, b);
}

export function mcdFrames(a: Float64Array[], b: Float64Array[]): number {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return NaN;
  const distance = (i: number, j: number) => {
    let sum = 0;
    for (let c = 0; c < a[i].length; c++) sum += (a[i][c] - b[j][c]) ** 2;
    return Math.sqrt(2 * sum);
  };
  // Symmetric DTW with path length, two rows of cost.
  let previous = new Float64Array(m).fill(Infinity);
  let previousSteps = new Float64Array(m);
  for (let i = 0; i < n; i++) {
    const row = new Float64Array(m);
    const steps = new Float64Array(m);
    for (let j = 0; j < m; j++) {
      const d = distance(i, j);
      if (i === 0 && j === 0) {
        row[j] = d;
        steps[j] = 1;
        continue;
      }
      let best = Infinity;
      let bestSteps = 0;
      if (i > 0 && previous[j] < best) [best, bestSteps] = [previous[j], previousSteps[j]];
      if (j > 0 && row[j - 1] < best) [best, bestSteps] = [row[j - 1], steps[j - 1]];
      if (i > 0 && j > 0 && previous[j - 1] < best) [best, bestSteps] = [previous[j - 1], previousSteps[j - 1]];
      row[j] = best + d;
      steps[j] = bestSteps + 1;
    }
    previous = row;
    previousSteps = steps;
  }
  return (10 / Math.LN10) * (previous[m - 1] / previousSteps[m - 1]);
}

/** What pocketsphinx hears in a 16 kHz mono 16-bit WAV (null when pocketsphinx is not installed). */
export async function recognize(wavPath: string): Promise<string | null> {
  try {
    const { stdout } = await run('pocketsphinx_continuous', ['-infile', wavPath, '-logfn', '/dev/null'], {
      maxBuffer: 1 << 20,
    });
    return stdout.replace(/\s+/g, ' ').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** `input` through the ffmpeg filter graph `filter`, written to `outPath` as mono 16-bit WAV (resampled to `rate` Hz when given). */
export async function filterToWav(input: string, filter: string, outPath: string, rate?: number): Promise<string> {
  await ffmpeg([
    '-i',
    fileUrl(input),
    '-af',
    filter,
    ...(rate ? ['-ar', String(rate)] : []),
    '-ac',
    '1',
    '-c:a',
    'pcm_s16le',
    fileUrl(outPath),
  ]);
  return outPath;
}

/**
 * What pocketsphinx hears in a recording of any rate: brought to 16 kHz mono
 * with 0.3 s of silence before and after (written to `scratch`); null when
 * pocketsphinx is not installed.
 */
export async function hear(wavPath: string, scratch = `${wavPath}.16k.wav`): Promise<string | null> {
  return recognize(await filterToWav(wavPath, 'adelay=300,apad=pad_dur=0.3', scratch, 16_000));
}

export const words = (text: string): string[] =>
  text
    .toLowerCase()
    .replace(/[^a-z' ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);

/** Word errors (substitutions + deletions + insertions, Levenshtein over words) and the reference length. */
export function wordErrors(reference: string, hypothesis: string): { errors: number; words: number } {
  const r = words(reference);
  const h = words(hypothesis);
  let previous = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const row = [i];
    for (let j = 1; j <= h.length; j++)
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (r[i - 1] === h[j - 1] ? 0 : 1));
    previous = row;
  }
  return { errors: previous[h.length], words: r.length };
}

export async function durationAndF0(
  file: string,
): Promise<{ seconds: number; f0Hz: number | null; f0RangeSt: number | null; lufs: number }> {
  const analysis = await analyseAudio(file);
  const range = analysis.f0RangeSemitones;
  return {
    seconds: analysis.durationSeconds,
    f0Hz: analysis.f0MedianHz,
    f0RangeSt: range,
    lufs: analysis.integratedLufs,
  };
}
