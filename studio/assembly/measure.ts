import { createReadStream } from 'node:fs';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { LoudnessMeter } from '../../audio/loudness';
import { fileUrl } from '../../audio/ffmpeg';
import { readWavInfo } from '../../audio/wav';
import { studioFfmpeg } from './ffmpeg';

/** Every level is measured at the master's rate (44.1 kHz): a decoded MP3 is resampled to it if needed. */
const SAMPLE_RATE = 44_100;
/** ACX measures the noise floor over short windows; 500 ms is long enough to hold no word's gap. */
const WINDOW_SAMPLES = Math.round(SAMPLE_RATE * 0.5);
/** What digital silence reads as (16-bit's floor). */
const SILENCE_DB = -144;

export interface LevelMeasure {
  /** Overall RMS, dBFS. */
  rmsDb: number;
  /** Sample peak, dBFS. */
  peakDb: number;
  /** RMS of the quietest whole 500 ms window, dBFS (the first window when there is no whole one). */
  noiseFloorDb: number;
  /** Integrated loudness (EBU R128), LUFS; NaN unless asked for (it is most of the measure's CPU). */
  loudnessLufs: number;
  durationMs: number;
}

const decibels = (power: number) => (power > 0 ? Math.max(10 * Math.log10(power), SILENCE_DB) : SILENCE_DB);

/**
 * Levels of 44.1 kHz mono samples fed in pieces, in Node: nothing is held but
 * the loudness meter's 100 ms steps (~36,000 numbers an hour).
 */
export class LevelMeter {
  private readonly loudness: LoudnessMeter | null;
  private energy = 0;
  private samples = 0;
  private peak = 0;
  private windowEnergy = 0;
  private windowFill = 0;
  private quietest = Number.POSITIVE_INFINITY;

  constructor(withLoudness: boolean) {
    this.loudness = withLoudness ? new LoudnessMeter(SAMPLE_RATE) : null;
  }

  push(piece: Float32Array): void {
    this.loudness?.push(piece);
    let energy = 0;
    let peak = this.peak;
    let windowEnergy = this.windowEnergy;
    let windowFill = this.windowFill;
    for (let i = 0; i < piece.length; i++) {
      const x = piece[i];
      const square = x * x;
      energy += square;
      windowEnergy += square;
      const magnitude = x < 0 ? -x : x;
      if (magnitude > peak) peak = magnitude;
      if (++windowFill === WINDOW_SAMPLES) {
        this.quietest = Math.min(this.quietest, windowEnergy / WINDOW_SAMPLES);
        windowEnergy = 0;
        windowFill = 0;
      }
    }
    this.energy += energy;
    this.samples += piece.length;
    this.peak = peak;
    this.windowEnergy = windowEnergy;
    this.windowFill = windowFill;
  }

  result(name: string): LevelMeasure {
    if (this.samples === 0) throw new Error(`${name}: no audio to measure`);
    // A recording shorter than a window: its one partial window is its floor.
    const floor = Number.isFinite(this.quietest) ? this.quietest : this.windowEnergy / this.windowFill;
    return {
      rmsDb: decibels(this.energy / this.samples),
      peakDb: this.peak > 0 ? Math.max(20 * Math.log10(this.peak), SILENCE_DB) : SILENCE_DB,
      noiseFloorDb: decibels(floor),
      loudnessLufs: this.loudness ? this.loudness.integrated() : Number.NaN,
      durationMs: Math.round((this.samples / SAMPLE_RATE) * 1000),
    };
  }
}

/** Feeds little-endian float or 16-bit samples arriving in chunks of any length (a sample may straddle two). */
function pcmFeeder(meter: LevelMeter, bytesPerSample: 2 | 4): (chunk: Buffer) => void {
  let rest = Buffer.alloc(0);
  return (chunk) => {
    const bytes = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    const whole = bytes.length - (bytes.length % bytesPerSample);
    // A copy of the whole samples: aligned for a typed view (this machine, like every Node target, is little-endian).
    const aligned = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + whole);
    if (bytesPerSample === 4) meter.push(new Float32Array(aligned));
    else {
      const samples = new Int16Array(aligned);
      const piece = new Float32Array(samples.length);
      for (let i = 0; i < samples.length; i++) piece[i] = samples[i] / 32768;
      meter.push(piece);
    }
    rest = Buffer.from(bytes.subarray(whole));
  };
}

/**
 * Levels of a 44.1 kHz mono PCM WAV (16-bit or float) this assembly wrote,
 * read from the file in Node: no decoder needed.
 */
export async function measureWav(
  file: string,
  options: { loudness: boolean; signal?: AbortSignal },
): Promise<LevelMeasure> {
  const { signal } = options;
  const info = await readWavInfo(file);
  if (info.sampleRate !== SAMPLE_RATE || info.channels !== 1 || ![16, 32].includes(info.bitsPerSample))
    throw new Error(`${file}: not a 44.1 kHz mono 16-bit or float WAV`);
  const meter = new LevelMeter(options.loudness);
  const feed = pcmFeeder(meter, info.bitsPerSample === 32 ? 4 : 2);
  if (info.dataBytes > 0) {
    const end = info.dataOffset + info.dataBytes - 1;
    for await (const chunk of createReadStream(file, { start: info.dataOffset, end, signal }) as AsyncIterable<Buffer>)
      feed(chunk);
  }
  return meter.result(file);
}

/**
 * Levels of an audio file as a listener's decoder outputs them (a delivered
 * MP3): ffmpeg decodes it to 44.1 kHz mono float on its stdout, measured as
 * it comes.
 */
export async function measureLevels(
  file: string,
  options: { loudness: boolean; signal?: AbortSignal },
): Promise<LevelMeasure> {
  const { signal } = options;
  const meter = new LevelMeter(options.loudness);
  const feed = pcmFeeder(meter, 4);
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      feed(chunk);
      done();
    },
  });
  const args = ['-i', fileUrl(file), '-ar', String(SAMPLE_RATE), '-ac', '1', '-c:a', 'pcm_f32le', '-f', 'f32le'];
  await studioFfmpeg([...args, 'pipe:1'], signal, sink);
  await finished(sink);
  return meter.result(file);
}
