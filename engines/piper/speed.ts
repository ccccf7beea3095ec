/**
 * Piper's length_scale stretches each phoneme's predicted duration, but not
 * the pauses and edges the same way: the duration is not proportional to it
 * (measured on en_US-joe-medium: length_scale 0.5 gives 0.59x the duration,
 * 2.0 gives 1.77x). This table inverts the measured curve so that rate r
 * gives 1/r of the rate-1 duration. Measured by bench/piperSpeed.ts.
 */

/** [rate, length_scale] pairs, rate ascending; interpolated linearly between. */
export const RATE_TO_LENGTH_SCALE: ReadonlyArray<readonly [number, number]> = [
  [0.4, 2.5],
  [1, 1],
  [2.5, 0.4],
];

export const PIPER_RATE_RANGE = { min: RATE_TO_LENGTH_SCALE[0][0], max: RATE_TO_LENGTH_SCALE[RATE_TO_LENGTH_SCALE.length - 1][0] } as const;

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
