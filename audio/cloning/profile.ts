import path from 'node:path';
import { availableVoices, type PremadeVoice } from '../../engines/catalog';
import type { EngineRegistry } from '../../engines/registry';
import { withTempDir } from '../../lib/process';
import { finishAudio, type VoiceProfileAdjustment } from '../finish';
import { SPEED_RANGE } from '../prosody';
import { applyVoicing, renderChunk, type RenderChunkInput } from '../render';
import { clamp, median, semitonesBetween, smooth } from './dsp';
import { analyseSampleHalves } from './split';
import { similarityScore } from './similarity';
import { analyseSpeaker, type SpeakerProfile } from './speaker';
import { calibrationText, similarityText } from './texts';
import { mapLimit } from '../../lib/concurrency';

/**
 * Choosing and adjusting a premade base voice toward a sample: acoustic
 * matching, not neural cloning. Everything is decided on held-out speech:
 * the sample is split in two (split.ts: interleaved blocks); the adjustment
 * is fitted on one half (`sample`) and every candidate is scored on the
 * other (`heldOut`), reading a text the fit never saw (texts.ts).
 *
 * Candidates: every voice of the language read plain (the neural ones, up
 * to MAX_NEURAL_RENDERS, and every classic one), so the unmodified premade
 * voices always stay in the race and a clone never ships scoring below the
 * closest of them; and the adjusted finalists. The neural voices closest to
 * the fit half when read plain (up to `maxCandidates`) are fitted: each
 * reads the calibration text, is pitch-shifted to the fit half's median F0
 * (formants preserved), equalized toward its long-term spectrum without
 * copying a band limit (eqLimits: the base voice's intelligibility, which
 * the score does not see; the residual after one pass is added once) and
 * time-stretched toward its speaking rate. The classic voices closest to the
 * fit half are fitted the same way when no neural voice renders, when the
 * best neural candidate scores under `neuralFloor`, or when a classic voice
 * read plain already beats every neural candidate. The leading STAGED_CANDIDATES fits are also
 * tried with their cheaper stages (without the tempo, pitch only): a stage
 * that does not bring the voice closer to the held-out half is dropped. The
 * candidate with the highest held-out score wins, except that an adjusted
 * voice must beat the closest premade voice read plain by ADJUSTMENT_MARGIN
 * (processing costs sound; a smaller gain is not measurable), and the
 * winner's held-out score is the similarity stored. When the winner
 * is a premade voice unchanged, `closestPremade` names it: the voice is then
 * that premade voice, not an adjustment of it toward the speaker.
 */

export interface ClonedVoiceProfile {
  baseVoiceId: string;
  /** Pitch shift (formants preserved) from the base voice to the sample's median F0, ±12. */
  semitones: number;
  /** finishAudio's EQ points: the smoothed LTAS difference, gains relative to the median band, within eqLimits. */
  eq: Array<{ hz: number; gainDb: number }>;
  /** Tempo multiplier toward the sample's speaking rate (0.7-1.4), applied on top of the request's speed. */
  rate: number;
  /** The held-out score of the chosen candidate: similarityScore(held-out half of the sample, the voice reading the held-out text), 0-1. */
  similarity: number;
  /** The base voice's id when the closest candidate was that premade voice unchanged (no pitch, EQ or tempo); null for an adjusted voice. */
  closestPremade: string | null;
  /** The closest premade voice read plain and its held-out score: what the chosen voice had to reach. */
  bestPremade: { voiceId: string; similarity: number };
  /** Every candidate scored, best first by held-out score (the chosen one may be a plain voice within ADJUSTMENT_MARGIN of the first), for logs and the voice's diagnostics. */
  tried: Array<{ voiceId: string; stage: Stage; similarity: number; semitones: number; rate: number }>;
}

/** What a candidate is: a premade voice read plain, or adjusted (all stages, without the tempo, EQ only, pitch only). */
export type Stage = 'plain' | 'full' | 'no tempo' | 'eq only' | 'pitch only';

export type RenderFunction = (input: RenderChunkInput) => Promise<unknown>;

export interface BuildVoiceProfileInput {
  /** What the adjustment is fitted on: the fit half of the sample (analyseSampleHalves), or a whole sample. */
  sample: SpeakerProfile;
  /** What every candidate is scored on: the held-out half of the sample. Default `sample` (then nothing is held out). */
  heldOut?: SpeakerProfile;
  /** BCP 47 language of the clone; candidates share its primary subtag (en-US voices when none do). */
  language: string;
  /** The voices to choose from; default: baseVoiceCandidates (neural voices included). */
  candidates?: readonly PremadeVoice[];
  /** MODELS_DIR: the operator's Piper voices join the candidates. */
  modelsDir?: string;
  /** Renders one chunk (default renderChunk with `engines`). */
  render?: RenderFunction;
  /** Applies an adjustment to a rendering and writes the finished WAV (default: applyVoicing and finishAudio, as a synthesis does). */
  finish?: FinishFunction;
  /** Profiles a WAV (default analyseSpeaker). */
  analyse?: (wavPath: string, signal?: AbortSignal) => Promise<SpeakerProfile>;
  /** The worker's engine registry (non-free engines only when the operator enabled them). */
  engines?: EngineRegistry;
  /** How many base voices of a tier are fitted. Default 4. */
  maxCandidates?: number;
  /** How many fits, best first by their full adjustment's score, are tried stage by stage. Default STAGED_CANDIDATES. */
  stagedCandidates?: number;
  /**
   * The best neural candidate's held-out score under which the classic voices are fitted too (default NEURAL_FLOOR);
   * 0: only when no neural voice renders or a classic one read plain beats them, Infinity: always.
   */
  neuralFloor?: number;
  signal?: AbortSignal;
}

export type FinishFunction = (
  chunkPath: string,
  adjustment: Adjustment,
  outPath: string,
  signal?: AbortSignal,
) => Promise<unknown>;

export const EQ_MAX_BOOST_DB = 12;
export const EQ_MAX_CUT_DB = -24;
/**
 * The band the EQ may cut in (a telephone's). Outside it a sample lower than the base voice is a channel's band limit
 * far more often than a voice (a phone's 300-3400 Hz, a cheap microphone's thin lows and dull highs), and copying it
 * removes what the words are heard by: Allison through a phone's band on slt, EQ alone, pocketsphinx 15 → 81 % with
 * the cut copied (-24 dB above 3.4 kHz), 35 % with it held at -6 dB, 15 % with none (bench/cloning.ts).
 */
export const EQ_CUT_BAND_HZ = { min: 300, max: 3400 } as const;

/** The gains the EQ may apply at `hz`: boosts to EQ_MAX_BOOST_DB; cuts to EQ_MAX_CUT_DB within EQ_CUT_BAND_HZ, none outside. */
export function eqLimits(hz: number): { cutDb: number; boostDb: number } {
  const inBand = hz >= EQ_CUT_BAND_HZ.min && hz <= EQ_CUT_BAND_HZ.max;
  return { cutDb: inBand ? EQ_MAX_CUT_DB : 0, boostDb: EQ_MAX_BOOST_DB };
}

const withinLimits = (hz: number, gainDb: number): number => {
  const { cutDb, boostDb } = eqLimits(hz);
  return Number(clamp(gainDb, cutDb, boostDb).toFixed(2));
};
const MAX_SEMITONES = 12;
export const RATE_RANGE = { min: 0.7, max: 1.4 } as const;

/**
 * How many base voices get the stage-by-stage fit after the full adjustment
 * ranked them: the winner and the runner-up (bench/cloneCost.ts: same base
 * voice and similarity as staging all four, in about half the time).
 */
export const STAGED_CANDIDATES = 2;

/**
 * A neural candidate whose held-out score is at least this is kept without
 * fitting the classic voices (they still compete read plain): below ~0.45
 * two recordings are probably different speakers, and from there to ~0.6
 * the score cannot tell (docs/voicing.md), so fitting classic voices too
 * would cost time for a voice not measurably closer to the person, only
 * less natural. Under it (a female sample on the male Piper voice: +12 st,
 * ~0.3) the classic voices are fitted too.
 */
export const NEURAL_FLOOR = 0.45;

/** How many neural voices (speakers of a multi-speaker model each count) are candidates, in catalog order. */
const MAX_NEURAL_RENDERS = 12;

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

/**
 * A clone from a sample file as the worker makes it: the sample split in two
 * halves (fit, held out), the voice built on them, and the whole sample's
 * median F0 (the clone's gender).
 */
export async function cloneSample(
  input: Omit<BuildVoiceProfileInput, 'sample' | 'heldOut'> & { samplePath: string },
): Promise<ClonedVoiceProfile & { f0MedianHz: number | null }> {
  const { samplePath, ...rest } = input;
  const halves = await analyseSampleHalves(samplePath, input.signal);
  const profile = await buildVoiceProfile({ ...rest, sample: halves.fit, heldOut: halves.heldOut });
  return { ...profile, f0MedianHz: halves.whole.f0MedianHz };
}

interface Candidate extends Adjustment {
  voice: PremadeVoice;
  stage: Stage;
  similarity: number;
}

/**
 * How much closer to the held-out half an adjusted voice must score than the closest premade voice read plain to be
 * chosen over it. Within it the difference is not measurable (one candidate's held-out score moves by a few
 * hundredths with the half it is scored on and, for Piper, between renderings), while the processing costs sound:
 * Allison (asterisk) on slt with pitch and EQ scored 0.62 on her held-out recordings against 0.60 for slt plain, and
 * pocketsphinx's word errors went from 15 % to 54 % (bench/cloning.ts).
 */
export const ADJUSTMENT_MARGIN = 0.03;

/** Best first by held-out score; on a tie the plain voice, then the fewer stages. */
const STAGE_ORDER: readonly Stage[] = ['plain', 'eq only', 'pitch only', 'no tempo', 'full'];
export function rankCandidates<T extends { similarity: number; stage: Stage }>(candidates: readonly T[]): T[] {
  return [...candidates].sort(
    (a, b) => b.similarity - a.similarity || STAGE_ORDER.indexOf(a.stage) - STAGE_ORDER.indexOf(b.stage),
  );
}

/** The candidate to ship: the best ranked, unless it is adjusted and within ADJUSTMENT_MARGIN of the best plain one. */
export function chooseCandidate<T extends { similarity: number; stage: Stage }>(ranked: readonly T[]): T {
  const [best] = ranked;
  const bestPlain = ranked.find((candidate) => candidate.stage === 'plain');
  return bestPlain && best.similarity - bestPlain.similarity < ADJUSTMENT_MARGIN ? bestPlain : best;
}

export async function buildVoiceProfile(input: BuildVoiceProfileInput): Promise<ClonedVoiceProfile> {
  const { language, engines, sample, signal } = input;
  const heldOut = input.heldOut ?? sample;
  const render: RenderFunction =
    input.render ?? ((chunk) => renderChunk({ ...chunk, engines: chunk.engines ?? engines }));
  const finishWith = input.finish ?? finish;
  const analyse = input.analyse ?? analyseSpeaker;
  const pool = input.candidates
    ? sameLanguage(input.candidates, language)
    : await baseVoiceCandidates({ engines, modelsDir: input.modelsDir, language });
  if (pool.length === 0) throw new Error(`no base voice available for ${language}`);
  const maxCandidates = input.maxCandidates ?? 4;
  const floor = input.neuralFloor ?? NEURAL_FLOOR;
  const testText = similarityText(language);
  const fitText = calibrationText(language);

  return withTempDir(async (dir) => {
    const file = (name: string) => path.join(dir, name);
    // Every voice reads the held-out text plain: the unmodified candidates, and what the finalists are picked by.
    const voices = [...pool.filter(isNeural).slice(0, MAX_NEURAL_RENDERS), ...pool.filter((v) => !isNeural(v))];
    const readings = (
      await mapLimit(voices, 2, async (voice, index) => {
        const testChunk = file(`${index}-test.wav`);
        try {
          await render({ voice, text: testText, emotion: 'neutral', outPath: testChunk, signal });
          const plain = await analyse(testChunk, signal);
          if (plain.f0MedianHz === null) return null;
          return { voice, index, testChunk, plain };
        } catch (error) {
          if (signal?.aborted) throw error;
          return null; // a broken engine or voice: try the others
        }
      })
    ).filter((entry): entry is Reading => entry !== null);
    if (readings.length === 0) throw new Error(`no base voice for ${language} could be adjusted toward the sample`);

    const candidates: Candidate[] = readings.map(({ voice, plain }) => ({
      voice,
      stage: 'plain',
      similarity: similarityScore(heldOut, plain),
      semitones: 0,
      eq: [],
      rate: 1,
    }));
    // Finalists are the voices closest to the fit half when read plain: the held-out half only scores.
    const closestToFit = (tier: Reading[]) =>
      [...tier]
        .sort((a, b) => similarityScore(sample, b.plain) - similarityScore(sample, a.plain))
        .slice(0, maxCandidates);
    const fit = (finalists: Reading[]) =>
      fitFinalists({ ...input, sample, heldOut, render, finish: finishWith, analyse, finalists, fitText, file });

    const neural = readings.filter((reading) => isNeural(reading.voice));
    const classic = readings.filter((reading) => !isNeural(reading.voice));
    if (neural.length > 0) candidates.push(...(await fit(closestToFit(neural))));
    const best = (tier: 'neural' | 'classic') =>
      Math.max(-1, ...candidates.filter((c) => isNeural(c.voice) === (tier === 'neural')).map((c) => c.similarity));
    if (classic.length > 0 && (neural.length === 0 || best('neural') < floor || best('classic') > best('neural')))
      candidates.push(...(await fit(closestToFit(classic))));

    const ranked = rankCandidates(candidates);
    const winner = chooseCandidate(ranked);
    const bestPlain = ranked.find((candidate) => candidate.stage === 'plain')!;
    return {
      baseVoiceId: winner.voice.id,
      semitones: winner.semitones,
      eq: winner.eq,
      rate: winner.rate,
      similarity: winner.similarity,
      closestPremade: winner.stage === 'plain' ? winner.voice.id : null,
      bestPremade: { voiceId: bestPlain.voice.id, similarity: bestPlain.similarity },
      tried: ranked.map(({ voice, stage, similarity, semitones, rate }) => ({
        voiceId: voice.id,
        stage,
        similarity,
        semitones,
        rate,
      })),
    };
  });
}

interface Reading {
  voice: PremadeVoice;
  index: number;
  /** The voice reading the held-out text plain. */
  testChunk: string;
  plain: SpeakerProfile;
}

/**
 * The finalists' adjusted candidates: each reads the calibration text, the adjustment toward the fit half is
 * measured on it (its EQ refined once by the residual), and its held-out reading gets the full adjustment; the
 * leading `stagedCandidates` also get their cheaper stages. A finalist that fails to render is left out.
 */
async function fitFinalists(
  input: BuildVoiceProfileInput & {
    heldOut: SpeakerProfile;
    render: RenderFunction;
    finish: FinishFunction;
    analyse: (wavPath: string, signal?: AbortSignal) => Promise<SpeakerProfile>;
    finalists: Reading[];
    fitText: string;
    file: (name: string) => string;
  },
): Promise<Candidate[]> {
  const { sample, heldOut, signal, render, finish: finishWith, analyse, finalists, fitText, file } = input;
  const stagedCandidates = input.stagedCandidates ?? STAGED_CANDIDATES;

  // A stage's score: the held-out reading with the adjustment, finished like a synthesis, against the held-out half.
  const score = async (reading: Reading, stage: Stage, adjustment: Adjustment): Promise<Candidate> => {
    const out = file(`${reading.index}-test-${stage.replace(' ', '-')}.wav`);
    await finishWith(reading.testChunk, adjustment, out, signal);
    return {
      voice: reading.voice,
      stage,
      ...adjustment,
      similarity: similarityScore(heldOut, await analyse(out, signal)),
    };
  };

  const full = await mapLimit(finalists, 2, async (reading) => {
    try {
      const fitChunk = file(`${reading.index}-fit.wav`);
      await render({ voice: reading.voice, text: fitText, emotion: 'neutral', outPath: fitChunk, signal });
      const adjustment = adjustmentToward(sample, await analyse(fitChunk, signal));
      // The adjusted calibration rendering, measured again: its remaining spectral difference is added to the EQ once.
      const fitOut = file(`${reading.index}-fit-adjusted.wav`);
      await finishWith(fitChunk, adjustment, fitOut, signal);
      const refined = { ...adjustment, eq: refineEq(adjustment.eq, eqCurve(sample, await analyse(fitOut, signal))) };
      return { reading, refined, candidate: await score(reading, 'full', refined) };
    } catch (error) {
      if (signal?.aborted) throw error;
      return null;
    }
  });
  const leading = full
    .filter((entry): entry is NonNullable<typeof entry> => entry !== null)
    .sort((a, b) => b.candidate.similarity - a.candidate.similarity);
  // Each stage must earn its place, for the leading fits only (each costs a finished rendering and an analysis): a
  // pitch shift, an EQ or a tempo that measures further from the speaker than the voice without it costs sound for
  // nothing. (A phone-band copy of en-us-joe: its F0 read 1.4 st off joe's own and the shift cost 0.03 on the
  // held-out half, while the EQ gained 0.10; with the two only together, the clone shipped the shift.)
  const staged = await mapLimit(leading.slice(0, stagedCandidates), 2, async ({ reading, refined }) => {
    const cheaper: Array<[Stage, Adjustment]> = [
      ['no tempo', { ...refined, rate: 1 }],
      // Without a pitch shift (the sample's F0 is the voice's, or unknown) pitch only is the voice read plain, already
      // scored, and EQ only is no tempo.
      ...(refined.semitones === 0
        ? []
        : ([
            ['pitch only', { semitones: refined.semitones, eq: [], rate: 1 }],
            ['eq only', { semitones: 0, eq: refined.eq, rate: 1 }],
          ] as Array<[Stage, Adjustment]>)),
    ];
    const scored: Candidate[] = [];
    for (const [stage, adjustment] of cheaper) {
      try {
        scored.push(await score(reading, stage, adjustment));
      } catch (error) {
        if (signal?.aborted) throw error;
      }
    }
    return scored;
  });
  return [...leading.map((entry) => entry.candidate), ...staged.flat()];
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

export type Adjustment = { semitones: number; eq: ClonedVoiceProfile['eq']; rate: number };

/** The EQ plus the residual difference measured after applying it, within the same limits (eqLimits). */
export function refineEq(eq: ClonedVoiceProfile['eq'], residual: ClonedVoiceProfile['eq']): ClonedVoiceProfile['eq'] {
  return eq.map(({ hz, gainDb }, i) => ({ hz, gainDb: withinLimits(hz, gainDb + (residual[i]?.gainDb ?? 0)) }));
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
 * overall level is loudnorm's business), within eqLimits: boosts capped
 * at +12 dB (an EQ cannot restore what the base voice lacks), cuts at
 * -24 dB within the telephone band and none outside it (a band limit is the
 * sample's channel, not its speaker).
 */
export function eqCurve(target: SpeakerProfile, current: SpeakerProfile): Array<{ hz: number; gainDb: number }> {
  const difference = smooth(
    target.ltas.db.map((db, i) => db - current.ltas.db[i]),
    1,
  );
  const reference = median(difference);
  return target.ltas.hz.map((hz, i) => ({ hz, gainDb: withinLimits(hz, difference[i] - reference) }));
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
