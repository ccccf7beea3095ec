import { TRUE_PEAK_BOUND, truePeakScanner, windowDequeLength, windowPeaks } from './truePeak';

/**
 * ITU-R BS.1770-4 integrated loudness of a mono signal at any sample rate, so
 * neither a profile's level nor a synthesis's loudness normalization needs an
 * ffmpeg pass of its own. The K-weighting filters are
 * derived from their analog prototypes (the parameters libebur128 and
 * pyloudnorm use), which reproduces the standard's 48 kHz coefficients.
 */

interface Biquad {
  b: [number, number, number];
  a: [number, number];
}

function kWeighting(sampleRate: number): [Biquad, Biquad] {
  // Stage 1: high shelf (head effects), +4 dB above ~1.7 kHz.
  let K = Math.tan((Math.PI * 1681.974450955533) / sampleRate);
  let Q = 0.7071752369554196;
  const Vh = 10 ** (3.999843853973347 / 20);
  const Vb = Vh ** 0.4996667741545416;
  let a0 = 1 + K / Q + K * K;
  const shelf: Biquad = {
    b: [(Vh + (Vb * K) / Q + K * K) / a0, (2 * (K * K - Vh)) / a0, (Vh - (Vb * K) / Q + K * K) / a0],
    a: [(2 * (K * K - 1)) / a0, (1 - K / Q + K * K) / a0],
  };
  // Stage 2: the RLB high pass at ~38 Hz.
  K = Math.tan((Math.PI * 38.13547087602444) / sampleRate);
  Q = 0.5003270373238773;
  a0 = 1 + K / Q + K * K;
  const highPass: Biquad = { b: [1, -2, 1], a: [(2 * (K * K - 1)) / a0, (1 - K / Q + K * K) / a0] };
  return [shelf, highPass];
}

/**
 * Integrated loudness, fed in pieces: K-weighted energy is summed per 100 ms
 * step, and 400 ms blocks (75 % overlap) are four consecutive steps, so
 * memory stays small for an hour of audio.
 */
export class LoudnessMeter {
  private readonly stages: [Biquad, Biquad];
  private readonly state = new Float64Array(8);
  private readonly stepLength: number;
  private stepEnergy = 0;
  private stepFill = 0;
  private readonly steps: number[] = [];

  constructor(sampleRate: number) {
    this.stages = kWeighting(sampleRate);
    this.stepLength = Math.round(0.1 * sampleRate);
  }

  /** Samples in [-1, 1] (Float32Array), or 16-bit PCM (Int16Array, scaled here). */
  push(samples: Float32Array | Int16Array): void {
    const scale = samples instanceof Int16Array ? 1 / 32768 : 1;
    const [{ b: b1, a: a1 }, { b: b2, a: a2 }] = this.stages;
    // Locals, not fields, in the loop: this runs over every sample of every synthesis. Read one by one, not
    // destructured: with the filter state destructured from its array (and set back from a new one), V8 kept
    // the loop's numbers boxed, ~50 bytes of garbage a sample (7 MiB per sentence of the OpenAI stream) and
    // three times the time.
    const p0 = b1[0];
    const p1 = b1[1];
    const p2 = b1[2];
    const q1 = a1[0];
    const q2 = a1[1];
    const r0 = b2[0];
    const r1 = b2[1];
    const r2 = b2[2];
    const s1 = a2[0];
    const s2 = a2[1];
    const state = this.state;
    let x1 = state[0];
    let x2 = state[1];
    let y1 = state[2];
    let y2 = state[3];
    let u1 = state[4];
    let u2 = state[5];
    let z1 = state[6];
    let z2 = state[7];
    let energy = this.stepEnergy;
    let fill = this.stepFill;
    const stepLength = this.stepLength;
    const steps = this.steps;
    for (let i = 0; i < samples.length; i++) {
      const x = samples[i] * scale;
      const y = p0 * x + p1 * x1 + p2 * x2 - q1 * y1 - q2 * y2;
      x2 = x1;
      x1 = x;
      y2 = y1;
      y1 = y;
      const z = r0 * y + r1 * u1 + r2 * u2 - s1 * z1 - s2 * z2;
      u2 = u1;
      u1 = y;
      z2 = z1;
      z1 = z;
      energy += z * z;
      if (++fill === stepLength) {
        steps.push(energy);
        energy = 0;
        fill = 0;
      }
    }
    this.stepEnergy = energy;
    this.stepFill = fill;
    state[0] = x1;
    state[1] = x2;
    state[2] = y1;
    state[3] = y2;
    state[4] = u1;
    state[5] = u2;
    state[6] = z1;
    state[7] = z2;
  }

  /** LUFS (-70 LUFS absolute and -10 LU relative gates); -70 when nothing passes. */
  integrated(): number {
    const block = 4 * this.stepLength;
    const powers: number[] = [];
    for (let start = 0; start + 4 <= this.steps.length; start++) {
      powers.push((this.steps[start] + this.steps[start + 1] + this.steps[start + 2] + this.steps[start + 3]) / block);
    }
    const lufs = (power: number) => -0.691 + 10 * Math.log10(power);
    const absolute = powers.filter((power) => power > 0 && lufs(power) > -70);
    if (absolute.length === 0) return -70;
    const relativeGate = lufs(absolute.reduce((sum, power) => sum + power, 0) / absolute.length) - 10;
    const gated = absolute.filter((power) => lufs(power) > relativeGate);
    return lufs(gated.reduce((sum, power) => sum + power, 0) / gated.length);
  }
}

/** Integrated loudness in LUFS (400 ms blocks, 75 % overlap, -70 LUFS absolute and -10 LU relative gates); -70 when nothing passes. */
export function integratedLoudness(samples: Float32Array, sampleRate: number): number {
  return loudnessOf([samples], sampleRate);
}

/** Integrated loudness of pieces (float or 16-bit PCM) taken as one signal. */
export function loudnessOf(pieces: readonly (Float32Array | Int16Array)[], sampleRate: number): number {
  const meter = new LoudnessMeter(sampleRate);
  for (const piece of pieces) meter.push(piece);
  return meter.integrated();
}

/** Samples (about two minutes at 24 kHz, 24 MB) up to which normalizeLoudness keeps the true peaks between its passes. */
export const KEEP_TRUE_PEAKS_UP_TO = 3_000_000;

/**
 * Brings 16-bit PCM pieces, as one signal, to `targetLufs` with peaks held
 * under `ceilingDb` (applyGain's true-peak limiter). Limiting takes a little loudness
 * away, so the gain is corrected from a new measurement, up to twice, and
 * never by more than 6 dB. Silence stays as it is.
 */
export function normalizeLoudness(
  pieces: readonly Int16Array[],
  sampleRate: number,
  targetLufs: number,
  ceilingDb: number,
): Int16Array[] {
  const measured = loudnessOf(pieces, sampleRate);
  if (measured <= -70) return [...pieces];
  const initialDb = targetLufs - measured;
  // The true peaks depend on the samples only: kept between the passes, unless the signal is long (8 bytes a sample).
  const truePeaks = keptTruePeaks(pieces);
  // A correction pass writes over the pass it corrects: only its measurement was needed.
  const scaleAll = (gainDb: number, previous?: readonly GainedPiece[]) =>
    pieces.map((piece, index) =>
      applyGain(piece, 10 ** (gainDb / 20), ceilingDb, sampleRate, truePeaks[index], previous?.[index].samples),
    );
  let out = scaleAll(initialDb);
  for (let pass = 0, gainDb = initialDb; pass < 2; pass++) {
    const next = correctedGainDb(out, sampleRate, targetLufs, gainDb, initialDb);
    if (next === undefined) break;
    gainDb = next;
    out = scaleAll(gainDb, out);
  }
  return out.map((piece) => piece.samples);
}

/** NaN-filled arrays for applyGain to keep the pieces' true peaks in, or none when they would take too much memory. */
export function keptTruePeaks(pieces: readonly Int16Array[]): Float64Array[] {
  const total = pieces.reduce((sum, piece) => sum + piece.length, 0);
  return total <= KEEP_TRUE_PEAKS_UP_TO ? pieces.map((piece) => new Float64Array(piece.length).fill(Number.NaN)) : [];
}

export type GainedPiece = ReturnType<typeof applyGain>;

/**
 * normalizeLoudness's correction, after a pass at `gainDb`: the next gain in
 * dB, or undefined when the pass is good enough. Also the parallel
 * normalizer's (audio/parallelLoudness.ts), so both take the same steps.
 */
export function correctedGainDb(
  out: readonly GainedPiece[],
  sampleRate: number,
  targetLufs: number,
  gainDb: number,
  initialDb: number,
): number | undefined {
  // A plain gain lands on the target exactly. Limiting lowers it by about the share of energy it
  // took away; only a loss above 0.2 dB is worth a new measurement and a corrected gain.
  const before = out.reduce((sum, piece) => sum + piece.energyBefore, 0);
  const removed = out.reduce((sum, piece) => sum + piece.energyRemoved, 0);
  if (before === 0 || -10 * Math.log10(1 - removed / before) < 0.2) return undefined;
  const missing =
    targetLufs -
    loudnessOf(
      out.map((piece) => piece.samples),
      sampleRate,
    );
  const next = Math.min(gainDb + missing, initialDb + 6);
  if (Math.abs(missing) < 0.3 || next <= gainDb) return undefined;
  return next;
}

/**
 * Applies `gain` to 16-bit PCM with a look-ahead true-peak limiter: where
 * the signal, 4x oversampled, would pass `ceilingDb` (dBTP), the gain dips smoothly (over ~5 ms each
 * side) so that it lands on the ceiling, and comes back as fast; elsewhere
 * it is the plain gain. Only the stretches around such peaks are computed
 * sample by sample. Reports the energy (sum of squares, after the plain
 * gain) the limiter took away. `truePeaks` (NaN-filled, as long as `samples`)
 * keeps the true peaks computed for another call on the same samples.
 * `into` (as long as `samples`), an earlier pass's output no longer needed,
 * is written over instead of a new array: a long text's passes then hold one
 * output, not one each until the collector gets to them.
 */
export function applyGain(
  samples: Int16Array,
  gain: number,
  ceilingDb: number,
  sampleRate: number,
  truePeaks?: Float64Array,
  into?: Int16Array,
): { samples: Int16Array; energyBefore: number; energyRemoved: number } {
  const ceiling = 32767 * 10 ** (ceilingDb / 20);
  const threshold = ceiling / gain;
  const n = samples.length;
  if (into && into.length !== n) throw new RangeError(`applyGain: output of ${into.length} samples for ${n}`);
  const out = into ?? new Int16Array(n);
  const hot: number[] = [];
  const truePeakAt = truePeakScanner(samples, truePeaks);
  let energyBefore = 0;
  for (let i = 0; i < n; i++) {
    const sample = samples[i];
    const scaled = sample * gain;
    energyBefore += scaled * scaled;
    out[i] = Math.round(scaled);
    // A true peak passes its samples by a few dB at most: only samples above half the threshold are examined.
    if ((sample > threshold / 2 || -sample > threshold / 2) && truePeakAt(i, threshold) > threshold) hot.push(i);
  }
  if (hot.length === 0) return { samples: out, energyBefore, energyRemoved: 0 };

  // Stretches of ±2w around the hot samples, merged: outside them every window sees only the plain gain.
  const w = Math.max(1, Math.round(0.005 * sampleRate));
  let energyRemoved = 0;
  for (let k = 0; k < hot.length;) {
    const start = Math.max(0, hot[k] - 2 * w);
    let end = Math.min(n, hot[k] + 2 * w + 1);
    while (++k < hot.length && hot[k] - 2 * w < end) end = Math.min(n, hot[k] + 2 * w + 1);
    energyRemoved += limitStretch(samples, out, start, end, gain, ceiling, w, truePeaks);
  }
  return { samples: out, energyBefore, energyRemoved };
}

/**
 * Stretches up to this many samples (~2.7 s at 24 kHz, most of them) work in
 * buffers kept between calls: the limiter runs over every stretch of every
 * pass, and its five fresh arrays per stretch were most of the garbage of a
 * normalization (the OpenAI stream's per sentence, in the API). Longer
 * stretches allocate their own, so what stays held is small (~1.3 MiB per
 * thread that ever limited).
 */
const STRETCH_BUFFER_SAMPLES = 1 << 16;
let kept: ReturnType<typeof newStretchBuffers> | undefined;

const newStretchBuffers = () => ({
  allowed: new Float32Array(STRETCH_BUFFER_SAMPLES),
  window: {
    out: new Float32Array(STRETCH_BUFFER_SAMPLES),
    deque: new Int32Array(windowDequeLength(STRETCH_BUFFER_SAMPLES)),
  },
  minimum: { out: new Float32Array(STRETCH_BUFFER_SAMPLES), deque: new Int32Array(STRETCH_BUFFER_SAMPLES) },
});

/** The kept buffers for a stretch of `length` samples, or undefined when it is longer than they are. */
function stretchBuffers(length: number): ReturnType<typeof newStretchBuffers> | undefined {
  if (length > STRETCH_BUFFER_SAMPLES) return undefined;
  kept ??= newStretchBuffers();
  return kept;
}

/**
 * The limiter over samples [start, end): per sample the most gain it can
 * take, a minimum over ±w, then a mean over w. Every mean only sees minima
 * of windows that contain the sample, so the envelope never lets a sample
 * pass the ceiling, and it ramps instead of stepping.
 */
function limitStretch(
  samples: Int16Array,
  out: Int16Array,
  start: number,
  end: number,
  gain: number,
  ceiling: number,
  w: number,
  truePeaks?: Float64Array,
): number {
  const length = end - start;
  const buffers = stretchBuffers(length);
  const allowed = buffers?.allowed ?? new Float32Array(length);
  const truePeakAt = truePeakScanner(samples, truePeaks);
  const nearPeak = windowPeaks(samples, start, end, buffers?.window);
  // Where even the largest possible true peak stays under the ceiling, the plain gain is allowed: no interpolation needed.
  const safeUnder = (ceiling / gain) * (1 - 1e-9);
  for (let i = 0; i < length; i++) {
    if (nearPeak[i] * TRUE_PEAK_BOUND < safeUnder) {
      allowed[i] = gain;
      continue;
    }
    // Only whether it passes the ceiling matters below it: a bound under safeUnder says no, as the peak would.
    const magnitude = truePeakAt(start + i, safeUnder);
    allowed[i] = magnitude * gain > ceiling ? ceiling / magnitude : gain;
  }
  const minimum = slidingMinimum(allowed, length, w, buffers?.minimum);
  const half = w >> 1;
  let sum = 0;
  let count = 0;
  for (let i = 0; i < Math.min(length, half + 1); i++) {
    sum += minimum[i];
    count++;
  }
  let removed = 0;
  for (let i = 0; i < length; i++) {
    const sample = samples[start + i];
    const limited = Math.max(-32768, Math.min(32767, Math.round(sample * (sum / count))));
    const plain = sample * gain;
    removed += plain * plain - limited * limited;
    out[start + i] = limited;
    const entering = i + half + 1;
    const leaving = i - half;
    if (entering < length) {
      sum += minimum[entering];
      count++;
    }
    if (leaving >= 0) {
      sum -= minimum[leaving];
      count--;
    }
  }
  return removed;
}

/**
 * The minimum of `values` over [i - radius, i + radius] for every i < n (monotonic deque, O(n)),
 * into `scratch` (at least n long) when given.
 */
function slidingMinimum(
  values: Float32Array,
  n: number,
  radius: number,
  scratch?: { out: Float32Array; deque: Int32Array },
): Float32Array {
  const out = scratch?.out ?? new Float32Array(n);
  const deque = scratch?.deque ?? new Int32Array(n);
  let head = 0;
  let tail = 0;
  let next = 0;
  for (let i = 0; i < n; i++) {
    for (; next < n && next <= i + radius; next++) {
      while (tail > head && values[deque[tail - 1]] >= values[next]) tail--;
      deque[tail++] = next;
    }
    while (deque[head] < i - radius) head++;
    out[i] = values[deque[head]];
  }
  return out;
}
