/**
 * Piper's length_scale stretches each phoneme's predicted duration, but not
 * the pauses and edges the same way: the duration is not proportional to it
 * (measured on en_US-joe-medium: length_scale 0.5 gives 0.59x the duration,
 * 2.0 gives 1.77x). This table inverts the measured curve so that rate r
 * gives 1/r of the rate-1 duration.
 */

/**
 * [rate, length_scale] pairs, rate ascending; interpolated linearly between.
 * Measured on en_US-joe-medium (bench/piperSpeed.ts, six sentences, no
 * noise). Durations move in steps (each phoneme lasts a whole number of
 * frames), hence the dense table. Faster than 1.6 the model needs length
 * scales below 0.55, where it slurs and stops shortening (0.3 still gives
 * 0.49x): the rest of a faster rate is a time stretch (renderChunk).
 */
const RATE_TO_LENGTH_SCALE: ReadonlyArray<readonly [number, number]> = [
  [0.5, 2.328],
  [0.55, 2.089],
  [0.6, 1.893],
  [0.65, 1.715],
  [0.7, 1.577],
  [0.75, 1.46],
  [0.8, 1.373],
  [0.85, 1.304],
  [0.9, 1.227],
  [0.95, 1.139],
  [1, 1],
  [1.05, 0.905],
  [1.1, 0.848],
  [1.15, 0.804],
  [1.2, 0.771],
  [1.25, 0.741],
  [1.3, 0.715],
  [1.4, 0.669],
  [1.5, 0.623],
  [1.6, 0.55],
];

export const PIPER_RATE_RANGE = {
  min: RATE_TO_LENGTH_SCALE[0][0],
  max: RATE_TO_LENGTH_SCALE[RATE_TO_LENGTH_SCALE.length - 1][0],
} as const;

/** The length_scale for a rate factor (clamped to the measured range). */
export function lengthScaleForRate(rate: number): number {
  const table = RATE_TO_LENGTH_SCALE;
  if (rate <= table[0][0]) return table[0][1];
  for (let i = 1; i < table.length; i++) {
    const [r1, s1] = table[i];
    if (rate <= r1) {
      const [r0, s0] = table[i - 1];
      return s0 + ((rate - r0) / (r1 - r0)) * (s1 - s0);
    }
  }
  return table[table.length - 1][1];
}
