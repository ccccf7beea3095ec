import { median } from './dsp';
import { cepstrum, type SpeakerProfile } from './speaker';

/**
 * How close a rendering is to a sample, as the service reports it (0-1).
 *
 * Honest scope: these are acoustic measures (median pitch, long-term spectral
 * balance, speaking rate, the finer spectral envelope and the formant
 * spacing). Two different people with similar pitch and a similar
 * microphone can score high, and the same person through a different
 * microphone scores lower. It says how well the acoustic matching worked, not
 * that the clone "is" the speaker (docs/voicing.md: what the number means).
 */

export interface ProfileDistances {
  /** |median F0 difference|, semitones (12 when either side has no F0). */
  f0Semitones: number;
  /** RMS over the LTAS bands of the level-aligned difference (its mean removed), dB. */
  ltasDb: number;
  /** |log2 of the speaking-rate ratio| (0.5 = one is 1.41x faster; 0 when either is unknown). */
  rateLog2: number;
  /** Euclidean distance of the mean MFCC c1..c12 (not part of the score; for evaluation). */
  mfcc: number;
  /**
   * Euclidean distance of the mean MFCC c5..c12: the finer spectral envelope (formant pattern, timbre). c1..c4
   * follow the spectral tilt, which the LTAS term measures already and the clone's EQ moves.
   */
  mfccFine: number;
  /** |log2 of the formant-spacing ratio| (ΔF, vocal-tract length; 0 when either is unknown). The clones keep their base voice's. */
  formantSpacingLog2: number;
}

/**
 * Scales at which each distance alone brings the score to 1/e (~0.37), and
 * the weights of the three terms (they sum to 1).
 */
const SIMILARITY_SCALES = { f0Semitones: 4, ltasDb: 6, rateLog2: 0.5, mfccFine: 2, formantSpacingLog2: 0.1 } as const;
const SIMILARITY_WEIGHTS = {
  f0Semitones: 0.2,
  ltasDb: 0.4,
  rateLog2: 0.1,
  mfccFine: 0.15,
  formantSpacingLog2: 0.15,
} as const;

/**
 * A band this far under the sample's median band is outside its channel, and is not compared: a phone line leaves
 * 4-8 kHz 70-80 dB down, where a wideband recording of speech is 10-35 dB down. What the sample did not carry tells
 * nothing about the speaker; compared, it outweighs everything else (a phone-band copy of en-us-joe scored 0.2 against
 * en-us-joe itself, the level of two different people).
 */
export const OUT_OF_BAND_DB = 30;

/** Indices of the bands within OUT_OF_BAND_DB of the median band (levels in dB). */
function inBand(levelsDb: readonly number[]): number[] {
  const floor = median(levelsDb) - OUT_OF_BAND_DB;
  return levelsDb.flatMap((db, i) => (db > floor ? [i] : []));
}

const NEPERS_TO_DB = 10 / Math.LN10;

/**
 * The distances from a recording of the speaker (`a`, whose channel decides which bands count) to `b`. Where `a`
 * carries every band (any wideband recording), the distances are symmetric.
 */
export function profileDistances(a: SpeakerProfile, b: SpeakerProfile): ProfileDistances {
  const f0Semitones = a.f0MedianHz && b.f0MedianHz ? Math.abs(12 * Math.log2(a.f0MedianHz / b.f0MedianHz)) : 12;
  const differences = inBand(a.ltas.db).map((i) => a.ltas.db[i] - (b.ltas.db[i] ?? a.ltas.db[i]));
  const offset = differences.reduce((sum, d) => sum + d, 0) / Math.max(1, differences.length);
  const ltasDb = Math.sqrt(
    differences.reduce((sum, d) => sum + (d - offset) ** 2, 0) / Math.max(1, differences.length),
  );
  const rateLog2 =
    a.syllablesPerSecond && b.syllablesPerSecond ? Math.abs(Math.log2(a.syllablesPerSecond / b.syllablesPerSecond)) : 0;
  const distance = (x: readonly number[], y: readonly number[], from: number) =>
    Math.sqrt(x.slice(from).reduce((sum, c, i) => sum + (c - (y[from + i] ?? c)) ** 2, 0));
  const formantSpacingLog2 =
    a.formantSpacingHz && b.formantSpacingHz ? Math.abs(Math.log2(a.formantSpacingHz / b.formantSpacingHz)) : 0;
  return {
    f0Semitones,
    ltasDb,
    rateLog2,
    mfcc: distance(a.mfcc, b.mfcc, 0),
    mfccFine: distance(...inBandCepstra(a, b), 4),
    formantSpacingLog2,
  };
}

/** Both cepstra over the mel bands `a` carries (the stored MFCCs when a profile predates its mel powers). */
function inBandCepstra(a: SpeakerProfile, b: SpeakerProfile): [number[], number[]] {
  const [melA, melB] = [a.melLogPower, b.melLogPower];
  if (!melA || !melB || melA.length !== melB.length) return [a.mfcc, b.mfcc];
  const bands = inBand(melA.map((nepers) => nepers * NEPERS_TO_DB));
  if (bands.length === melA.length) return [a.mfcc, b.mfcc];
  const overBands = (mel: readonly number[]) =>
    cepstrum(
      bands.map((m) => mel[m]),
      a.mfcc.length,
    );
  return [overBands(melA), overBands(melB)];
}

/**
 * similarity = exp(−Σ weight·distance/scale) over five distances: median F0
 * (0.2, per 4 st), level-aligned LTAS (0.4, per 6 dB RMS), speaking rate
 * (0.1, per 0.5 in |log2 ratio|), the finer spectral envelope (mean MFCC
 * c5..c12, 0.15, per 2) and the formant spacing (0.15, per 0.1 in |log2
 * ratio|, ~7 %). 1 means identical measurements; it falls strictly as any
 * distance grows. Bands the sample's channel did not carry (OUT_OF_BAND_DB)
 * are left out; over a wideband sample it is symmetric in its arguments. What the number means,
 * measured on real speech (bench/speakers.ts: asterisk prompts of three
 * speakers and a LibriVox reader, 20 segments of ~6 s): two recordings of
 * the same person score 0.70 on average (9 in 10 pairs above 0.53), two
 * different people 0.39 (9 in 10 below 0.59); same-speaker pairs outscore
 * different-speaker pairs with ROC AUC 0.955 (0.921 with the F0/LTAS/rate
 * terms alone). The two identity terms (fine envelope, formant spacing) are
 * what a clone cannot move: its base voice keeps its formants.
 */
export function similarityScore(sample: SpeakerProfile, rendered: SpeakerProfile): number {
  const d = profileDistances(sample, rendered);
  const terms = Object.keys(SIMILARITY_WEIGHTS) as Array<keyof typeof SIMILARITY_WEIGHTS>;
  const exponent = terms.reduce((sum, term) => sum + (SIMILARITY_WEIGHTS[term] * d[term]) / SIMILARITY_SCALES[term], 0);
  return Number(Math.exp(-exponent).toFixed(4));
}
