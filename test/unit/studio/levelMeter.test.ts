import { LevelMeter } from '../../../studio/assembly/measure';

const RATE = 44_100;

/** `seconds` of a sine at `amplitude` (peak, linear), 1 kHz. */
function sine(seconds: number, amplitude: number): Float32Array {
  return Float32Array.from(
    { length: Math.round(seconds * RATE) },
    (_, i) => amplitude * Math.sin((2 * Math.PI * 1000 * i) / RATE),
  );
}

describe('LevelMeter', () => {
  it('reads a sine’s RMS and peak, fed in pieces of any length', () => {
    const meter = new LevelMeter(false);
    const signal = sine(2, 0.5);
    for (let at = 0; at < signal.length; at += 1234) meter.push(signal.subarray(at, at + 1234));
    const levels = meter.result('sine');
    // A sine's RMS is its peak − 3.01 dB: 0.5 is −6.02 dBFS peak, −9.03 RMS.
    expect(levels.peakDb).toBeCloseTo(-6.02, 1);
    expect(levels.rmsDb).toBeCloseTo(-9.03, 1);
    expect(levels.durationMs).toBe(2000);
    expect(Number.isNaN(levels.loudnessLufs)).toBe(true);
  });

  it('takes the noise floor from the quietest whole 500 ms window, not a partial last one', () => {
    const meter = new LevelMeter(false);
    meter.push(sine(1, 0.5));
    meter.push(sine(0.5, 0.01)); // −43 dB RMS: a whole quiet window
    meter.push(new Float32Array(RATE * 0.2)); // digital silence, but only a partial window
    const levels = meter.result('floor');
    expect(levels.noiseFloorDb).toBeCloseTo(-43.01, 1);
  });

  it('reads digital silence as −144 dB and measures loudness when asked', () => {
    const silent = new LevelMeter(true);
    silent.push(new Float32Array(RATE));
    expect(silent.result('silence')).toMatchObject({ rmsDb: -144, peakDb: -144, noiseFloorDb: -144 });
    const loud = new LevelMeter(true);
    loud.push(sine(3, 0.5));
    // BS.1770: a full-scale 1 kHz sine reads −3.01 LUFS, so one at half scale −9.03.
    expect(loud.result('sine').loudnessLufs).toBeCloseTo(-9.03, 1);
    expect(() => new LevelMeter(false).result('empty')).toThrow(/no audio/);
  });
});
