import type { EngineCapabilities } from '../engines/types';

/**
 * Speed, pitch and emotion as numbers the pipeline applies. Emotion presets
 * are prosody only (no engine here has expressive styles): speaking rate,
 * median pitch, loudness and spectral tilt, each large enough to measure.
 * Pitch range (F0 spread) is not changed: none of the engines exposes it
 * through its command line without interpreting markup, and a pitch shift
 * moves the whole contour, not its spread.
 */

export const EMOTIONS = ['neutral', 'happy', 'sad', 'angry', 'calm', 'excited'] as const;
export type Emotion = (typeof EMOTIONS)[number];

export const OUTPUT_FORMATS = ['wav', 'mp3', 'ogg', 'flac'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const SPEED_RANGE = { min: 0.5, max: 2.0 } as const;
const PITCH_RANGE = { min: -12, max: 12 } as const;

export interface EmotionPreset {
  /** Speaking-rate factor on top of the requested speed. */
  rate: number;
  /** Pitch shift in semitones on top of the requested pitch. */
  semitones: number;
  /** EBU R128 loudness target of the finished audio, LUFS. */
  loudnessLufs: number;
  /** Treble shelf gain above ~3 kHz, dB: brighter (tense, lively) or darker (subdued). */
  brightnessDb: number;
}

/**
 * Re-tuned by measurement (bench/quality.ts and bench/emotionSweep.ts,
 * docs/voicing.md, "Emotions"): a pitch shift through the shifter is what costs
 * intelligibility (on Festival's HTS voice +0.5 to +1.5 semitones took
 * pocketsphinx from 8 to 11-17 word errors in 67), fast engine rates next
 * (HTS at 1.07-1.1x: 11-15); loudness and spectral tilt cost nothing. So the presets
 * carry the emotion in loudness, tilt and rate, and their pitch (at most 2
 * semitones) is applied only by an engine that sets its own intonation
 * (eSpeak NG, Flite; renderChunk leaves it out elsewhere).
 */
export const EMOTION_PRESETS: Readonly<Record<Emotion, EmotionPreset>> = {
  neutral: { rate: 1, semitones: 0, loudnessLufs: -16, brightnessDb: 0 },
  happy: { rate: 1.05, semitones: 1, loudnessLufs: -13, brightnessDb: 2 },
  sad: { rate: 0.85, semitones: -2, loudnessLufs: -20, brightnessDb: -3 },
  angry: { rate: 1.03, semitones: 0.5, loudnessLufs: -11.5, brightnessDb: 3 },
  calm: { rate: 0.9, semitones: -1, loudnessLufs: -19, brightnessDb: -1.5 },
  excited: { rate: 1.06, semitones: 1.5, loudnessLufs: -12, brightnessDb: 3 },
};

export interface RatePlan {
  /** The rate factor handed to the engine (1 when it has no rate control). */
  engineRate: number;
  /** The remaining tempo factor for a time stretch (1 when the engine did it all). */
  tempo: number;
  /**
   * The engine's rate is not calibrated (`exactRate` unset) and the request
   * has a speed: renderChunk renders the speed-1 reference too and stretches
   * by the measured residual, so the duration is exactly 1/speed of it.
   */
  measure: boolean;
}

/**
 * How a chunk gets its speaking rate (the emotion's times the requested
 * speed): from the engine where it has a rate control, its own timing sounds
 * far better than a time stretch (Festival at 1.5x its rate keeps almost all
 * of its quality, a 1.5x stretch loses a third of it: docs/voicing.md,
 * "Measured (bench:quality)"), and a pitch-preserving time stretch for what lies outside the
 * engine's range. Most engines' rates are close to exact but not quite
 * (measured over three sentences: espeak-ng at 2x gives 0.89-1.03x of 1/2 the
 * duration, Festival HTS up to 1.05x), so for them `measure` asks renderChunk
 * for a measured residual stretch; an engine whose rate is calibrated
 * (`exactRate`: Piper's curve, Flite within 1 %) needs none.
 */
export function planEmotionRate(capabilities: EngineCapabilities, emotion: Emotion, speed = 1): RatePlan {
  const total = EMOTION_PRESETS[emotion].rate * speed;
  const range = capabilities.rate;
  const engineRate = range ? Math.min(range.max, Math.max(range.min, total)) : 1;
  const tempo = total / engineRate;
  const measure =
    Boolean(range) && !capabilities.exactRate && Math.abs(speed - 1) > 1e-6 && Math.abs(engineRate - 1) > 1e-6;
  return { engineRate, tempo: Math.abs(tempo - 1) < 1e-6 ? 1 : tempo, measure };
}

/** A residual within this fraction of the planned tempo is left alone (the duration tests allow 3 %). */
const RESIDUAL_TOLERANCE = 0.015;

/**
 * The stretch that makes a rendering at `plan` last exactly 1/speed of the
 * speed-1 rendering (`reference`, rendered at `referencePlan`), from the
 * speech durations the engine actually produced. Within RESIDUAL_TOLERANCE
 * of the plan's own tempo it keeps the plan (no stretch for a 1 % error).
 */
export function residualTempo(
  plan: { engineRate: number; tempo: number },
  seconds: number,
  reference: { tempo: number },
  referenceSeconds: number,
  speed: number,
): number {
  if (!(seconds > 0 && referenceSeconds > 0)) return plan.tempo;
  // Target length after the stretch: (referenceSeconds / reference.tempo) / speed.
  const tempo = (seconds * speed * reference.tempo) / referenceSeconds;
  return Math.abs(tempo / plan.tempo - 1) <= RESIDUAL_TOLERANCE ? plan.tempo : tempo;
}

/** Checks the request ranges of API.md; throws a RangeError naming the field. */
export function assertProsody(request: { speed: number; pitch: number; emotion: string }): void {
  const { speed, pitch, emotion } = request;
  if (!(speed >= SPEED_RANGE.min && speed <= SPEED_RANGE.max))
    throw new RangeError('speed: must be between 0.5 and 2.0');
  if (!(pitch >= PITCH_RANGE.min && pitch <= PITCH_RANGE.max))
    throw new RangeError('pitch: must be between -12 and 12');
  if (!(EMOTIONS as readonly string[]).includes(emotion))
    throw new RangeError(`emotion: must be one of ${EMOTIONS.join(', ')}`);
}
