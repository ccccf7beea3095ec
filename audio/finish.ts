import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { withTempDir } from '../engines/process';
import { ffmpeg, fileUrl } from './ffmpeg';
import { assertProsody, type Emotion, EMOTION_PRESETS, type OutputFormat } from './prosody';
import { CHUNK_SAMPLE_RATE, readWavInfo, writeSilenceWav } from './wav';

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
  /** Chunks from renderChunk, in text order (24 kHz mono WAV). */
  chunkPaths: readonly string[];
  /** 0.5-2.0, a tempo change with the pitch preserved (the pauses between chunks scale with it). */
  speed: number;
  /** -12..+12 semitones, pitch shift with formants preserved. */
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
export const OUTPUT_SAMPLE_RATE = 24_000;

const ENCODERS: Readonly<Record<OutputFormat, string[]>> = {
  wav: ['-c:a', 'pcm_s16le', '-f', 'wav'],
  mp3: ['-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'],
  ogg: ['-c:a', 'libopus', '-b:a', '48k', '-application', 'voip', '-f', 'ogg'],
  flac: ['-c:a', 'flac', '-f', 'flac'],
};

const num = (value: number, digits = 4): string => {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  return value.toFixed(digits);
};

// loudnorm's dynamic mode needs 3 s of audio: on a shorter input it outputs ~15-30 dB too quiet,
// and padding with silence overshoots by ~2 LU. Looping the audio and keeping the first pass lands on target.
const LOUDNORM_MIN_SECONDS = 3.2;

/**
 * The filter chain after the join: tempo and pitch, tone, profile EQ,
 * loudness, resampling. `inputSeconds` (the joined length) lets a short input
 * be looped for loudnorm and trimmed back.
 */
export function finishFilters(input: Pick<FinishAudioInput, 'speed' | 'pitch' | 'emotion' | 'profile'>, inputSeconds: number): string {
  const preset = EMOTION_PRESETS[input.emotion];
  const semitones = input.pitch + preset.semitones + (input.profile?.semitones ?? 0);
  if (!Number.isFinite(semitones) || Math.abs(semitones) > 36) throw new RangeError(`pitch shift out of range: ${semitones}`);
  if (!(input.speed > 0)) throw new RangeError(`speed out of range: ${input.speed}`);
  const filters: string[] = [];
  const tempo = Math.abs(input.speed - 1) > 1e-6;
  const shift = Math.abs(semitones) > 1e-6;
  if (tempo || shift) {
    // pitchq=quality: the default quality cuts everything above ~6.4 kHz with formants preserved.
    const options = [tempo && `tempo=${num(input.speed, 6)}`, shift && `pitch=${num(2 ** (semitones / 12), 6)}:pitchq=quality:formant=preserved`];
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
  const outputSeconds = inputSeconds / input.speed;
  const short = outputSeconds < LOUDNORM_MIN_SECONDS;
  if (short) {
    const loops = Math.ceil(LOUDNORM_MIN_SECONDS / Math.max(outputSeconds, 0.05));
    // size (samples) only has to cover the input: aloop repeats what it got when the input ends.
    filters.push(`aloop=loop=${loops}:size=${Math.ceil((outputSeconds + 1) * CHUNK_SAMPLE_RATE)}`);
  }
  // loudnorm works at 192 kHz internally and outputs that unless told otherwise: resample after it.
  filters.push(`loudnorm=I=${num(preset.loudnessLufs, 1)}:TP=-1.5:LRA=11`);
  filters.push(`aresample=${OUTPUT_SAMPLE_RATE}:resampler=soxr`);
  if (short) filters.push(`atrim=duration=${num(outputSeconds, 4)}`);
  return filters.join(',');
}

/**
 * Joins rendered chunks (a short pause between them), applies pitch, the
 * emotion's pitch, tone and loudness, an optional voice profile, EBU R128
 * loudness normalization, and encodes: all in one ffmpeg call.
 */
export async function finishAudio(input: FinishAudioInput): Promise<FinishAudioResult> {
  const { chunkPaths, format, outPath, signal } = input;
  assertProsody(input);
  if (!(format in ENCODERS)) throw new RangeError(`output_format: must be one of ${Object.keys(ENCODERS).join(', ')}`);
  if (chunkPaths.length === 0) throw new RangeError('finishAudio needs at least one chunk');
  // The chunks carry the emotion's rate already; the tempo change after the join scales the pauses by the speed.
  const pause = (input.pauseSeconds ?? 0.35) / EMOTION_PRESETS[input.emotion].rate;

  const chunkSeconds = await Promise.all(chunkPaths.map(async (chunk) => (await readWavInfo(chunk)).durationSeconds));
  const inputSeconds = chunkSeconds.reduce((sum, seconds) => sum + seconds, 0) + pause * (chunkPaths.length - 1);

  const progress = await withTempDir(async (dir) => {
    const silence = path.join(dir, 'pause.wav');
    await writeSilenceWav(silence, pause, CHUNK_SAMPLE_RATE);
    const files = chunkPaths.flatMap((chunk, index) => (index === 0 ? [chunk] : [silence, chunk]));
    const list = ['ffconcat version 1.0', ...files.map((file) => `file ${quoteConcatPath(fileUrl(file))}`)].join('\n');
    const listFile = path.join(dir, 'chunks.ffconcat');
    await writeFile(listFile, `${list}\n`, 'utf8');
    const { stdout } = await ffmpeg(
      [
        '-f', 'concat', '-safe', '0', '-i', fileUrl(listFile),
        '-af', finishFilters(input, inputSeconds),
        '-ar', String(OUTPUT_SAMPLE_RATE), '-ac', '1',
        // Same input, same bytes: no encoder tag or random stream serial.
        '-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact',
        ...ENCODERS[format],
        '-progress', 'pipe:1',
        fileUrl(outPath),
      ],
      signal,
    );
    return stdout.toString('utf8');
  });

  const bytes = (await stat(outPath)).size;
  const durationSeconds = format === 'wav' ? (await readWavInfo(outPath)).durationSeconds : lastOutTime(progress);
  return { durationSeconds, contentType: CONTENT_TYPES[format], bytes };
}

/** A path as a quoted ffconcat token ('it'\''s' style). */
function quoteConcatPath(file: string): string {
  return `'${file.replace(/'/g, "'\\''")}'`;
}

/** The encoded duration from ffmpeg's final `-progress` report. */
function lastOutTime(progress: string): number {
  const matches = [...progress.matchAll(/^out_time_us=(\d+)$/gm)];
  const micros = Number(matches.at(-1)?.[1] ?? NaN);
  if (!Number.isFinite(micros)) throw new Error('ffmpeg reported no output duration');
  return micros / 1e6;
}
