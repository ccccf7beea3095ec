import { linearTrend, verdictOf } from '../../chaos/trend';

const points = (values: number[], hoursApart = 1) =>
  values.map((value, index) => ({ hours: index * hoursApart, value }));

describe('linearTrend', () => {
  it('finds the slope, its 95 % interval and R² of a noisy series (checked by hand: t(0.975, 3) = 3.1824)', () => {
    // x 0..4, y 1 3 2 5 4: Sxx 10, Sxy 8, Syy 10 → slope 0.8, SSE 3.6, se √0.12, R² 0.64.
    const trend = linearTrend(points([1, 3, 2, 5, 4]))!;
    expect(trend.n).toBe(5);
    expect(trend.mean).toBeCloseTo(3, 10);
    expect(trend.slope).toBeCloseTo(0.8, 10);
    expect(trend.r2).toBeCloseTo(0.64, 10);
    expect(trend.low).toBeCloseTo(0.8 - 3.182446 * Math.sqrt(0.12), 4);
    expect(trend.high).toBeCloseTo(0.8 + 3.182446 * Math.sqrt(0.12), 4);
  });

  it('gives a zero-width interval and R² 1 for an exact line, per hour whatever the spacing', () => {
    // One point a minute, 2 units more each minute: 120 units per hour.
    const trend = linearTrend(points([10, 12, 14, 16, 18, 20], 1 / 60))!;
    expect(trend.slope).toBeCloseTo(120, 8);
    // Rounding only: the residual sum of squares is a difference of large numbers.
    expect(trend.high - trend.low).toBeLessThan(1e-3);
    expect(trend.r2).toBeCloseTo(1, 10);
  });

  it('treats a constant series as flat and explained', () => {
    const trend = linearTrend(points([7, 7, 7, 7]))!;
    expect(trend.slope).toBe(0);
    expect([trend.low, trend.high]).toEqual([0, 0]);
    expect(trend.r2).toBe(1);
  });

  it('leaves out missing points and needs three finite ones', () => {
    expect(linearTrend(points([1, NaN, 2]))).toBeNull();
    expect(
      linearTrend([
        { hours: 1, value: 1 },
        { hours: 1, value: 2 },
        { hours: 1, value: 3 },
      ]),
    ).toBeNull();
    expect(linearTrend(points([1, NaN, 5, 7]))!.slope).toBeCloseTo(2, 10);
  });

  it('widens the interval as the noise grows', () => {
    const quiet = linearTrend(points([0, 1.1, 1.9, 3.1, 3.9, 5.1]))!;
    const noisy = linearTrend(points([0, 3, 0, 5, 2, 6]))!;
    expect(noisy.high - noisy.low).toBeGreaterThan(quiet.high - quiet.low);
  });
});

describe('verdictOf', () => {
  const rising = linearTrend(points([100, 110, 121, 130, 140, 151]))!;

  it('says grows when the whole interval is above zero and the slope is beyond both tolerances', () => {
    expect(verdictOf(rising, { relative: 0.05, absolute: 1 })).toBe('grows');
  });

  it('says flat for a confident slope below the tolerance (a drift nobody would call a leak)', () => {
    expect(verdictOf(rising, { relative: 0.5, absolute: 1 })).toBe('flat');
    expect(verdictOf(rising, { relative: 0, absolute: 50 })).toBe('flat');
  });

  it('says flat when the interval spans zero, however steep the slope', () => {
    const trend = linearTrend(points([1, 30, 2, 40, 3]))!;
    expect(trend.low).toBeLessThan(0);
    expect(verdictOf(trend, { relative: 0, absolute: 0 })).toBe('flat');
  });

  it('says shrinks for a confident fall, and too few points without a trend', () => {
    expect(verdictOf(linearTrend(points([50, 40, 31, 20, 10]))!, { relative: 0.05, absolute: 1 })).toBe('shrinks');
    expect(verdictOf(null)).toBe('too few points');
  });
});
