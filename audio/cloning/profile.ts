import path from 'node:path';
import { availableVoices, type PremadeVoice } from '../../engines/catalog';
import type { EngineRegistry } from '../../engines/registry';
import { withTempDir } from '../../lib/process';
import { finishAudio, type VoiceProfileAdjustment } from '../finish';
import { SPEED_RANGE } from '../prosody';
import { applyVoicing, renderChunk, type RenderChunkInput } from '../render';
import { clamp, median, semitonesBetween, smooth } from './dsp';
import { similarityScore } from './similarity';
import { analyseSpeaker, type SpeakerProfile } from './speaker';
import { calibrationText, similarityText } from './texts';
import { mapLimit } from '../../lib/concurrency';

/**
 * Choosing and adjusting a premade base voice toward a sample: acoustic
 * matching, not neural cloning. The neural voices of the sample's language
 * (catalog `quality: 'neural'`: Piper voices, the operator's and any speaker
 * of a multi-speaker model the catalog lists) are the candidates first; the
 * classic voices only when none is installed, or when the best neural fit
 * measures below NEURAL_FLOOR on both texts (then both compete on merit). Within a tier the
 * voices render a calibration text; the finalists (neural: the closest by
 * similarity of their plain rendering; classic: catalog gender first, then
 * closest in F0) are each pitch-shifted to the sample's median F0 (formants
 * preserved), equalized toward its long-term spectrum (the residual after one
 * pass is added once) and time-stretched toward its speaking rate, and read
 * the language's test sentence, which the fit never saw: one finished stage
 * each, scored on both texts (or the plain voice's score, when that is
 * closer). The leading STAGED_CANDIDATES of them are then tried with their
 * cheaper stages too (without the tempo, pitch only, plain): a stage that
 * does not bring the voice closer to the sample is dropped. The candidate
 * that measures closest on both texts wins (trying the candidates beat
 * picking the base by F0 alone, see DESIGN.md), and its test-sentence
 * similarity is the one stored.
 */

export interface ClonedVoiceProfile {
  baseVoiceId: string;
  /** Pitch shift (formants preserved) from the base voice to the sample's median F0, ±12. */
  semitones: number;
  /** finishAudio's EQ points: the smoothed LTAS difference, gains relative to the median band, +12/-24 dB caps. */
  eq: Array<{ hz: number; gainDb: number }>;
  /** Tempo multiplier toward the sample's speaking rate (0.7-1.4), applied on top of the request's speed. */
  rate: number;
  /** similarityScore(sample, adjusted test rendering), 0-1. */
  similarity: number;
  /**
   * Every finalist, best first by merit (similarity on the test sentence plus similarity on the calibration
   * text the adjustment was fitted on), for logs and the voice's diagnostics.
   */
  tried: Array<{ voiceId: string; similarity: number; fitSimilarity: number; semitones: number; rate: number }>;
}

type RenderFunction = (input: RenderChunkInput) => Promise<unknown>;

export interface BuildVoiceProfileInput {
  sample: SpeakerProfile;
  /** BCP 47 language of the clone; candidates share its primary subtag (en-US voices when none do). */
  language: string;
  /** The voices to choose from; default: baseVoiceCandidates (neural voices included). */
  candidates?: readonly PremadeVoice[];
  /** MODELS_DIR: the operator's Piper voices join the candidates. */
  modelsDir?: string;
  /** Renders one chunk (default renderChunk with `engines`). */
  render?: RenderFunction;
  /** The worker's engine registry (non-free engines only when the operator enabled them). */
  engines?: EngineRegistry;
  /** How many base voices of a tier get the full adjusted test (~1 s each). Default 4. */
  maxCandidates?: number;
  /** How many of them, best first by their single-stage score, are tried stage by stage. Default STAGED_CANDIDATES. */
  stagedCandidates?: number;
  /**
   * The best neural fit's similarity (mean of test sentence and calibration text) under which the classic voices are fitted too (default
   * NEURAL_FLOOR); 0: neural voices only when there are any, Infinity: every voice always competes.
   */
  neuralFloor?: number;
  signal?: AbortSignal;
}

export const EQ_MAX_BOOST_DB = 12;
export const EQ_MAX_CUT_DB = -24;
const MAX_SEMITONES = 12;
export const RATE_RANGE = { min: 0.7, max: 1.4 } as const;

/**
 * How many base voices get the stage-by-stage fit after the single-stage score
 * ranked them: the winner and the runner-up (bench/cloneCost.ts: same base
 * voice and similarity as staging all four, in about half the time).
 */
export const STAGED_CANDIDATES = 2;

/**
 * A neural fit whose similarity, the mean over the test sentence and the
 * calibration text (one short sentence alone varies by ±0.05 between Piper
 * renderings, its sampling noise), is at least this is kept without trying
 * the classic voices: below ~0.45 two recordings are probably different
 * speakers, and from there to ~0.6 the score cannot tell (docs/voicing.md), so
 * a classic fit scoring up to ~0.15 higher would not be measurably closer to
 * the person, only less natural. Under it (a female sample on the male Piper
 * voice: +12 st, ~0.3) the classic voices are fitted too and the best on
 * merit wins.
 */
export const NEURAL_FLOOR = 0.45;

/** How many neural voices (speakers of a multi-speaker model each count) render the calibration text, in catalog order. */
const MAX_NEURAL_RENDERS = 12;

/** Below this median F0 the sample is treated as a low (typically male) voice when pre-ranking by catalog gender. */
const LOW_VOICE_HZ = 165;

/**
 * The premade voices a clone of `language` may be built on: every voice this
 * worker renders (the neural Piper voices, the operator's included, and the
 * classic ones) of the clone's language, in catalog order.
 */
export async function baseVoiceCandidates({
  engines,
  modelsDir,
  language,
}: {
  engines?: EngineRegistry;
  modelsDir?: string;
  language: string;
}): Promise<PremadeVoice[]> {
  return sameLanguage(await availableVoices({ engines, modelsDir }), language);
}

const isNeural = (voice: PremadeVoice) => voice.quality === 'neural';

export async function buildVoiceProfile(input: BuildVoiceProfileInput): Promise<ClonedVoiceProfile> {
  const { language, engines } = input;
  const render: RenderFunction =
    input.render ?? ((chunk) => renderChunk({ ...chunk, engines: chunk.engines ?? engines }));
  const pool = input.candidates
    ? sameLanguage(input.candidates, language)
    : await baseVoiceCandidates({ engines, modelsDir: input.modelsDir, language });
  if (pool.length === 0) throw new Error(`no base voice available for ${language}`);
  const neural = pool.filter(isNeural);
  const classic = pool.filter((voice) => !isNeural(voice));
  const floor = input.neuralFloor ?? NEURAL_FLOOR;

  return withTempDir(async (dir) => {
    const fit = (voices: PremadeVoice[], tier: 'neural' | 'classic') =>
      fitTier({ ...input, render, voices, tier, dir });
    // Neural voices first: the most natural base; a classic voice only when none renders or the best neural fit is too far.
    let results = neural.length > 0 ? await fit(neural, 'neural') : [];
    if (results.length === 0 || merit(results[0]) / 2 < floor)
      results = [...results, ...(classic.length > 0 ? await fit(classic, 'classic') : [])];
    if (results.length === 0) throw new Error(`no base voice for ${language} could be adjusted toward the sample`);
    results.sort((a, b) => merit(b) - merit(a));
    const best = results[0];
    return {
      baseVoiceId: best.voice.id,
      semitones: best.semitones,
      eq: best.eq,
      rate: best.rate,
      similarity: best.similarity,
      tried: results.map(({ voice, similarity, fitSimilarity, semitones, rate }) => ({
        voiceId: voice.id,
        similarity,
        fitSimilarity,
        semitones,
        rate,
      })),
    };
  });
}

// Chosen on both texts: the fit alone favours whatever the EQ could bend furthest on text it was fitted to.
const merit = (result: { similarity: number; fitSimilarity: number }) => result.similarity + result.fitSimilarity;

interface Scored extends Adjustment {
  voice: PremadeVoice;
  similarity: number;
  fitSimilarity: number;
}

/**
 * One tier's fits, best first by merit (empty when none of its voices rendered). Neural finalists are the
 * closest by similarity of their plain calibration rendering (speakers of one model differ in more than F0);
 * classic ones are ranked by catalog gender for rendering, then by F0 distance.
 */
async function fitTier(
  input: BuildVoiceProfileInput & {
    render: RenderFunction;
    voices: PremadeVoice[];
    tier: 'neural' | 'classic';
    dir: string;
  },
): Promise<Scored[]> {
  const { sample, language, signal, render, voices, tier } = input;
  const maxCandidates = input.maxCandidates ?? 4;
  const stagedCandidates = input.stagedCandidates ?? STAGED_CANDIDATES;
  const fitText = calibrationText(language);
  const testText = similarityText(language);
  const sampleF0 = sample.f0MedianHz;
  const file = (name: string) => path.join(input.dir, `${tier}-${name}`);

  // Gender from the catalog narrows the pool before rendering; the measured plain rendering picks the finalists.
  const wantMale = sampleF0 !== null && sampleF0 < LOW_VOICE_HZ;
  const ranked = [...voices].sort(
    (a, b) => Number((b.gender === 'male') === wantMale) - Number((a.gender === 'male') === wantMale),
  );
  const rendered = await mapLimit(
    ranked.slice(0, tier === 'neural' ? MAX_NEURAL_RENDERS : maxCandidates + 2),
    2,
    async (voice, index) => {
      const fitChunk = file(`${index}-fit.wav`);
      try {
        await render({ voice, text: fitText, emotion: 'neutral', outPath: fitChunk, signal });
        return { voice, index, fitChunk, plain: await analyseSpeaker(fitChunk, signal) };
      } catch (error) {
        if (signal?.aborted) throw error;
        return null; // a broken engine or voice: try the others
      }
    },
  );
  const usable = rendered.filter(
    (entry): entry is NonNullable<typeof entry> => entry !== null && entry.plain.f0MedianHz !== null,
  );
  const f0Distance = (f0: number | null) => (sampleF0 && f0 ? Math.abs(semitonesBetween(sampleF0, f0)) : 0);
  if (tier === 'neural') usable.sort((a, b) => similarityScore(sample, b.plain) - similarityScore(sample, a.plain));
  else usable.sort((a, b) => f0Distance(a.plain.f0MedianHz) - f0Distance(b.plain.f0MedianHz));

  // A stage's score: the adjusted calibration text and the adjusted test sentence, finished like a synthesis.
  const scoreStage = async (
    { voice, index, fitChunk, testChunk }: Finalist,
    stage: number,
    candidate: Adjustment,
  ): Promise<Scored> => {
    const fitStageOut = file(`${index}-fit-${stage}.wav`);
    const testOut = file(`${index}-test-${stage}.wav`);
    await finish(fitChunk, candidate, fitStageOut, signal);
    await finish(testChunk, candidate, testOut, signal);
    // The stored similarity: the test sentence, which the fit never saw.
    const [fitProfile, tested] = [await analyseSpeaker(fitStageOut, signal), await analyseSpeaker(testOut, signal)];
    return {
      voice,
      ...candidate,
      fitSimilarity: similarityScore(sample, fitProfile),
      similarity: similarityScore(sample, tested),
    };
  };

  // One cheap score per finalist: the full adjustment (one finished stage) or the plain voice (its renderings as they are), whichever is closer.
  const single = await mapLimit(usable.slice(0, maxCandidates), 2, async ({ voice, index, fitChunk, plain }) => {
    try {
      const adjustment = adjustmentToward(sample, plain);
      // The adjusted calibration rendering, measured again: its remaining spectral difference is added to the EQ once.
      const fitOut = file(`${index}-fit-adjusted.wav`);
      await finish(fitChunk, adjustment, fitOut, signal);
      const fitted = await analyseSpeaker(fitOut, signal);
      const refined = { ...adjustment, eq: refineEq(adjustment.eq, eqCurve(sample, fitted)) };
      const testChunk = file(`${index}-test.wav`);
      await render({ voice, text: testText, emotion: 'neutral', outPath: testChunk, signal });
      const finalist: Finalist = { voice, index, fitChunk, testChunk };
      const full = await scoreStage(finalist, 0, refined);
      const plainMerit =
        similarityScore(sample, plain) + similarityScore(sample, await analyseSpeaker(testChunk, signal));
      return { finalist, refined, best: full, cheapMerit: Math.max(merit(full), plainMerit) };
    } catch (error) {
      if (signal?.aborted) throw error;
      return null;
    }
  });
  const leading = single
    .filter((entry): entry is NonNullable<typeof entry> => entry !== null)
    .sort((a, b) => b.cheapMerit - a.cheapMerit);
  // Each stage must earn its place, for the leading base voices only (every stage costs two finished renderings and
  // two analyses): an EQ or a tempo that measures further from the sample than the voice without it costs sound for
  // nothing (Allison: slt plain 0.61 on held-out speech, slt with pitch, EQ and tempo 0.40).
  const evaluated = await mapLimit(leading, 2, async (entry, position): Promise<Scored> => {
    if (position >= stagedCandidates) return entry.best;
    try {
      const { refined, finalist } = entry;
      const cheaper: Adjustment[] = [
        { ...refined, rate: 1 },
        { semitones: refined.semitones, eq: [], rate: 1 },
        { semitones: 0, eq: [], rate: 1 },
      ];
      const scored = [entry.best];
      for (const [stage, candidate] of cheaper.entries()) scored.push(await scoreStage(finalist, stage + 1, candidate));
      return scored.sort((a, b) => merit(b) - merit(a))[0];
    } catch (error) {
      if (signal?.aborted) throw error;
      return entry.best;
    }
  });
  return evaluated.sort((a, b) => merit(b) - merit(a));
}

/** A plain rendering with an adjustment applied, finished like a synthesis with that clone would be. */
async function finish(
  chunkPath: string,
  adjustment: Adjustment,
  outPath: string,
  signal?: AbortSignal,
): Promise<unknown> {
  const voicing = {
    speed: adjustment.rate,
    pitch: 0,
    emotion: 'neutral' as const,
    profile: { semitones: adjustment.semitones, eq: adjustment.eq },
  };
  const voiced = `${outPath}.voiced.wav`;
  await applyVoicing(chunkPath, voicing, voiced, signal);
  return finishAudio({ chunks: [voiced], ...voicing, format: 'wav', outPath, signal });
}

interface Finalist {
  voice: PremadeVoice;
  index: number;
  fitChunk: string;
  testChunk: string;
}

type Adjustment = { semitones: number; eq: ClonedVoiceProfile['eq']; rate: number };

/** The EQ plus the residual difference measured after applying it, within the same caps. */
export function refineEq(eq: ClonedVoiceProfile['eq'], residual: ClonedVoiceProfile['eq']): ClonedVoiceProfile['eq'] {
  return eq.map(({ hz, gainDb }, i) => ({
    hz,
    gainDb: Number(clamp(gainDb + (residual[i]?.gainDb ?? 0), EQ_MAX_CUT_DB, EQ_MAX_BOOST_DB).toFixed(2)),
  }));
}

/** Pitch shift, EQ curve and tempo that move a base rendering's profile toward the sample's. */
function adjustmentToward(sample: SpeakerProfile, base: SpeakerProfile): Adjustment {
  const semitones =
    sample.f0MedianHz && base.f0MedianHz
      ? clamp(semitonesBetween(base.f0MedianHz, sample.f0MedianHz), -MAX_SEMITONES, MAX_SEMITONES)
      : 0;
  const rate =
    sample.syllablesPerSecond && base.syllablesPerSecond
      ? clamp(sample.syllablesPerSecond / base.syllablesPerSecond, RATE_RANGE.min, RATE_RANGE.max)
      : 1;
  return { semitones: Number(semitones.toFixed(2)), eq: eqCurve(sample, base), rate: Number(rate.toFixed(3)) };
}

/**
 * The EQ toward `target`'s long-term spectrum: the per-band difference,
 * smoothed over neighbouring bands, relative to its median band (so the
 * overall level is loudnorm's business), boosts capped at +12 dB (an EQ
 * cannot restore what the base voice lacks) and cuts at -24 dB.
 */
export function eqCurve(target: SpeakerProfile, current: SpeakerProfile): Array<{ hz: number; gainDb: number }> {
  const difference = smooth(
    target.ltas.db.map((db, i) => db - current.ltas.db[i]),
    1,
  );
  const reference = median(difference);
  return target.ltas.hz.map((hz, i) => ({
    hz,
    gainDb: Number(clamp(difference[i] - reference, EQ_MAX_CUT_DB, EQ_MAX_BOOST_DB).toFixed(2)),
  }));
}

/** finishAudio's speed and profile for a synthesis with a cloned voice (the clone's rate times the request's speed, within 0.5-2). */
export function cloneFinishOptions(
  clone: Pick<ClonedVoiceProfile, 'semitones' | 'eq' | 'rate'>,
  requestSpeed = 1,
): { speed: number; profile: VoiceProfileAdjustment } {
  return {
    speed: clamp(requestSpeed * clone.rate, SPEED_RANGE.min, SPEED_RANGE.max),
    profile: { semitones: clone.semitones, eq: clone.eq },
  };
}

/** Voices of the language's primary subtag, or the en-US ones when it has none. */
function sameLanguage(voices: readonly PremadeVoice[], language: string): PremadeVoice[] {
  const primary = (tag: string) => tag.split('-')[0].toLowerCase();
  const matching = voices.filter((voice) => primary(voice.language) === primary(language));
  return matching.length > 0 ? matching : voices.filter((voice) => voice.language === 'en-US');
}
