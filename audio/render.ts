import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PremadeVoice } from '../engines/catalog';
import { getEngine, type EngineRegistry, sharedEngines } from '../engines/registry';
import { withTempDir } from '../lib/process';
import { enginePitchRange, type EngineTiming } from '../engines/types';
import { chunkWordTimes, spokenReading, type TimedWord } from './timestamps';
import { normalizeText } from '../text/normalize';
import { applyLexicon, type CompiledLexicon } from '../text/lexicon';
import { ffmpeg, fileUrl, monoWavOutput } from './ffmpeg';
import { pauseSamples, type VoiceProfileAdjustment, type Voicing, voicingFilters } from './finish';
import { assertProsody, type Emotion, EMOTION_PRESETS, planEmotionRate, residualTempo } from './prosody';
import { normalizeForSpeech } from '../engines/text';
import { resample, speechBounds, type SpeechSpan } from './pcm';
import { pcmBytes, wavHeader } from '../lib/wavFormat';
import { CHUNK_SAMPLE_RATE, readWavInfo, readWavSamples, writeSilenceWav } from './wav';

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
  /**
   * The chunk was read already (an SSML chunk, synthesis/speechPlan.ts):
   * `text` is what the engine says, with no normalization or dictionary
   * applied here; its words' spans, IPA stretches, prosody and surrounding
   * silence come with it. The result's words then carry offsets into the
   * whole synthesis text (the SSML document), not into `text`.
   */
  read?: ReadText;
  signal?: AbortSignal;
}

/** A chunk read ahead of its render (SSML): see RenderChunkInput.read. */
export interface ReadText {
  /** Each word of the chunk's text, in order, with its span in the document (UTF-16, end exclusive). */
  words: ReadonlyArray<{ word: string; source_start: number; source_end: number }>;
  /** Stretches of the chunk's text (UTF-16 offsets) to say as IPA by engines that take phonemes. */
  pronunciations: ReadonlyArray<{ ipa: string; start: number; end: number }>;
  /** Rate multiplier, pitch in semitones and linear gain on top of the request's voicing. */
  prosody: { rate: number; pitch: number; volume: number };
  /** Silence before the speech, seconds; null: the default pause between chunks (finishAudio's, at the request's rate). */
  pauseBeforeSeconds: number | null;
  /** Silence after it, seconds. */
  pauseAfterSeconds: number;
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
const TRIM = (keep: number) =>
  `silenceremove=start_periods=1:start_threshold=${SILENCE_DB}dB:start_silence=${keep.toFixed(4)}`;

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

/** An engine's mono 16-bit WAV and where its speech is, with `keepStart`/`keepEnd` seconds of its silence; null for any other format. */
async function readSpeech(raw: string, keepStart: number, keepEnd: number) {
  try {
    const { samples, sampleRate } = await readWavSamples(raw);
    return { samples, sampleRate, ...speechBounds(samples, sampleRate, SILENCE_DB, keepStart, keepEnd) };
  } catch {
    return null;
  }
}

/**
 * The chunk without ffmpeg: the engine's mono 16-bit WAV trimmed and
 * resampled in process. Returns where the speech was found in the engine's
 * samples (the word timing reuses it); null (nothing written) for any other format.
 */
async function trimAndResample(
  raw: string,
  outPath: string,
  keepStart: number,
  keepEnd: number,
): Promise<SpeechSpan | null> {
  const speech = await readSpeech(raw, keepStart, keepEnd);
  if (!speech) return null;
  const { start, end, sampleRate } = speech;
  const samples = resample(speech.samples.subarray(start, end), sampleRate, CHUNK_SAMPLE_RATE);
  await writeFile(outPath, Buffer.concat([wavHeader(samples.length, CHUNK_SAMPLE_RATE), pcmBytes(samples)]));
  return { start, end, sampleRate, seconds: samples.length / CHUNK_SAMPLE_RATE };
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
  if (input.read) return renderRead(input, input.read);
  const { voice, emotion } = input;
  const voicing = { speed: input.speed ?? 1, pitch: input.pitch ?? 0, emotion, profile: input.profile };
  assertProsody(voicing);
  const text = normalizeForSpeech(input.text);
  // What the engine reads: the text, or its written forms as words (word timestamps still point into the text).
  const normalize = (input.textNormalization ?? 'off') !== 'off';
  const spoken = input.lexicon
    ? applyLexicon(text, input.lexicon, { language: voice.language, normalize })
    : normalize
      ? normalizeText(text, { language: voice.language })
      : null;
  const engineText = spoken && spoken.spoken !== text ? spoken.spoken : text;
  const reading = engineText !== text ? spokenReading(spoken!.words) : undefined;
  const pronunciations = engineText !== text && spoken && 'pronunciations' in spoken ? spoken.pronunciations : [];
  if (!/[\p{L}\p{N}]/u.test(engineText)) {
    // Nothing to say (punctuation only): a beat of silence keeps the chunk sequence whole.
    await writeSilenceWav(input.outPath, 0.1);
    return { durationSeconds: 0.1, words: [] };
  }
  return renderEngine(input, voicing, engineText, pronunciations, (timing, trim, seconds) =>
    chunkWordTimes(input.text, text, timing.words, trim, seconds, reading),
  );
}

/**
 * An SSML chunk: said as read, at the request's voicing moved by the
 * chunk's prosody (the engine's own rate and pitch controls where it has
 * them), its volume a gain, with its silence around it; words map to the
 * document through the read words' spans.
 */
async function renderRead(input: RenderChunkInput, read: ReadText): Promise<RenderChunkResult> {
  const speed = input.speed ?? 1;
  const voicing = {
    speed: Math.min(2, Math.max(0.5, speed * read.prosody.rate)),
    pitch: Math.min(12, Math.max(-12, (input.pitch ?? 0) + read.prosody.pitch)),
    emotion: input.emotion,
    profile: input.profile,
  };
  assertProsody(voicing);
  const text = input.text;
  const pauseBefore = read.pauseBeforeSeconds ?? pauseSamples({ speed, emotion: input.emotion }) / CHUNK_SAMPLE_RATE;
  let durationSeconds = 0;
  let words: TimedWord[] | undefined;
  if (/[\p{L}\p{N}]/u.test(text)) {
    const rendered = await renderEngine(input, voicing, text, read.pronunciations, async (timing, trim, seconds) =>
      documentWords(text, await chunkWordTimes(text, text, timing.words, trim, seconds), read.words, pauseBefore),
    );
    durationSeconds = rendered.durationSeconds;
    words = rendered.words;
  } else {
    await writeSilenceWav(input.outPath, 0);
    words = [];
  }
  if (read.prosody.volume !== 1 || pauseBefore > 0 || read.pauseAfterSeconds > 0) {
    const { samples } = await readWavSamples(input.outPath);
    const gain = read.prosody.volume;
    const scaled =
      gain === 1
        ? samples
        : Int16Array.from(samples, (sample) => Math.max(-32768, Math.min(32767, Math.round(sample * gain))));
    const before = new Int16Array(Math.round(pauseBefore * CHUNK_SAMPLE_RATE));
    const after = new Int16Array(Math.round(read.pauseAfterSeconds * CHUNK_SAMPLE_RATE));
    const length = before.length + scaled.length + after.length;
    await writeFile(
      input.outPath,
      Buffer.concat([wavHeader(length, CHUNK_SAMPLE_RATE), pcmBytes(before), pcmBytes(scaled), pcmBytes(after)]),
    );
    durationSeconds = length / CHUNK_SAMPLE_RATE;
  }
  return { durationSeconds, words };
}

/**
 * Timed words of a read chunk's spoken text as words of the document: each
 * takes the span of the read words it overlaps, and consecutive words of one
 * span join ("five million dollars" is the one word "$5m"), shifted by the
 * silence before the speech. Offsets index the whole document; `word` is
 * the spoken word until deliveredWords, which has the document, names it.
 */
export function documentWords(
  chunkText: string,
  timed: readonly TimedWord[],
  readWords: ReadText['words'],
  shift: number,
): TimedWord[] {
  // Each read word's place in the chunk's text: the words are its words in order.
  let at = 0;
  const placed = readWords.flatMap((word) => {
    const index = chunkText.indexOf(word.word, at);
    if (index < 0) return [];
    at = index + word.word.length;
    return [{ start: index, end: at, source_start: word.source_start, source_end: word.source_end }];
  });
  const out: TimedWord[] = [];
  for (const word of timed) {
    const over = placed.filter((p) => p.start < word.char_end && p.end > word.char_start);
    if (over.length === 0) continue;
    const sourceStart = Math.min(...over.map((p) => p.source_start));
    const sourceEnd = Math.max(...over.map((p) => p.source_end));
    const last = out.at(-1);
    if (last && last.char_start === sourceStart && last.char_end === sourceEnd) {
      last.end = Math.max(last.end, word.end + shift);
      continue;
    }
    out.push({
      word: word.word,
      start: word.start + shift,
      end: word.end + shift,
      char_start: sourceStart,
      char_end: sourceEnd,
    });
  }
  return out;
}

type EngineVoicing = { speed: number; pitch: number; emotion: Emotion; profile?: VoiceProfileAdjustment };
/** Times the engine's words in the trimmed chunk (called while the engine's WAV is still there). */
type TimeWords = (
  timing: EngineTiming,
  trim: Parameters<typeof chunkWordTimes>[3],
  durationSeconds: number,
) => Promise<TimedWord[]>;

/** Renders `engineText` with the chunk's engine and voicing into `input.outPath`; words timed by `timeWords` when the engine gives a timing. */
async function renderEngine(
  input: RenderChunkInput,
  voicing: EngineVoicing,
  engineText: string,
  pronunciations: ReadonlyArray<{ ipa: string; start: number; end: number }>,
  timeWords: TimeWords,
): Promise<{ durationSeconds: number; words?: TimedWord[] }> {
  const { voice, emotion, outPath, signal } = input;
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
    const synthesize = (rate: number, outPath: string) =>
      engine.synthesize({
        text: engineText,
        voice: voice.engineVoice,
        rate,
        pitch: enginePitch,
        outPath,
        signal,
        ...(pronunciations.length > 0 && { pronunciations }),
      });
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
    const shaping = voicingFilters(
      { ...voicing, speed: 1, pitch: voicing.pitch - enginePitch - (presetSemitones - emotionSemitones) },
      tempo,
    );
    // Nothing to change but the silence and the rate (most requests): no ffmpeg process.
    const span = shaping.length === 0 ? await trimAndResample(raw, outPath, KEEP_START / rate, KEEP_END / rate) : null;
    const bounds = span ?? (await readSpeech(raw, KEEP_START / rate, KEEP_END / rate));
    if (!span) {
      const trimmed = bounds
        ? [`atrim=start_sample=${bounds.start}:end_sample=${bounds.end}`, 'asetpts=PTS-STARTPTS']
        : [TRIM(KEEP_START / rate), 'areverse', TRIM(KEEP_END / rate), 'areverse'];
      // The stretch's length is known: Rubber Band's R3 engine pads its end with up to ~70 ms of its latency.
      const stretched = bounds ? [`atrim=end_sample=${Math.round((bounds.end - bounds.start) / tempo)}`] : [];
      await toChunkWav(raw, ['aformat=channel_layouts=mono', ...trimmed, ...shaping, ...stretched], outPath, signal);
    }
    // Trimmed here, the chunk's length and the speech's place in the engine's WAV are known: not measured again.
    durationSeconds = span?.seconds ?? (await readWavInfo(outPath)).durationSeconds;
    if (timing) {
      const trim = {
        path: raw,
        silenceDb: SILENCE_DB,
        keepStart: KEEP_START / rate,
        keepEnd: KEEP_END / rate,
        span: bounds
          ? { start: bounds.start, end: bounds.end, sampleRate: bounds.sampleRate, seconds: durationSeconds }
          : undefined,
      };
      words = await timeWords(timing, trim, durationSeconds);
    }
  });
  return { durationSeconds, words };
}

/**
 * Gives a chunk rendered plain (neutral, speed 1) a voicing afterwards: the
 * cloning fit compares several adjustments on one rendering.
 */
export async function applyVoicing(
  chunkPath: string,
  voicing: Voicing,
  outPath: string,
  signal?: AbortSignal,
): Promise<void> {
  await toChunkWav(chunkPath, voicingFilters(voicing), outPath, signal);
}

/** One ffmpeg pass: `filters`, then the common chunk format (24 kHz mono 16-bit WAV). */
async function toChunkWav(input: string, filters: string[], outPath: string, signal?: AbortSignal): Promise<void> {
  const chain = [...filters, `aresample=${CHUNK_SAMPLE_RATE}:resampler=soxr`].join(',');
  await ffmpeg(['-i', fileUrl(input), '-af', chain, ...monoWavOutput(CHUNK_SAMPLE_RATE, outPath)], signal);
}
