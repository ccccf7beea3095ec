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
export const PITCH_RANGE = { min: -12, max: 12 } as const;

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

export const EMOTION_PRESETS: Readonly<Record<Emotion, EmotionPreset>> = {
  neutral: { rate: 1, semitones: 0, loudnessLufs: -16, brightnessDb: 0 },
  happy: { rate: 1.08, semitones: 2, loudnessLufs: -15, brightnessDb: 2 },
  sad: { rate: 0.82, semitones: -2.5, loudnessLufs: -21, brightnessDb: -4 },
  angry: { rate: 1.12, semitones: 1.5, loudnessLufs: -12, brightnessDb: 4 },
  calm: { rate: 0.88, semitones: -1.5, loudnessLufs: -20, brightnessDb: -2 },
  excited: { rate: 1.22, semitones: 3, loudnessLufs: -13, brightnessDb: 3 },
};

export interface RatePlan {
  /** The rate factor handed to the engine (1 when it has no rate control). */
  engineRate: number;
  /** The remaining tempo factor for a time stretch (1 when the engine did it all). */
  tempo: number;
  /** The requested speed is part of engineRate and tempo (an engine with a calibrated rate), so the voicing's speed must not be applied again. */
  includesSpeed: boolean;
}

/**
 * How a chunk gets its emotion's speaking rate: from the engine where it has a
 * rate control (its own timing sounds better than a stretch), a
 * pitch-preserving time stretch for the rest. The requested speed is not part
 * of it for most engines: their rate controls are not exact (espeak-ng at 2x
 * its rate gives 0.55x the duration on a short sentence; Festival HTS drops
 * its edge pauses), so renderChunk applies speed as an exact tempo change. An
 * engine whose rate is calibrated (`exactRate`, Piper) takes the speed too,
 * within its range; the stretch does the rest.
 */
export function planEmotionRate(capabilities: EngineCapabilities, emotion: Emotion, speed = 1): RatePlan {
  const includesSpeed = Boolean(capabilities.exactRate);
  const total = EMOTION_PRESETS[emotion].rate * (includesSpeed ? speed : 1);
  const range = capabilities.rate;
  const engineRate = range ? Math.min(range.max, Math.max(range.min, total)) : 1;
  const tempo = total / engineRate;
  return { engineRate, tempo: Math.abs(tempo - 1) < 1e-6 ? 1 : tempo, includesSpeed };
}

/** Checks the request ranges of API.md; throws a RangeError naming the field. */
export function assertProsody(request: { speed: number; pitch: number; emotion: string }): void {
  const { speed, pitch, emotion } = request;
  if (!(speed >= SPEED_RANGE.min && speed <= SPEED_RANGE.max)) throw new RangeError('speed: must be between 0.5 and 2.0');
  if (!(pitch >= PITCH_RANGE.min && pitch <= PITCH_RANGE.max)) throw new RangeError('pitch: must be between -12 and 12');
  if (!(EMOTIONS as readonly string[]).includes(emotion)) throw new RangeError(`emotion: must be one of ${EMOTIONS.join(', ')}`);
}
