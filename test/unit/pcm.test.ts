import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { padWav, readWavSamples } from '../../audio/wav';
import { pcmBytes, wavHeader } from '../../lib/wavFormat';
import { resample, speechBounds } from '../../audio/pcm';

const tone = (hz: number, seconds: number, rate: number, amplitude = 0.5) =>
  Int16Array.from({ length: Math.round(seconds * rate) }, (_, i) =>
    Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * hz * i) / rate)),
  );

/** RMS in dBFS over the middle of the signal (the edges see the filter's start-up). */
function rmsDb(samples: Int16Array): number {
  const middle = samples.subarray(Math.floor(samples.length * 0.1), Math.floor(samples.length * 0.9));
  const power = middle.reduce((sum, sample) => sum + sample * sample, 0) / middle.length;
  return 10 * Math.log10(power / 32768 ** 2);
}

/** Frequency from the count of rising zero crossings. */
function frequency(samples: Int16Array, rate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1] < 0 && samples[i] >= 0) crossings++;
  return crossings / (samples.length / rate);
}

describe('resample', () => {
  it.each([
    [32_000, 24_000],
    [16_000, 24_000],
    [22_050, 24_000],
    [24_000, 48_000],
  ])('%i Hz → %i Hz keeps a 1 kHz tone: its frequency, level and length', (from, to) => {
    const input = tone(1000, 2, from);
    const output = resample(input, from, to);
    expect(output.length).toBeCloseTo((input.length * to) / from, -1);
    expect(frequency(output, to)).toBeCloseTo(1000, -1);
    expect(Math.abs(rmsDb(output) - rmsDb(input))).toBeLessThan(0.1);
  });

  it('keeps a tone just below the new Nyquist frequency and removes one above it (no aliasing)', () => {
    const kept = resample(tone(9_000, 1, 32_000), 32_000, 24_000);
    expect(rmsDb(kept)).toBeGreaterThan(-9.2); // a 0.5-amplitude sine is -9 dBFS
    const alias = resample(tone(14_000, 1, 32_000), 32_000, 24_000);
    expect(rmsDb(alias)).toBeLessThan(-9 - 60);
  });

  it('returns the input untouched at the same rate', () => {
    const input = tone(440, 0.1, 24_000);
    expect(resample(input, 24_000, 24_000)).toBe(input);
  });
});

describe('speechBounds', () => {
  const rate = 24_000;
  const withSilence = () => {
    const samples = new Int16Array(rate * 2); // 0.5 s silence, 1 s tone, 0.5 s silence
    samples.set(tone(300, 1, rate, 0.3), rate / 2);
    return samples;
  };

  it('trims leading and trailing silence, keeping the asked margins', () => {
    const { start, end } = speechBounds(withSilence(), rate, -55, 0.03, 0.08);
    expect(start / rate).toBeCloseTo(0.5 - 0.03, 2);
    expect(end / rate).toBeCloseTo(1.5 + 0.08, 2);
  });

  it('treats low noise as silence and keeps a signal that never passes the threshold whole', () => {
    const noisy = withSilence().map((sample, i) => (sample === 0 ? (i % 2 ? 20 : -20) : sample)); // about -64 dBFS
    expect(speechBounds(Int16Array.from(noisy), rate, -55, 0, 0).start / rate).toBeCloseTo(0.5, 2);
    expect(speechBounds(new Int16Array(rate), rate, -55, 0.03, 0.08)).toEqual({ start: 0, end: rate });
  });

  it('finds the first window ending loud and the last window starting loud, to the sample', () => {
    // Reference: every 20 ms window's energy summed directly (shorter at the signal's edges).
    const reference = (samples: Int16Array, sampleRate: number, thresholdDb: number) => {
      const window = Math.round(0.02 * sampleRate);
      const threshold = (32768 * 10 ** (thresholdDb / 20)) ** 2 * window;
      const energy = (from: number, to: number) =>
        samples.subarray(Math.max(0, from), Math.min(samples.length, to)).reduce((sum, x) => sum + x * x, 0);
      let first = 0;
      while (first < samples.length && !(energy(first + 1 - window, first + 1) > threshold)) first++;
      let last = samples.length - 1;
      while (last > first && !(energy(last, last + window) > threshold)) last--;
      return { start: first, end: last + 1 };
    };
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    for (const sampleRate of [16_000, 22_050]) {
      for (let run = 0; run < 4; run++) {
        // Bursts of noise at varied levels between quiet stretches, loud at the very edges in one run.
        const samples = Int16Array.from({ length: sampleRate }, (_, i) => {
          const burst = Math.floor((i / sampleRate) * 10) % 3 === 1 || (run === 3 && (i < 50 || i > sampleRate - 50));
          return Math.round(random() * (burst ? 3000 * (run + 1) : 15));
        });
        expect(speechBounds(samples, sampleRate, -55, 0, 0)).toEqual(reference(samples, sampleRate, -55));
      }
    }
  });
});

describe('padWav', () => {
  it('lengthens a WAV with silence, its sizes rewritten, and refuses to shorten one', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pad-wav-'));
    try {
      const file = path.join(dir, 'a.wav');
      const samples = Int16Array.from({ length: 1000 }, (_, i) => (i % 50) - 25);
      await writeFile(file, Buffer.concat([wavHeader(samples.length, 44_100), pcmBytes(samples)]));
      await padWav(file, 1152);
      const padded = await readWavSamples(file);
      expect(padded.sampleRate).toBe(44_100);
      expect(padded.samples.length).toBe(1152);
      expect([...padded.samples.subarray(0, 1000)]).toEqual([...samples]);
      expect(padded.samples.subarray(1000).every((sample) => sample === 0)).toBe(true);
      const bytes = await readFile(file);
      expect(bytes.length).toBe(44 + 1152 * 2);
      expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
      await expect(padWav(file, 1000)).rejects.toThrow(RangeError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
