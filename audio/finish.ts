import { open, stat } from 'node:fs/promises';
import { PassThrough, Readable } from 'node:stream';
import { ffmpeg, fileUrl, rawPcmInput, REPRODUCIBLE_OUTPUT } from './ffmpeg';
import { normalizeLoudnessInParallel } from './parallelLoudness';
import { assertProsody, type Emotion, EMOTION_PRESETS, type OutputFormat } from './prosody';
import { pcmBytes, wavHeader } from '../lib/wavFormat';
import { CHUNK_SAMPLE_RATE, readWavSamples } from './wav';

/**
 * Optional post-processing toward a cloned voice (the cloning work fills it
 * from the sample's profile): a pitch shift toward the sample's median F0 and
 * an EQ gain curve toward its long-term spectrum (ffmpeg `firequalizer`,
 * which interpolates between the points on a log-frequency scale).
 */
export interface VoiceProfileAdjustment {
  /** Extra pitch shift in semitones, added to the request's pitch. */
  semitones?: number;
  /** Gain curve points: frequency in Hz, gain in dB (callers cap boosts, e.g. at +12 dB). */
  eq?: ReadonlyArray<{ hz: number; gainDb: number }>;
}

export interface FinishAudioInput {
  /** Chunk files from renderChunk, in text order (24 kHz mono WAV), rendered with the same speed, pitch, emotion and profile. */
  chunks: readonly string[];
  /** 0.5-2.0, a tempo change with the pitch preserved (applied by renderChunk; the pauses between chunks scale with it). */
  speed: number;
  /** -12..+12 semitones, pitch shift with formants preserved (applied by renderChunk). */
  pitch: number;
  emotion: Emotion;
  format: OutputFormat;
  outPath: string;
  profile?: VoiceProfileAdjustment;
  /** Pause between chunks at speed 1, seconds. Default 0.35 (chunks end at sentence boundaries). */
  pauseSeconds?: number;
  signal?: AbortSignal;
}

export interface FinishAudioResult {
  durationSeconds: number;
  contentType: string;
  bytes: number;
}

export const CONTENT_TYPES: Readonly<Record<OutputFormat, string>> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
};

/** Output sample rate of every format: speech needs no more, and Opus supports it natively. */
export const OUTPUT_SAMPLE_RATE = CHUNK_SAMPLE_RATE;

/** Each format's encoder and its container (ffmpeg's muxer of that name). */
const ENCODERS: Readonly<Record<OutputFormat, string[]>> = {
  wav: ['-c:a', 'pcm_s16le'],
  mp3: ['-c:a', 'libmp3lame', '-b:a', '64k'],
  ogg: ['-c:a', 'libopus', '-b:a', '48k', '-application', 'voip'],
  flac: ['-c:a', 'flac'],
};

const num = (value: number, digits = 4): string => {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  return value.toFixed(digits);
};

/** What every output must meet, measured after encoding: EBU R128's -1 dBTP. */
const TRUE_PEAK_LIMIT_DB = -1;

/**
 * The limiter's true-peak ceiling per format. Lossless output keeps the
 * limiter's peaks (16-bit rounding aside); lossy encoders overshoot, so they
 * get headroom, and their output is measured after encoding (encodeWithinLimit).
 */
const TRUE_PEAK_CEILING_DB: Readonly<Record<OutputFormat, number>> = { wav: -1.5, flac: -1.5, mp3: -2.5, ogg: -2.5 };
/** Margin under the limit that an encoded file is brought to when it overshoots. */
const ENCODED_MARGIN_DB = 0.3;
const MAX_ENCODE_ATTEMPTS = 3;

/**
 * Rubber Band's R3 ("finer") engine. ffmpeg's filter has no option for it but
 * ORs every option's value into the library's flags, so it rides on
 * `channels` (whose own value, `apart`, is 0). Measured with pocketsphinx on
 * ten sentences: the R2 engine's formant-preserving shift cost Festival's HTS
 * voice its words (WER 32 % plain → 70 % at +2.5 st, 96 % at +6.5), R3 keeps
 * them (35 %, 37 %), and its tempo changes lose fewer words too, at the same
 * CPU (docs/voicing.md).
 */
const RUBBERBAND_FINER_ENGINE = 0x20000000;

/** The voice a request asks for: the same for every chunk's render and for the finish. */
export type Voicing = Pick<FinishAudioInput, 'speed' | 'pitch' | 'emotion' | 'profile'>;

/**
 * The filters that give a rendered chunk its requested voice: tempo and pitch
 * (one rubberband pass; `extraTempo` is the emotion's rate where the engine
 * could not set it), the emotion's tone, a cloned voice's EQ. They run in
 * each chunk's render, in parallel; loudness is the finish's.
 */
export function voicingFilters(input: Voicing, extraTempo = 1): string[] {
  const preset = EMOTION_PRESETS[input.emotion];
  const semitones = input.pitch + preset.semitones + (input.profile?.semitones ?? 0);
  if (!Number.isFinite(semitones) || Math.abs(semitones) > 36)
    throw new RangeError(`pitch shift out of range: ${semitones}`);
  if (!(input.speed > 0) || !(extraTempo > 0)) throw new RangeError(`speed out of range: ${input.speed}`);
  const filters: string[] = [];
  const tempoFactor = input.speed * extraTempo;
  const tempo = Math.abs(tempoFactor - 1) > 1e-6;
  const shift = Math.abs(semitones) > 1e-6;
  if (tempo || shift) {
    // pitchq=quality: the default quality cuts everything above ~6.4 kHz with formants preserved.
    const options = [
      tempo && `tempo=${num(tempoFactor, 6)}`,
      shift && `pitch=${num(2 ** (semitones / 12), 6)}:pitchq=quality:formant=preserved`,
      `channels=${RUBBERBAND_FINER_ENGINE}`,
    ];
    filters.push(`rubberband=${options.filter(Boolean).join(':')}`);
  }
  if (preset.brightnessDb !== 0) filters.push(`treble=g=${num(preset.brightnessDb, 1)}:f=3000`);
  const eq = input.profile?.eq ?? [];
  if (eq.length > 0) {
    const entries = [...eq]
      .sort((a, b) => a.hz - b.hz)
      .map(({ hz, gainDb }) => `entry(${num(hz, 1)},${num(gainDb, 2)})`)
      .join(';');
    filters.push(`firequalizer=gain_entry='${entries}':scale=linlog:zero_phase=on:accuracy=1`);
  }
  return filters;
}

/**
 * Joins rendered chunks (renderChunk already gave them their speed, pitch,
 * emotion and profile) with a short pause between them, normalizes the
 * loudness to the emotion's target (EBU R128 measured here, peaks limited;
 * no ffmpeg pass) and encodes: a WAV is written directly, other formats take one ffmpeg call.
 */
export async function finishAudio(input: FinishAudioInput): Promise<FinishAudioResult> {
  const { chunks, format, outPath, signal } = input;
  assertProsody(input);
  if (!(format in ENCODERS)) throw new RangeError(`output_format: must be one of ${Object.keys(ENCODERS).join(', ')}`);
  if (chunks.length === 0) throw new RangeError('finishAudio needs at least one chunk');
  const preset = EMOTION_PRESETS[input.emotion];
  const pause = new Int16Array(pauseSamples(input));

  const pieces: Int16Array[] = [];
  for (const [index, chunk] of chunks.entries()) {
    const { samples, sampleRate } = await readWavSamples(chunk);
    if (sampleRate !== OUTPUT_SAMPLE_RATE)
      throw new RangeError(`chunk ${index}: chunks must be ${OUTPUT_SAMPLE_RATE} Hz (renderChunk writes them so)`);
    if (index > 0) pieces.push(pause);
    pieces.push(samples);
  }
  const scaled = await normalizeLoudnessInParallel(
    pieces,
    OUTPUT_SAMPLE_RATE,
    preset.loudnessLufs,
    TRUE_PEAK_CEILING_DB[format],
    signal,
  );
  const sampleCount = scaled.reduce((sum, piece) => sum + piece.length, 0);

  if (format === 'wav') {
    // Written piece by piece: an hour of audio is never copied into one buffer.
    const file = await open(outPath, 'w');
    try {
      await file.write(wavHeader(sampleCount, OUTPUT_SAMPLE_RATE));
      for (const piece of scaled) await file.write(pcmBytes(piece));
    } finally {
      await file.close();
    }
  } else {
    await encodeWithinLimit(scaled, format, outPath, signal);
  }
  const bytes = (await stat(outPath)).size;
  return { durationSeconds: sampleCount / OUTPUT_SAMPLE_RATE, contentType: CONTENT_TYPES[format], bytes };
}

/** The pause between two chunks, in samples: the chunks carry the emotion's rate and the speed, and the pauses scale the same way. */
export function pauseSamples(input: Pick<FinishAudioInput, 'pauseSeconds' | 'speed' | 'emotion'>): number {
  return Math.round(
    ((input.pauseSeconds ?? 0.35) / (EMOTION_PRESETS[input.emotion].rate * input.speed)) * OUTPUT_SAMPLE_RATE,
  );
}

/**
 * Encodes `pcm` to `outPath` and, at the same time, measures the true peak of
 * the encoded audio as a player decodes it: one encoder whose output ffmpeg's
 * tee muxer writes to the file and to a pipe, where a second ffmpeg decodes
 * it as it comes and meters it (ebur128: BS.1770 true peak, oversampled to
 * 192 kHz). Side by side rather than one after the other, the two processes'
 * start-ups and work overlap; the file's bytes are those of a plain encode.
 * In dBTP; frame logs stay at verbose level.
 */
async function encodeAndMeasure(
  pcm: readonly Int16Array[],
  format: OutputFormat,
  outPath: string,
  signal?: AbortSignal,
): Promise<number> {
  // The tee muxer reads '[', '|' and '\\' in its output names; ours are temporary paths this code chose.
  if (/[[\]|\\]/.test(outPath)) throw new RangeError(`finishAudio: unusable output path ${outPath}`);
  // Either process failing stops the other: a meter gone would leave the encoder blocked on a full pipe.
  const failed = new AbortController();
  const both = signal ? AbortSignal.any([signal, failed.signal]) : failed.signal;
  const settle = <T>(work: Promise<T>) =>
    work.catch((error: unknown) => {
      failed.abort(error);
      throw error;
    });
  const encoded = new PassThrough();
  const input = Readable.from(pcm.map(pcmBytes));
  const [, { stderr }] = await Promise.all([
    settle(
      ffmpeg(
        [
          ...rawPcmInput(OUTPUT_SAMPLE_RATE),
          ...REPRODUCIBLE_OUTPUT,
          ...ENCODERS[format],
          '-map',
          '0:a',
          '-f',
          'tee',
          `[f=${format}:fflags=+bitexact]${fileUrl(outPath)}|[f=${format}:flush_packets=0]pipe:1`,
        ],
        both,
        input,
        encoded,
      ),
    ),
    settle(
      ffmpeg(
        ['-v', 'info', '-f', format, '-i', 'pipe:0', '-af', 'ebur128=peak=true:framelog=verbose', '-f', 'null', '-'],
        both,
        encoded,
      ),
    ),
  ]);
  const match = /True peak:\s*\n\s*Peak:\s*(-?inf|-?[\d.]+) dBFS/.exec(stderr);
  if (!match) throw new Error('ffmpeg ebur128 printed no true peak');
  return match[1].endsWith('inf') ? -Infinity : Number(match[1]);
}

/**
 * Encodes to a lossy format and measures the result: when the encoder pushed
 * the true peak over the limit, the whole signal is attenuated by the excess
 * (plus a margin) and encoded again. Usually one encode, measured as it is written.
 */
async function encodeWithinLimit(
  pcm: Int16Array[],
  format: OutputFormat,
  outPath: string,
  signal?: AbortSignal,
): Promise<void> {
  let attenuationDb = 0;
  for (let attempt = 1; ; attempt++) {
    const gain = 10 ** (-attenuationDb / 20);
    const pieces =
      attenuationDb === 0 ? pcm : pcm.map((piece) => Int16Array.from(piece, (sample) => Math.round(sample * gain)));
    const peak = await encodeAndMeasure(pieces, format, outPath, signal);
    const target = TRUE_PEAK_LIMIT_DB - ENCODED_MARGIN_DB;
    if (peak <= TRUE_PEAK_LIMIT_DB - ENCODED_MARGIN_DB / 2 || attempt === MAX_ENCODE_ATTEMPTS) return;
    attenuationDb += peak - target;
  }
}
