import { readFile } from 'node:fs/promises';
import { percentile, yinPitchTrack } from '../analysis';
import { decimateByTwo } from './dsp';

/**
 * Is there speech, and where: an energy VAD on 10 ms frames plus YIN voicing
 * (run at 8 kHz, 4x cheaper than at 16 kHz, since F0 up to 500 Hz needs no
 * more). Shared by intake (accept or reject) and the speaker profile.
 */

export const FRAME_SECONDS = 0.01;

export interface SpeechActivity {
  sampleRate: number;
  /** Level of each 10 ms frame, dBFS. */
  frameDb: Float64Array;
  /** Frames at or above this level (dBFS) count as speech activity. */
  thresholdDb: number;
  /** 1 for an active (above threshold) 10 ms frame. */
  active: Uint8Array;
  /** YIN F0 per 10 ms frame (null: unvoiced or silent); frame i starts at sample i × 10 ms. */
  pitch: Array<number | null>;
  /** Active frames, seconds (pauses excluded). */
  speechSeconds: number;
  voicedSeconds: number;
  /** YIN median F0 of voiced frames, Hz. */
  f0MedianHz: number | null;
  /** Standard deviation of voiced F0 around the median, semitones: ~2-4 in speech, ~0 for a steady tone. */
  f0StdSemitones: number | null;
  f0P10Hz: number | null;
  f0P90Hz: number | null;
  peakDb: number;
  /** RMS of the active frames, dBFS. */
  activeRmsDb: number;
  /** Share of samples within 0.2 dB of full scale (clipped or about to be). */
  clippingRatio: number;
}

const dB = (value: number): number => (value > 0 ? 20 * Math.log10(value) : -120);

export function detectSpeech(samples: Float32Array, sampleRate: number): SpeechActivity {
  const frame = Math.round(sampleRate * FRAME_SECONDS);
  const frames = Math.floor(samples.length / frame);
  const frameDb = new Float64Array(frames);
  const frameEnergy = new Float64Array(frames);
  let peak = 0;
  let clipped = 0;
  for (let f = 0; f < frames; f++) {
    let energy = 0;
    for (let i = f * frame; i < (f + 1) * frame; i++) {
      const value = samples[i];
      energy += value * value;
      const magnitude = Math.abs(value);
      if (magnitude > peak) peak = magnitude;
      if (magnitude >= 0.977) clipped++;
    }
    frameEnergy[f] = energy;
    frameDb[f] = dB(Math.sqrt(energy / frame));
  }
  const levels = Array.from(frameDb);
  const loud = percentile(levels, 0.95) ?? -120;
  const floor = percentile(levels, 0.1) ?? -120;
  // 35 dB below the loud frames, but above a noise floor (+6 dB) and never within 12 dB of the loud frames.
  const thresholdDb = Math.min(loud - 12, Math.max(-60, loud - 35, floor + 6));
  const active = new Uint8Array(frames);
  let activeFrames = 0;
  let activeEnergy = 0;
  for (let f = 0; f < frames; f++) {
    if (frameDb[f] >= thresholdDb) {
      active[f] = 1;
      activeFrames++;
      activeEnergy += frameEnergy[f];
    }
  }

  const pitch = pitchTrack(samples, sampleRate, thresholdDb - 3);
  const voiced = pitch.filter((f0): f0 is number => f0 !== null);
  const median = percentile(voiced, 0.5);
  let std: number | null = null;
  if (median !== null && voiced.length >= 3) {
    std = Math.sqrt(voiced.reduce((sum, f0) => sum + (12 * Math.log2(f0 / median)) ** 2, 0) / voiced.length);
  }
  return {
    sampleRate,
    frameDb,
    thresholdDb,
    active,
    pitch,
    speechSeconds: activeFrames * FRAME_SECONDS,
    voicedSeconds: voiced.length * FRAME_SECONDS,
    f0MedianHz: median,
    f0StdSemitones: std,
    f0P10Hz: percentile(voiced, 0.1),
    f0P90Hz: percentile(voiced, 0.9),
    peakDb: dB(peak),
    activeRmsDb: activeFrames ? dB(Math.sqrt(activeEnergy / (activeFrames * frame))) : -120,
    clippingRatio: samples.length ? clipped / samples.length : 0,
  };
}

/** YIN F0 per 10 ms (or `hopSeconds`) frame between 50 and 500 Hz, at half the sample rate when that is still >= 8 kHz. */
export function pitchTrack(
  samples: Float32Array,
  sampleRate: number,
  silenceDb: number,
  threshold = 0.15,
  hopSeconds = FRAME_SECONDS,
): Array<number | null> {
  const half = sampleRate >= 16_000;
  const input = half ? decimateByTwo(samples) : samples;
  return yinPitchTrack(input, half ? sampleRate / 2 : sampleRate, {
    minHz: 50,
    maxHz: 500,
    silenceDb,
    threshold,
    hopSeconds,
  });
}

/**
 * Reads a PCM 16-bit WAV as float samples (first channel), or null when the
 * file is not one (then decode it with ffmpeg). Used for the WAVs intake
 * writes itself, which saves a process start.
 */
export async function readPcm16Wav(
  file: string,
): Promise<{ samples: Float32Array; sampleRate: number; channels: number } | null> {
  const bytes = await readFile(file);
  if (bytes.length < 12 || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WAVE')
    return null;
  let offset = 12;
  let format: { tag: number; channels: number; sampleRate: number; bits: number } | undefined;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString('latin1', offset, offset + 4);
    const length = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ' && body + 16 <= bytes.length) {
      format = {
        tag: bytes.readUInt16LE(body),
        channels: bytes.readUInt16LE(body + 2),
        sampleRate: bytes.readUInt32LE(body + 4),
        bits: bytes.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!format || format.tag !== 1 || format.bits !== 16 || format.channels < 1) return null;
      const end = Math.min(bytes.length, body + length);
      const count = Math.floor((end - body) / (2 * format.channels));
      const samples = new Float32Array(count);
      for (let i = 0; i < count; i++) samples[i] = bytes.readInt16LE(body + i * 2 * format.channels) / 32768;
      return { samples, sampleRate: format.sampleRate, channels: format.channels };
    }
    offset = body + length + (length % 2);
  }
  return null;
}
