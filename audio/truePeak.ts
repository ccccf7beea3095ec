/**
 * True peak (ITU-R BS.1770-4 Annex 2): the signal's peaks between samples,
 * found by oversampling. The interpolator is a Hann-windowed sinc with 32
 * taps per phase. 8x at our 24 kHz is the 192 kHz that ffmpeg's ebur128
 * meter measures at (4x, the standard's minimum, under-reads treble by up to
 * ~0.7 dB). A sample peak can sit 3 dB under the true peak of a band-limited
 * signal; after a lossy encoder the overshoot is larger still.
 */
const OVERSAMPLING = 8;
const HALF_TAPS = 16;
const PHASES: Float64Array[] = Array.from({ length: OVERSAMPLING - 1 }, (_, k) => {
  const fraction = (k + 1) / OVERSAMPLING;
  const taps = new Float64Array(2 * HALF_TAPS);
  for (let j = 0; j < taps.length; j++) {
    // Tap j weighs sample (i - HALF_TAPS + 1 + j) for the point i + fraction.
    const distance = fraction - (j - HALF_TAPS + 1);
    const sinc = distance === 0 ? 1 : Math.sin(Math.PI * distance) / (Math.PI * distance);
    taps[j] = sinc * 0.5 * (1 + Math.cos((Math.PI * distance) / HALF_TAPS));
  }
  return taps;
});

/** PHASES in one flat array (phase k's taps at k * 2 * HALF_TAPS): the interpolation's inner loop reads one typed array. */
const FLAT_TAPS = Float64Array.from(PHASES.flatMap((taps) => [...taps]));
const TAPS = 2 * HALF_TAPS;
/**
 * No true peak exceeds this multiple of the largest |sample| its taps reach (the largest
 * sum of |tap| over the phases, or the sample itself): a bound that spares the interpolation
 * where a stretch's samples stay far under the limiter's threshold.
 */
export const TRUE_PEAK_BOUND = Math.max(1, ...PHASES.map((taps) => taps.reduce((sum, tap) => sum + Math.abs(tap), 0)));

/** The largest magnitude of the oversampled signal between samples i and i + 1 (the ends excluded). */
function interSamplePeak(samples: Int16Array, i: number): number {
  const first = i - HALF_TAPS + 1;
  // Near the ends, the taps past them weigh nothing (the signal is silent there).
  if (first < 0 || first + TAPS > samples.length) return interSamplePeakAtEnd(samples, first);
  // Hot path of the limiter: every tap in range, no bounds test; the same sums in the same order as at the ends.
  let peak = 0;
  for (let phase = 0; phase < FLAT_TAPS.length; phase += TAPS) {
    let sum = 0;
    for (let j = 0; j < TAPS; j++) sum += samples[first + j] * FLAT_TAPS[phase + j];
    const magnitude = sum < 0 ? -sum : sum;
    if (magnitude > peak) peak = magnitude;
  }
  return peak;
}

function interSamplePeakAtEnd(samples: Int16Array, first: number): number {
  let peak = 0;
  for (const taps of PHASES) {
    let sum = 0;
    for (let j = 0; j < taps.length; j++) {
      const index = first + j;
      if (index >= 0 && index < samples.length) sum += samples[index] * taps[j];
    }
    peak = Math.max(peak, Math.abs(sum));
  }
  return peak;
}

/** Per tap, its largest magnitude over the phases: Σ |sample| × this bounds every phase's sum. */
const MAX_TAPS = Float64Array.from({ length: TAPS }, (_, j) => Math.max(...PHASES.map((taps) => Math.abs(taps[j]))));
/** A bound's relative margin: far above the rounding of two 32-term sums, far below any level that matters. */
const BOUND_MARGIN = 1 + 1e-9;

/** An upper bound of interSamplePeak(samples, i) at a seventh of its work (one weighted sum instead of seven). */
function interSampleBound(samples: Int16Array, i: number): number {
  const first = i - HALF_TAPS + 1;
  const from = Math.max(0, -first);
  const to = Math.min(TAPS, samples.length - first);
  let sum = 0;
  for (let j = from; j < to; j++) {
    const sample = samples[first + j];
    sum += (sample < 0 ? -sample : sample) * MAX_TAPS[j];
  }
  return sum * BOUND_MARGIN;
}

/**
 * The true-peak magnitude around sample i (the sample and the oversampled
 * points on each side), for a scan in increasing i: the oversampled peak between i and
 * i + 1 is kept and serves as the next sample's left side, so each is computed once
 * (the same values, half the interpolation work of the limiter's scans). With
 * `known` (NaN where not yet computed) the values also outlive the scan:
 * normalizeLoudness's correction passes look at the same samples again.
 * With `limit`, a caller that only compares the peak with `limit` may get, instead of
 * the peak, a bound of it that is itself under `limit` (the same comparison, often
 * without the interpolation).
 */
export function truePeakScanner(samples: Int16Array, known?: Float64Array): (i: number, limit?: number) => number {
  let rightAt = Number.NaN;
  let right = 0;
  let boundAt = Number.NaN;
  let boundRight = 0;
  return (i: number, limit?: number) => {
    const kept = known ? known[i] : Number.NaN;
    if (kept === kept) return kept;
    if (limit !== undefined) {
      const own = samples[i] < 0 ? -samples[i] : samples[i];
      const boundLeft = i - 1 === rightAt ? right : i - 1 === boundAt ? boundRight : interSampleBound(samples, i - 1);
      boundRight = interSampleBound(samples, i);
      boundAt = i;
      const bound = Math.max(own, boundLeft, boundRight);
      if (bound < limit) return bound;
    }
    const left = i - 1 === rightAt ? right : interSamplePeak(samples, i - 1);
    right = interSamplePeak(samples, i);
    rightAt = i;
    const peak = Math.max(Math.abs(samples[i]), left, right);
    if (known) known[i] = peak;
    return peak;
  };
}

/** The deque windowPeaks needs for a stretch of `length` samples. */
export const windowDequeLength = (length: number) => length + 2 * HALF_TAPS + 1;

/**
 * The largest |sample| over [i - HALF_TAPS, i + HALF_TAPS] for every i in [start, end): every
 * sample the true peak at i is interpolated from (monotonic deque, O(n)), at the start of the
 * array returned (which is `scratch.out` when that is long enough, else a new one).
 */
export function windowPeaks(
  samples: Int16Array,
  start: number,
  end: number,
  scratch?: { out: Float32Array; deque: Int32Array },
): Float32Array {
  // Buffers of the caller's, when they are long enough: a limiter pass calls this per stretch, and fresh arrays each time were most of its garbage.
  const fits = scratch && scratch.out.length >= end - start && scratch.deque.length >= windowDequeLength(end - start);
  const out = fits ? scratch.out : new Float32Array(end - start);
  const deque = fits ? scratch.deque : new Int32Array(windowDequeLength(end - start));
  let head = 0;
  let tail = 0;
  let next = Math.max(0, start - HALF_TAPS);
  const last = Math.min(samples.length - 1, end - 1 + HALF_TAPS);
  const magnitude = (index: number) => Math.abs(samples[index]);
  for (let i = start; i < end; i++) {
    for (; next <= Math.min(last, i + HALF_TAPS); next++) {
      while (tail > head && magnitude(deque[tail - 1]) <= magnitude(next)) tail--;
      deque[tail++] = next;
    }
    while (deque[head] < i - HALF_TAPS) head++;
    out[i - start] = magnitude(deque[head]);
  }
  return out;
}
