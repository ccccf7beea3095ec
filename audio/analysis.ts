import path from 'node:path';
import { run } from '../lib/process';

/**
 * Measuring audio: decode anything ffmpeg reads to 16 kHz mono float PCM and
 * compute what tests and the cloning work compare: duration from the decoded
 * samples (never a header), level, silence, and F0 by YIN.
 */

export const ANALYSIS_RATE = 16_000;

export interface DecodeOptions {
  /** Force the input format when the content has no container (e.g. `g722`). */
  inputFormat?: string;
  /** Fail on the first decoding error (ffmpeg `-xerror`) instead of skipping damaged data. Default true. */
  strict?: boolean;
  signal?: AbortSignal;
}

export interface DecodedAudio {
  samples: Float32Array;
  sampleRate: number;
  /** EBU R128 integrated loudness of the whole input (mono), in LUFS; -70 for silence. */
  integratedLufs: number;
}

/** Decodes the first audio stream of `file` to 16 kHz mono float samples, measuring R128 loudness on the way. */
export async function decodeAudio(file: string, options: DecodeOptions = {}): Promise<DecodedAudio> {
  const args = ['-nostdin', '-hide_banner', '-nostats', '-v', 'info'];
  if (options.strict !== false) args.push('-xerror');
  if (options.inputFormat) args.push('-f', options.inputFormat);
  args.push(
    // The file: protocol keeps a name with a colon from being read as another protocol.
    '-i',
    `file:${path.resolve(file)}`,
    '-map',
    '0:a:0',
    // framelog=verbose keeps the per-frame lines out of the info-level log; the summary stays.
    '-af',
    `aformat=channel_layouts=mono,ebur128=framelog=verbose,aresample=${ANALYSIS_RATE},aformat=sample_fmts=flt`,
    '-f',
    'f32le',
    'pipe:1',
  );
  const { stdout, stderr } = await run('ffmpeg', args, { signal: options.signal, timeoutMs: 300_000 });
  // Copy into an aligned buffer: a Buffer's byteOffset need not be a multiple of 4.
  const samples = new Float32Array(stdout.byteLength / 4);
  new Uint8Array(samples.buffer).set(stdout.subarray(0, samples.length * 4));
  const summary = stderr.slice(stderr.lastIndexOf('Integrated loudness:'));
  const lufs = Number(/I:\s+(-?[\d.]+|-inf) LUFS/.exec(summary)?.[1] ?? NaN);
  return { samples, sampleRate: ANALYSIS_RATE, integratedLufs: Number.isFinite(lufs) ? lufs : -70 };
}

export interface AudioAnalysis {
  durationSeconds: number;
  /** RMS over the whole signal, dBFS. */
  rmsDb: number;
  /** RMS over the frames that are not silent, dBFS: the speaking level. */
  activeRmsDb: number;
  peakDb: number;
  integratedLufs: number;
  /** Share of 20 ms frames quieter than 35 dB below the loud frames (or -70 dBFS). */
  silenceRatio: number;
  /** Share of 10 ms analysis frames YIN found voiced. */
  voicedRatio: number;
  /** Median F0 of voiced frames in Hz, or null when nothing is voiced. */
  f0MedianHz: number | null;
  /** Standard deviation of voiced F0 around the median, in semitones. */
  f0StdSemitones: number | null;
  /** 10th-90th percentile span of voiced F0, in semitones. */
  f0RangeSemitones: number | null;
}

const dB = (value: number): number => (value > 0 ? 20 * Math.log10(value) : -Infinity);

/** Decodes and measures `file`. */
export async function analyseAudio(file: string, options: DecodeOptions = {}): Promise<AudioAnalysis> {
  const decoded = await decodeAudio(file, options);
  return { ...measureSamples(decoded.samples, decoded.sampleRate), integratedLufs: decoded.integratedLufs };
}

/** The measurements that need only samples (integratedLufs is left at -70; decodeAudio measures it). */
export function measureSamples(samples: Float32Array, sampleRate: number): AudioAnalysis {
  let sumSquares = 0;
  let peak = 0;
  for (const sample of samples) {
    sumSquares += sample * sample;
    peak = Math.max(peak, Math.abs(sample));
  }

  const frame = Math.round(sampleRate * 0.02);
  const frameDb: number[] = [];
  const frameEnergy: number[] = [];
  for (let start = 0; start + frame <= samples.length; start += frame) {
    let energy = 0;
    for (let index = start; index < start + frame; index++) energy += samples[index] * samples[index];
    frameEnergy.push(energy);
    frameDb.push(dB(Math.sqrt(energy / frame)));
  }
  const loud = percentile(frameDb.filter(Number.isFinite), 0.95) ?? -Infinity;
  const threshold = Math.max(-70, loud - 35);
  let silent = 0;
  let activeEnergy = 0;
  let activeFrames = 0;
  frameDb.forEach((level, index) => {
    if (level < threshold) silent++;
    else {
      activeEnergy += frameEnergy[index];
      activeFrames++;
    }
  });

  const pitch = yinPitchTrack(samples, sampleRate, { silenceDb: threshold });
  const voiced = pitch.filter((f0): f0 is number => f0 !== null);
  const median = percentile(voiced, 0.5);
  let f0Std: number | null = null;
  let f0Range: number | null = null;
  if (median !== null && voiced.length >= 3) {
    const semitones = voiced.map((f0) => 12 * Math.log2(f0 / median));
    f0Std = Math.sqrt(semitones.reduce((sum, value) => sum + value * value, 0) / semitones.length);
    f0Range = percentile(semitones, 0.9)! - percentile(semitones, 0.1)!;
  }

  return {
    durationSeconds: samples.length / sampleRate,
    rmsDb: samples.length ? dB(Math.sqrt(sumSquares / samples.length)) : -Infinity,
    activeRmsDb: activeFrames ? dB(Math.sqrt(activeEnergy / (activeFrames * frame))) : -Infinity,
    peakDb: dB(peak),
    integratedLufs: -70,
    silenceRatio: frameDb.length ? silent / frameDb.length : 1,
    voicedRatio: pitch.length ? voiced.length / pitch.length : 0,
    f0MedianHz: median,
    f0StdSemitones: f0Std,
    f0RangeSemitones: f0Range,
  };
}

export interface YinOptions {
  minHz?: number;
  maxHz?: number;
  /** Cumulative-mean-normalized difference below which a period is accepted (YIN's absolute threshold). */
  threshold?: number;
  /** Frames quieter than this (dBFS) are unvoiced without looking. */
  silenceDb?: number;
  hopSeconds?: number;
}

/**
 * F0 per 10 ms frame by YIN (de Cheveigné & Kawahara 2002): difference
 * function, cumulative mean normalization, absolute threshold, parabolic
 * interpolation. null marks an unvoiced or silent frame.
 */
export function yinPitchTrack(
  samples: Float32Array,
  sampleRate: number,
  options: YinOptions = {},
): Array<number | null> {
  const minHz = options.minHz ?? 40;
  const maxHz = options.maxHz ?? 600;
  const threshold = options.threshold ?? 0.15;
  const silenceDb = options.silenceDb ?? -60;
  const hop = Math.round(sampleRate * (options.hopSeconds ?? 0.01));
  const tauMin = Math.max(2, Math.floor(sampleRate / maxHz));
  const tauMax = Math.ceil(sampleRate / minHz);
  const window = tauMax + 1; // at least one period of the lowest F0
  const diff = new Float64Array(tauMax + 2);
  const track: Array<number | null> = [];

  for (let start = 0; start + window + tauMax + 1 <= samples.length; start += hop) {
    let energy = 0;
    for (let index = start; index < start + window; index++) energy += samples[index] * samples[index];
    if (dB(Math.sqrt(energy / window)) < silenceDb) {
      track.push(null);
      continue;
    }
    for (let tau = 1; tau <= tauMax + 1; tau++) {
      let sum = 0;
      for (let index = start; index < start + window; index++) {
        const delta = samples[index] - samples[index + tau];
        sum += delta * delta;
      }
      diff[tau] = sum;
    }
    // Cumulative mean normalized difference, in place.
    diff[0] = 1;
    let running = 0;
    for (let tau = 1; tau <= tauMax + 1; tau++) {
      running += diff[tau];
      diff[tau] = running > 0 ? (diff[tau] * tau) / running : 1;
    }
    let found = -1;
    for (let tau = tauMin; tau <= tauMax; tau++) {
      if (diff[tau] < threshold) {
        while (tau + 1 <= tauMax && diff[tau + 1] < diff[tau]) tau++;
        found = tau;
        break;
      }
    }
    if (found < 0) {
      track.push(null);
      continue;
    }
    const before = diff[found - 1];
    const at = diff[found];
    const after = diff[found + 1];
    const curvature = before + after - 2 * at;
    const shift = curvature > 0 ? (before - after) / (2 * curvature) : 0;
    track.push(sampleRate / (found + Math.max(-1, Math.min(1, shift))));
  }
  return track;
}

/** The p-quantile (0-1) by linear interpolation, or null for no values. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * p;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}

export interface FormatInfo {
  /** ffprobe's format name, e.g. `wav`, `mp3`, `ogg`, `flac`, `mov,mp4,m4a,3gp,3g2,mj2`. */
  container: string;
  /** Codec of the first audio stream, e.g. `pcm_s16le`, `mp3`, `opus`, `vorbis`, `flac`, `aac`. */
  codec: string;
  sampleRate: number;
  channels: number;
}

/** Container and codec by content (ffprobe); null when no audio stream is found. */
export async function probeFormat(file: string, signal?: AbortSignal): Promise<FormatInfo | null> {
  let stdout: Buffer;
  try {
    ({ stdout } = await run(
      'ffprobe',
      [
        '-v',
        'error',
        '-select_streams',
        'a:0',
        '-show_entries',
        'format=format_name:stream=codec_name,sample_rate,channels',
        '-of',
        'json',
        `file:${path.resolve(file)}`,
      ],
      { signal, timeoutMs: 30_000 },
    ));
  } catch {
    return null;
  }
  const info = JSON.parse(stdout.toString('utf8')) as {
    format?: { format_name?: string };
    streams?: Array<{ codec_name?: string; sample_rate?: string; channels?: number }>;
  };
  const stream = info.streams?.[0];
  if (!info.format?.format_name || !stream?.codec_name) return null;
  return {
    container: info.format.format_name,
    codec: stream.codec_name,
    sampleRate: Number(stream.sample_rate ?? 0),
    channels: stream.channels ?? 0,
  };
}
