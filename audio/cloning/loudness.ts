/**
 * ITU-R BS.1770-4 integrated loudness of a mono signal at any sample rate, so
 * a profile's level needs no second ffmpeg pass. The K-weighting filters are
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

function filter(samples: Float32Array, { b, a }: Biquad): Float64Array {
  const out = new Float64Array(samples.length);
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  for (let i = 0; i < samples.length; i++) {
    const x = samples[i];
    const y = b[0] * x + b[1] * x1 + b[2] * x2 - a[0] * y1 - a[1] * y2;
    x2 = x1;
    x1 = x;
    y2 = y1;
    y1 = y;
    out[i] = y;
  }
  return out;
}

/** Integrated loudness in LUFS (400 ms blocks, 75 % overlap, -70 LUFS absolute and -10 LU relative gates); -70 when nothing passes. */
export function integratedLoudness(samples: Float32Array, sampleRate: number): number {
  const [shelf, highPass] = kWeighting(sampleRate);
  const weighted = filter(Float32Array.from(filter(samples, shelf)), highPass);
  const block = Math.round(0.4 * sampleRate);
  const step = Math.round(0.1 * sampleRate);
  // Prefix sums of squares make each block O(1).
  const cumulative = new Float64Array(weighted.length + 1);
  for (let i = 0; i < weighted.length; i++) cumulative[i + 1] = cumulative[i] + weighted[i] * weighted[i];
  const powers: number[] = [];
  for (let start = 0; start + block <= weighted.length; start += step) powers.push((cumulative[start + block] - cumulative[start]) / block);
  const lufs = (power: number) => -0.691 + 10 * Math.log10(power);
  const absolute = powers.filter((power) => power > 0 && lufs(power) > -70);
  if (absolute.length === 0) return -70;
  const relativeGate = lufs(absolute.reduce((sum, power) => sum + power, 0) / absolute.length) - 10;
  const gated = absolute.filter((power) => lufs(power) > relativeGate);
  return lufs(gated.reduce((sum, power) => sum + power, 0) / gated.length);
}
