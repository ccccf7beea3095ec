import { measureSamples, percentile, yinPitchTrack } from '../../audio/analysis';

const RATE = 16_000;

/** A voice-like periodic signal: harmonics with falling amplitude. */
function harmonic(f0: (t: number) => number, seconds: number, amplitude = 0.3): Float32Array {
  const samples = new Float32Array(Math.round(seconds * RATE));
  let phase = 0;
  for (let index = 0; index < samples.length; index++) {
    phase += (2 * Math.PI * f0(index / RATE)) / RATE;
    let value = 0;
    for (let k = 1; k <= 8; k++) value += Math.sin(k * phase) / k;
    samples[index] = amplitude * 0.5 * value;
  }
  return samples;
}

function concat(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

describe('YIN pitch tracking', () => {
  it.each([45, 100, 173.5, 260, 420])('finds a steady %s Hz within 1 %%', (hz) => {
    const track = yinPitchTrack(
      harmonic(() => hz, 1),
      RATE,
    ).filter((f0): f0 is number => f0 !== null);
    expect(track.length).toBeGreaterThan(80);
    expect(Math.abs(percentile(track, 0.5)! / hz - 1)).toBeLessThan(0.01);
  });

  it('marks silence and noise unvoiced', () => {
    expect(yinPitchTrack(new Float32Array(RATE), RATE).every((f0) => f0 === null)).toBe(true);
    let seed = 1;
    const noise = Float32Array.from({ length: RATE }, () => {
      seed = (seed * 16807) % 2147483647;
      return (seed / 2147483647 - 0.5) * 0.5;
    });
    const voiced = yinPitchTrack(noise, RATE).filter((f0) => f0 !== null).length;
    expect(voiced).toBeLessThan(10);
  });
});

describe('measureSamples', () => {
  it('measures duration, silence, median F0 and F0 spread', () => {
    // 1 s at 200 Hz, 0.5 s silence, 1 s gliding 150 -> 300 Hz (one octave).
    const samples = concat(
      harmonic(() => 200, 1),
      new Float32Array(RATE / 2),
      harmonic((t) => 150 * 2 ** t, 1),
    );
    const analysis = measureSamples(samples, RATE);
    expect(analysis.durationSeconds).toBeCloseTo(2.5, 5);
    expect(analysis.silenceRatio).toBeGreaterThan(0.15);
    expect(analysis.silenceRatio).toBeLessThan(0.25);
    expect(analysis.f0MedianHz).toBeGreaterThan(190);
    expect(analysis.f0MedianHz).toBeLessThan(215);
    expect(analysis.f0RangeSemitones).toBeGreaterThan(6);
    expect(analysis.activeRmsDb).toBeGreaterThan(analysis.rmsDb);
    expect(analysis.peakDb).toBeLessThan(0);
  });

  it('gives nulls for silence', () => {
    const analysis = measureSamples(new Float32Array(RATE), RATE);
    expect(analysis).toMatchObject({ durationSeconds: 1, silenceRatio: 1, f0MedianHz: null, f0StdSemitones: null });
  });
});
