/**
 * PCM work that a chunk with nothing else to change does without an ffmpeg
 * process (~60-90 ms of CPU a spawn): trimming the engine's silence and
 * resampling to the chunk rate. Both work on 16-bit mono samples.
 */

/** Where the speech is in an engine's WAV (samples [start, end) at its rate), and the trimmed chunk's length in seconds. */
export interface SpeechSpan {
  start: number;
  end: number;
  sampleRate: number;
  seconds: number;
}

/**
 * Samples [start, end) of `samples` without the leading and trailing
 * silence, keeping `keepStart`/`keepEnd` seconds of it, like ffmpeg's
 * `silenceremove` (RMS over 20 ms windows against `thresholdDb` dBFS).
 * A signal that never passes the threshold is kept whole.
 */
export function speechBounds(
  samples: Int16Array,
  sampleRate: number,
  thresholdDb: number,
  keepStart: number,
  keepEnd: number,
): { start: number; end: number } {
  const n = samples.length;
  const window = Math.max(1, Math.round(0.02 * sampleRate));
  const threshold = (32768 * 10 ** (thresholdDb / 20)) ** 2 * window;
  // Running sums of squares (integers, exact in a double), scanned from each end only as far as the
  // speech: no array per call, and a chunk's middle is never read.
  // Onset: the window ending at sample i is loud (shorter at the start).
  let energy = 0;
  let first = 0;
  for (; first < n; first++) {
    energy += samples[first] * samples[first];
    if (first >= window) energy -= samples[first - window] * samples[first - window];
    if (energy > threshold) break;
  }
  if (first === n) return { start: 0, end: n };
  // End: the window starting at sample i is loud (shorter at the end).
  energy = 0;
  let last = n - 1;
  for (; last > first; last--) {
    energy += samples[last] * samples[last];
    if (last + window < n) energy -= samples[last + window] * samples[last + window];
    if (energy > threshold) break;
  }
  // At -55 dBFS a window passes within a few samples of the onset: `first` is where speech starts.
  const start = Math.max(0, first - Math.round(keepStart * sampleRate));
  const end = Math.min(n, last + 1 + Math.round(keepEnd * sampleRate));
  return { start, end };
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** Zeroth-order modified Bessel function of the first kind (Kaiser window). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
    if (term < sum * 1e-12) break;
  }
  return sum;
}

/** Zero crossings of the sinc on each side: with a Kaiser window (beta 8.6) the stopband is ~80 dB down. */
const ZERO_CROSSINGS = 12;
const KAISER_BETA = 8.6;
/** The passband ends at 94 % of the lower Nyquist frequency; the transition band takes the rest. */
const ROLLOFF = 0.94;

/** Kernels per rate pair: the few pairs in use (an engine's rate to the chunk rate) are computed once. */
const KERNELS = new Map<string, Float64Array>();

/** The polyphase kernels: `taps` weights for each of `up` output phases, each phase summing to 1. */
function polyphaseKernels(up: number, taps: number, half: number, cutoff: number): Float64Array {
  const key = `${up}:${taps}:${cutoff}`;
  const kept = KERNELS.get(key);
  if (kept) return kept;
  const kernels = new Float64Array(up * taps);
  const i0Beta = besselI0(KAISER_BETA);
  for (let phase = 0; phase < up; phase++) {
    const fraction = phase / up;
    let sum = 0;
    for (let j = 0; j < taps; j++) {
      // Distance from the output position to input sample (base - half + 1 + j).
      const distance = j - half + 1 - fraction;
      const x = 2 * cutoff * distance;
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
      const ratio = distance / half;
      const window = Math.abs(ratio) >= 1 ? 0 : besselI0(KAISER_BETA * Math.sqrt(1 - ratio * ratio)) / i0Beta;
      const value = 2 * cutoff * sinc * window;
      kernels[phase * taps + j] = value;
      sum += value;
    }
    // Unity gain at DC for every phase.
    for (let j = 0; j < taps; j++) kernels[phase * taps + j] /= sum;
  }
  if (KERNELS.size >= 16) KERNELS.clear();
  KERNELS.set(key, kernels);
  return kernels;
}

/**
 * Band-limited resampling of 16-bit mono PCM between any two integer rates
 * (polyphase windowed sinc: one precomputed kernel per output phase).
 */
export function resample(samples: Int16Array, fromRate: number, toRate: number): Int16Array {
  if (fromRate === toRate) return samples;
  const divisor = gcd(fromRate, toRate);
  const up = toRate / divisor;
  const down = fromRate / divisor;
  // Cutoff in cycles per input sample, below both Nyquist frequencies.
  const cutoff = 0.5 * Math.min(1, toRate / fromRate) * ROLLOFF;
  const half = Math.ceil(ZERO_CROSSINGS / (2 * cutoff));
  const taps = 2 * half;
  const kernels = polyphaseKernels(up, taps, half, cutoff);
  const outLength = Math.floor(((samples.length - 1) * up) / down) + 1;
  const out = new Int16Array(outLength);
  // The input as floats with `half` zeros before it and a kernel's length after: no edge case in the loop
  // (a sample outside the signal counts as zero, as before). Float32 holds every 16-bit sample exactly, so the
  // output is the same as with doubles, for half the memory and ~0.8x the time (a 25 s chunk: 52 against 64 ms).
  const padded = new Float32Array(samples.length + 2 * taps);
  padded.set(samples, half);
  const unrolled = taps & ~3;
  // Output n reads input from base(n) - half + 1 with phase(n): base * up + phase = n * down, stepped, not divided.
  let base = 0;
  let phase = 0;
  for (let n = 0; n < outLength; n++) {
    const offset = phase * taps;
    const first = base + 1; // base - half + 1, shifted by the padding
    // Four running sums: the loop's multiply-adds no longer wait on each other (~1.3-1.4 × less CPU).
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    let j = 0;
    for (; j < unrolled; j += 4) {
      a0 += padded[first + j] * kernels[offset + j];
      a1 += padded[first + j + 1] * kernels[offset + j + 1];
      a2 += padded[first + j + 2] * kernels[offset + j + 2];
      a3 += padded[first + j + 3] * kernels[offset + j + 3];
    }
    for (; j < taps; j++) a0 += padded[first + j] * kernels[offset + j];
    const acc = a0 + a1 + (a2 + a3);
    out[n] = acc > 32767 ? 32767 : acc < -32768 ? -32768 : Math.round(acc);
    phase += down;
    while (phase >= up) {
      phase -= up;
      base += 1;
    }
  }
  return out;
}
