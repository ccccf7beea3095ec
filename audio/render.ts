import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PremadeVoice } from '../engines/catalog';
import { getEngine, type EngineRegistry, sharedEngines } from '../engines/registry';
import { withTempDir } from '../lib/process';
import { enginePitchRange, type EngineTiming } from '../engines/types';
import { chunkWordTimes, spokenReading, type TimedWord } from './timestamps';
import { normalizeText } from '../text/normalize';
import { applyLexicon, type CompiledLexicon } from '../text/lexicon';
import { ffmpeg, fileUrl } from './ffmpeg';
import { type VoiceProfileAdjustment, type Voicing, voicingFilters } from './finish';
import { assertProsody, type Emotion, EMOTION_PRESETS, planEmotionRate, residualTempo } from './prosody';
import { normalizeForSpeech } from '../engines/text';
import { resample, speechBounds, type SpeechSpan } from './pcm';
import { CHUNK_SAMPLE_RATE, pcmBytes, readWavInfo, readWavSamples, wavHeader, writeSilenceWav } from './wav';

export interface RenderChunkInput {
  voice: PremadeVoice;
  /** One chunk of the text (see splitText). */
  text: string;
  /** 0.5-2.0, tempo with the pitch preserved. */
  speed?: number;
  /** Semitones, formants preserved. */
  pitch?: number;
  emotion: Emotion;
  /** A cloned voice's pitch and EQ toward its sample. */
  profile?: VoiceProfileAdjustment;
  /** Where to write the chunk: WAV, 24 kHz mono s16le. */
  outPath: string;
  /** The worker's registry (createEngines({ enableNonFree: config.ENABLE_NONFREE_ENGINES })); free engines only by default. */
  engines?: EngineRegistry;
  /**
   * Whether written forms (numbers, dates, money, abbreviations) are read as
   * words first, in the voice's language (text/normalize): `auto` and `on` in
   * every language the normalizer knows, `off` never. Default `off` (the
   * synthesis path passes the request's choice).
   */
  textNormalization?: TextNormalization;
  /**
   * A pronunciation dictionary (text/lexicon), compiled once for all the
   * chunks of a synthesis, applied before normalization: an alias is said
   * instead of its grapheme. Engines take no phonemes yet: an entry with only
   * a phoneme is said as written. Null or absent: none.
   */
  lexicon?: CompiledLexicon | null;
  signal?: AbortSignal;
}

export type TextNormalization = 'auto' | 'on' | 'off';

export interface RenderChunkResult {
  durationSeconds: number;
  /** The chunk's words in its time and offsets into `text` (audio/timestamps.ts); absent when the engine gives no timing. */
  words?: TimedWord[];
}

// Engines pad with silence; trimmed to a little so finishAudio's pauses decide the rhythm.
const SILENCE_DB = -55;
const KEEP_START = 0.03;
const KEEP_END = 0.08;
const TRIM = (keep: number) => `silenceremove=start_periods=1:start_threshold=${SILENCE_DB}dB:start_silence=${keep.toFixed(4)}`;

/** Seconds of speech in an engine's WAV between the first and last loud window (0 when it is not 16-bit PCM). */
async function speechSeconds(file: string): Promise<number> {
  try {
    const { samples, sampleRate } = await readWavSamples(file);
    const { start, end } = speechBounds(samples, sampleRate, SILENCE_DB, 0, 0);
    return (end - start) / sampleRate;
  } catch {
    return 0;
  }
}

/**
 * The chunk without ffmpeg: the engine's mono 16-bit WAV trimmed and
 * resampled in process. Returns where the speech was found in the engine's
 * samples (the word timing reuses it); null (nothing written) for any other format.
 */
async function trimAndResample(raw: string, outPath: string, keepStart: number, keepEnd: number): Promise<SpeechSpan | null> {
  let wav: { samples: Int16Array; sampleRate: number };
  try {
    wav = await readWavSamples(raw);
  } catch {
    return null;
  }
  const { start, end } = speechBounds(wav.samples, wav.sampleRate, SILENCE_DB, keepStart, keepEnd);
  const samples = resample(wav.samples.subarray(start, end), wav.sampleRate, CHUNK_SAMPLE_RATE);
  await writeFile(outPath, Buffer.concat([wavHeader(samples.length, CHUNK_SAMPLE_RATE), pcmBytes(samples)]));
  return { start, end, sampleRate: wav.sampleRate, seconds: samples.length / CHUNK_SAMPLE_RATE };
}

/**
 * Renders one chunk with its voice's engine and gives it the requested voice
 * in one ffmpeg pass: leading and trailing silence trimmed, the speaking
 * rate (speed times the emotion's rate: the engine's own rate control where
 * it has one, a pitch-preserving time stretch for the rest or for what the
 * engine missed), pitch, the emotion's tone,
 * a clone's EQ, then the common chunk format (24 kHz mono 16-bit WAV); with
 * no ffmpeg at all when only the silence and the sample rate change.
 * Loudness and encoding are finishAudio's, over the joined chunks.
 */
export async function renderChunk(input: RenderChunkInput): Promise<RenderChunkResult> {
  const { voice, emotion, outPath, signal } = input;
  const voicing = { speed: input.speed ?? 1, pitch: input.pitch ?? 0, emotion, profile: input.profile };
  assertProsody(voicing);
  const text = normalizeForSpeech(input.text);
  // What the engine reads: the text, or its written forms as words (word timestamps still point into the text).
  const normalize = (input.textNormalization ?? 'off') !== 'off';
  const spoken = input.lexicon ? applyLexicon(text, input.lexicon, { language: voice.language, normalize }) : normalize ? normalizeText(text, { language: voice.language }) : null;
  const engineText = spoken && spoken.spoken !== text ? spoken.spoken : text;
  const reading = engineText !== text ? spokenReading(spoken!.words) : undefined;
  if (!/[\p{L}\p{N}]/u.test(engineText)) {
    // Nothing to say (punctuation only): a beat of silence keeps the chunk sequence whole.
    await writeSilenceWav(outPath, 0.1);
    return { durationSeconds: 0.1, words: [] };
  }
  const engine = getEngine(input.engines ?? sharedEngines(), voice.engine);
  const plan = planEmotionRate(engine.capabilities, emotion, voicing.speed);
  const { engineRate } = plan;
  // The engine moves its own intonation where it can (no shifter artefacts); the shifter does the rest.
  const pitchRange = enginePitchRange(engine.capabilities, voice.engineVoice);
  // An emotion's pitch only where the engine sets it itself: through the shifter even half a semitone cost more
  // intelligibility than the emotion gains (Festival HTS: 8 -> 12 word errors in 67, MCD doubled; docs/voicing.md,
  // "Emotions"); there the rate, loudness and tone carry it.
  const presetSemitones = EMOTION_PRESETS[emotion].semitones;
  const emotionSemitones = pitchRange ? presetSemitones : 0;
  const shift = voicing.pitch + emotionSemitones + (voicing.profile?.semitones ?? 0);
  const enginePitch = pitchRange ? Math.min(pitchRange.max, Math.max(pitchRange.min, shift)) : 0;

  let words: TimedWord[] | undefined;
  let durationSeconds = 0;
  await withTempDir(async (dir) => {
    const raw = path.join(dir, 'engine.wav');
    let timing: EngineTiming | void = undefined;
    const synthesize = (rate: number, outPath: string) => engine.synthesize({ text: engineText, voice: voice.engineVoice, rate, pitch: enginePitch, outPath, signal });
    let tempo = plan.tempo;
    if (plan.measure) {
      // The engine's rate is close to exact, not exact: render the speed-1 reference as well and stretch by what is left.
      const reference = planEmotionRate(engine.capabilities, emotion, 1);
      const referencePath = path.join(dir, 'reference.wav');
      [timing] = await Promise.all([synthesize(engineRate, raw), synthesize(reference.engineRate, referencePath)]);
      const [seconds, referenceSeconds] = await Promise.all([speechSeconds(raw), speechSeconds(referencePath)]);
      tempo = residualTempo(plan, seconds, reference, referenceSeconds, voicing.speed);
    } else {
      timing = await synthesize(engineRate, raw);
    }
    // The silence kept at each end scales with the rate like the speech does.
    const rate = engineRate * tempo;
    const shaping = voicingFilters({ ...voicing, speed: 1, pitch: voicing.pitch - enginePitch - (presetSemitones - emotionSemitones) }, tempo);
    // Nothing to change but the silence and the rate (most requests): no ffmpeg process.
    const span = shaping.length === 0 ? await trimAndResample(raw, outPath, KEEP_START / rate, KEEP_END / rate) : null;
    if (!span) {
      await toChunkWav(raw, ['aformat=channel_layouts=mono', TRIM(KEEP_START / rate), 'areverse', TRIM(KEEP_END / rate), 'areverse', ...shaping], outPath, signal);
    }
    // Trimmed here, the chunk's length and the speech's place in the engine's WAV are known: not measured again.
    durationSeconds = span?.seconds ?? (await readWavInfo(outPath)).durationSeconds;
    if (timing) {
      const trim = { path: raw, silenceDb: SILENCE_DB, keepStart: KEEP_START / rate, keepEnd: KEEP_END / rate, span: span ?? undefined };
      words = await chunkWordTimes(input.text, text, timing.words, trim, durationSeconds, reading);
    }
  });
  return { durationSeconds, words };
}

/**
 * Gives a chunk rendered plain (neutral, speed 1) a voicing afterwards: the
 * cloning fit compares several adjustments on one rendering.
 */
export async function applyVoicing(chunkPath: string, voicing: Voicing, outPath: string, signal?: AbortSignal): Promise<void> {
  await toChunkWav(chunkPath, voicingFilters(voicing), outPath, signal);
}

/** One ffmpeg pass: `filters`, then the common chunk format (24 kHz mono 16-bit WAV). */
async function toChunkWav(input: string, filters: string[], outPath: string, signal?: AbortSignal): Promise<void> {
  const chain = [...filters, `aresample=${CHUNK_SAMPLE_RATE}:resampler=soxr`].join(',');
  await ffmpeg(['-i', fileUrl(input), '-af', chain, '-ar', String(CHUNK_SAMPLE_RATE), '-ac', '1', '-c:a', 'pcm_s16le', '-map_metadata', '-1', '-f', 'wav', fileUrl(outPath)], signal);
}
