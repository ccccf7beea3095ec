/**
 * The small amount of signal processing the cloning work needs, in plain
 * TypeScript (no FFT package is installed, and a 1024-point radix-2 FFT is
 * short enough to own): spectra of short frames, a decimator for a cheaper
 * YIN, and a few statistics.
 */

/** In-place iterative radix-2 complex FFT with precomputed twiddles; the length must be a power of two. */
export class Fft {
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;

  constructor(readonly size: number) {
    if (size < 2 || (size & (size - 1)) !== 0) throw new RangeError('fft: size must be a power of two');
    this.cos = Float64Array.from({ length: size / 2 }, (_, k) => Math.cos((-2 * Math.PI * k) / size));
    this.sin = Float64Array.from({ length: size / 2 }, (_, k) => Math.sin((-2 * Math.PI * k) / size));
  }

  transform(re: Float64Array, im: Float64Array): void {
    const n = this.size;
    if (re.length !== n || im.length !== n) throw new RangeError('fft: buffer length differs from the size');
    for (let i = 1, j = 0; i < n; i++) {
      let bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) {
        let swap = re[i];
        re[i] = re[j];
        re[j] = swap;
        swap = im[i];
        im[i] = im[j];
        im[j] = swap;
      }
    }
    for (let size = 2; size <= n; size <<= 1) {
      const half = size >> 1;
      const stride = n / size;
      for (let start = 0; start < n; start += size) {
        for (let k = 0; k < half; k++) {
          const cos = this.cos[k * stride];
          const sin = this.sin[k * stride];
          const a = start + k;
          const b = a + half;
          const tr = re[b] * cos - im[b] * sin;
          const ti = re[b] * sin + im[b] * cos;
          re[b] = re[a] - tr;
          im[b] = im[a] - ti;
          re[a] += tr;
          im[a] += ti;
        }
      }
    }
  }
}

/** Computes power spectra (|X|², bins 0..n/2) of Hann-windowed frames, reusing its buffers. */
export class PowerSpectrum {
  readonly bins: number;
  private readonly window: Float64Array;
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  private readonly fft: Fft;

  constructor(readonly size: number) {
    this.fft = new Fft(size);
    this.bins = size / 2 + 1;
    this.window = Float64Array.from({ length: size }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / size));
    this.re = new Float64Array(size);
    this.im = new Float64Array(size);
  }

  /** The power spectrum of `samples[start .. start+size)` (zero past the end) into `out`. */
  frame(samples: Float32Array, start: number, out: Float64Array): Float64Array {
    const { re, im, window, size } = this;
    for (let i = 0; i < size; i++) {
      const index = start + i;
      re[i] = index < samples.length ? samples[index] * window[i] : 0;
      im[i] = 0;
    }
    this.fft.transform(re, im);
    for (let k = 0; k < this.bins; k++) out[k] = re[k] * re[k] + im[k] * im[k];
    return out;
  }
}

/**
 * Halves the sample rate: a 31-tap windowed-sinc low-pass at 0.45 × the new
 * Nyquist, then every other sample. Used to run YIN at 8 kHz (4x cheaper, and
 * F0 up to 500 Hz needs no more).
 */
export function decimateByTwo(samples: Float32Array): Float32Array {
  const taps = 31;
  const half = (taps - 1) / 2;
  const cutoff = 0.45 * 0.5; // of the input rate
  const kernel = new Float64Array(taps);
  let sum = 0;
  for (let i = 0; i < taps; i++) {
    const x = i - half;
    const sinc = x === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * x) / (Math.PI * x);
    kernel[i] = sinc * (0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (taps - 1)));
    sum += kernel[i];
  }
  for (let i = 0; i < taps; i++) kernel[i] /= sum;
  const out = new Float32Array(Math.floor(samples.length / 2));
  for (let o = 0; o < out.length; o++) {
    const center = 2 * o;
    let acc = 0;
    for (let i = 0; i < taps; i++) {
      const index = center + i - half;
      if (index >= 0 && index < samples.length) acc += samples[index] * kernel[i];
    }
    out[o] = acc;
  }
  return out;
}

export const toDb = (power: number, floor = 1e-12): number => 10 * Math.log10(Math.max(power, floor));

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Centered moving average over `radius` neighbours on each side (shorter at the ends). */
export function smooth(values: readonly number[], radius: number): number[] {
  return values.map((_, index) => {
    let sum = 0;
    let count = 0;
    for (let j = Math.max(0, index - radius); j <= Math.min(values.length - 1, index + radius); j++) {
      sum += values[j];
      count++;
    }
    return sum / count;
  });
}

export const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

export const semitonesBetween = (fromHz: number, toHz: number): number => 12 * Math.log2(toHz / fromHz);

/**
 * Band-limited resampling between integer rates by windowed-sinc
 * interpolation (Hann window, 32 zero crossings each side, cutoff at 0.95 ×
 * the lower Nyquist), one precomputed kernel per output phase. Accurate
 * enough for measuring; it spares an ffmpeg start per rendering analysed.
 */
export function resample(samples: Float32Array, fromRate: number, toRate: number): Float32Array {
  if (fromRate === toRate) return samples;
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const divisor = gcd(fromRate, toRate);
  const phases = toRate / divisor; // output sample o sits at input position o × step / phases
  const step = fromRate / divisor;
  if (phases > 4096) throw new RangeError(`resample: ${fromRate} -> ${toRate} Hz needs too many phases`);
  const cutoff = 0.95 * Math.min(1, toRate / fromRate); // of the input Nyquist
  const half = Math.ceil(32 / cutoff);
  const width = 2 * half;
  const kernels = new Float64Array(phases * width);
  for (let phase = 0; phase < phases; phase++) {
    const fraction = phase / phases;
    for (let j = 0; j < width; j++) {
      const distance = j - half + 1 - fraction; // input index offset from the output position
      const x = distance * cutoff;
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
      kernels[phase * width + j] = cutoff * sinc * (0.5 + 0.5 * Math.cos((Math.PI * distance) / (half + 1)));
    }
  }
  const out = new Float32Array(Math.floor((samples.length * phases) / step));
  for (let o = 0; o < out.length; o++) {
    const position = o * step;
    const base = Math.floor(position / phases);
    const phase = position - base * phases;
    const kernel = phase * width;
    let acc = 0;
    for (let j = 0; j < width; j++) {
      const index = base - half + 1 + j;
      if (index >= 0 && index < samples.length) acc += samples[index] * kernels[kernel + j];
    }
    out[o] = acc;
  }
  return out;
}
