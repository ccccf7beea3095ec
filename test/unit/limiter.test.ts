import { applyGain, normalizeLoudness } from '../../audio/loudness';
import { normalizeLoudnessInParallel, PARALLEL_FROM_SAMPLES, shares } from '../../audio/parallelLoudness';
import { truePeakScanner } from '../../audio/truePeak';

/**
 * The limiter's fast paths (the interpolation without bounds tests, the
 * samples skipped under a bound) must give the same output as true peaks
 * computed the plain way: every sample, every tap, bounds tested.
 */
const RATE = 24_000;
const OVERSAMPLING = 8;
const HALF_TAPS = 16;

/** The same Hann-windowed sinc taps as the limiter's, phase by phase. */
const phases = Array.from({ length: OVERSAMPLING - 1 }, (_, k) =>
  Array.from({ length: 2 * HALF_TAPS }, (_, j) => {
    const distance = (k + 1) / OVERSAMPLING - (j - HALF_TAPS + 1);
    const sinc = distance === 0 ? 1 : Math.sin(Math.PI * distance) / (Math.PI * distance);
    return sinc * 0.5 * (1 + Math.cos((Math.PI * distance) / HALF_TAPS));
  }),
);

/** Reference true peak around every sample: the sample and the interpolated points on both sides. */
function referenceTruePeaks(samples: Int16Array): Float64Array {
  const between = (i: number) => {
    let peak = 0;
    for (const taps of phases) {
      let sum = 0;
      for (let j = 0; j < taps.length; j++) {
        const index = i - HALF_TAPS + 1 + j;
        if (index >= 0 && index < samples.length) sum += samples[index] * taps[j];
      }
      peak = Math.max(peak, Math.abs(sum));
    }
    return peak;
  };
  return Float64Array.from(samples, (sample, i) => Math.max(Math.abs(sample), between(i - 1), between(i)));
}

/** Speech-like: a few harmonics of a gliding pitch under a syllable envelope, with noise, loud from the first sample. */
function voiced(seconds: number, seed: number): Int16Array {
  let state = seed;
  const noise = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
  let phase = 0;
  return Int16Array.from({ length: seconds * RATE }, (_, i) => {
    const t = i / RATE;
    phase += (2 * Math.PI * (120 + 40 * Math.sin(2 * Math.PI * 0.7 * t))) / RATE;
    const envelope = 0.25 + 0.75 * Math.abs(Math.sin(2 * Math.PI * 2.5 * t));
    const value =
      envelope * (0.5 * Math.sin(phase) + 0.3 * Math.sin(3 * phase + 0.4) + 0.15 * Math.sin(7 * phase)) +
      0.02 * noise();
    return Math.round(0.6 * 32767 * value);
  });
}

describe('the true-peak limiter', () => {
  it('gives the same samples and energies as true peaks computed at every sample with every tap', () => {
    for (const [seed, gain] of [
      [1, 2.5],
      [2, 4],
      [3, 6],
    ] as const) {
      const signal = voiced(2, seed);
      const fast = applyGain(signal, gain, -1.5, RATE);
      const reference = applyGain(signal, gain, -1.5, RATE, referenceTruePeaks(signal));
      // Limited, not a plain gain: the comparison covers the stretches and the skipped samples.
      expect(fast.energyRemoved).toBeGreaterThan(0);
      expect(fast).toEqual(reference);
    }
  });

  it('gives the same samples with its kept stretch buffers as with fresh ones, for stretches shorter and longer than they are', () => {
    // 4 s, loud throughout: at this gain every pitch period passes the ceiling, so one stretch spans it all (96000 samples, more than the kept buffers hold).
    const long = voiced(4, 10);
    const short = voiced(1, 11);
    const reference = (signal: Int16Array, gain: number) =>
      applyGain(signal, gain, -1.5, RATE, referenceTruePeaks(signal));
    const expectedLong = reference(long, 8);
    const expectedShort = reference(short, 3);
    expect(expectedLong.energyRemoved).toBeGreaterThan(0);
    expect(expectedShort.energyRemoved).toBeGreaterThan(0);
    // Short, long, short again: what one stretch leaves in the kept buffers changes nothing for the next.
    expect(applyGain(short, 3, -1.5, RATE)).toEqual(expectedShort);
    expect(applyGain(long, 8, -1.5, RATE)).toEqual(expectedLong);
    expect(applyGain(short, 3, -1.5, RATE)).toEqual(expectedShort);
    expect(applyGain(long, 8, -1.5, RATE)).toEqual(expectedLong);
  });

  it("answers a caller's limit with the true peak, or with a bound under the limit only where the peak is under it", () => {
    const signal = voiced(1, 12);
    const reference = referenceTruePeaks(signal);
    let bounded = 0;
    for (const limit of [8_000, 16_000, 24_000]) {
      const scan = truePeakScanner(signal);
      for (let i = 0; i < signal.length; i++) {
        const answer = scan(i, limit);
        if (answer < limit) {
          expect(reference[i]).toBeLessThan(limit);
          expect(answer).toBeGreaterThanOrEqual(reference[i]);
          if (answer !== reference[i]) bounded++;
        } else {
          expect(answer).toBeCloseTo(reference[i], 6);
        }
      }
    }
    // The bound did answer for some samples (the comparison covers it).
    expect(bounded).toBeGreaterThan(0);
  });

  it('keeps every true peak of the output under the ceiling', () => {
    const signal = voiced(2, 4);
    const { samples } = applyGain(signal, 2.5, -1.5, RATE);
    const ceiling = 32767 * 10 ** (-1.5 / 20);
    // 16-bit rounding of the limited samples may add half a step.
    expect(Math.max(...referenceTruePeaks(samples))).toBeLessThanOrEqual(ceiling + 1);
  });

  it("writes over an earlier pass's output to the same samples as a new array", () => {
    const signal = voiced(2, 5);
    const earlier = applyGain(signal, 6, -1.5, RATE).samples;
    const fresh = applyGain(signal, 2.5, -1.5, RATE);
    const reused = applyGain(signal, 2.5, -1.5, RATE, undefined, earlier);
    expect(fresh.energyRemoved).toBeGreaterThan(0);
    expect(reused.samples).toBe(earlier);
    expect(reused).toEqual(fresh);
    expect(() => applyGain(signal, 2.5, -1.5, RATE, undefined, new Int16Array(10))).toThrow(RangeError);
  });
});

describe('the parallel normalizer', () => {
  it('splits pieces into contiguous shares of about equal length', () => {
    expect(shares([10, 10, 10, 10], 2)).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(shares([100, 1, 1, 1], 2)).toEqual([[0], [1, 2, 3]]);
    expect(shares([5, 5, 5], 4).flat()).toEqual([0, 1, 2]);
  });

  it('gives the same samples as normalizeLoudness, limiter passes and all, with its share in other threads', async () => {
    // Long enough for threads, loud enough at -9 LUFS for the limiter and its correction passes.
    const pause = new Int16Array(8400);
    const pieces = [voiced(14, 7), pause, voiced(14, 8), pause, voiced(14, 9)];
    expect(pieces.reduce((sum, piece) => sum + piece.length, 0)).toBeGreaterThanOrEqual(PARALLEL_FROM_SAMPLES);
    const expected = normalizeLoudness(pieces, RATE, -9, -1.5);
    const parallel = await normalizeLoudnessInParallel(pieces, RATE, -9, -1.5);
    expect(parallel).toEqual(expected);
    // Not a plain gain: the comparison covers the limiter.
    const loudest = Math.max(
      ...expected.map((piece) => piece.reduce((peak, sample) => Math.max(peak, Math.abs(sample)), 0)),
    );
    expect(loudest).toBeGreaterThan(20_000);
  });

  it('stops with the abort reason when aborted, even before its helper thread runs', async () => {
    const pause = new Int16Array(8400);
    const pieces = [voiced(14, 7), pause, voiced(14, 8), pause, voiced(14, 9)];
    const controller = new AbortController();
    // Aborted at once: the helper thread is terminated before it runs, and could still answer its pass.
    const running = normalizeLoudnessInParallel(pieces, RATE, -9, -1.5, controller.signal);
    controller.abort(new Error('stopped'));
    await expect(running).rejects.toThrow('stopped');
  });
});
