import quantile from '@stdlib/stats-base-dists-t-quantile';

/**
 * The soak's verdict math: a least-squares line through each per-minute
 * series, its slope per hour with a 95 % confidence interval (Student's t on
 * n − 2 degrees of freedom) and R², and whether that slope is growth beyond
 * noise. Pure functions; test/unit/trend.test.ts covers them.
 */

export interface Point {
  /** Hours since the start of the run. */
  hours: number;
  value: number;
}

export interface Trend {
  n: number;
  mean: number;
  /** Units per hour. */
  slope: number;
  /** 95 % confidence interval of the slope (units per hour). */
  low: number;
  high: number;
  /** Share of the variance the line explains (1 for a constant series: nothing is left unexplained). */
  r2: number;
}

/** Ordinary least squares of value on hours; null with fewer than 3 finite points or no spread in time. */
export function linearTrend(points: Point[]): Trend | null {
  const finite = points.filter((point) => Number.isFinite(point.value) && Number.isFinite(point.hours));
  const n = finite.length;
  if (n < 3) return null;
  const meanX = finite.reduce((sum, point) => sum + point.hours, 0) / n;
  const mean = finite.reduce((sum, point) => sum + point.value, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const { hours, value } of finite) {
    sxx += (hours - meanX) ** 2;
    sxy += (hours - meanX) * (value - mean);
    syy += (value - mean) ** 2;
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  const sse = Math.max(0, syy - slope * sxy);
  const standardError = Math.sqrt(sse / (n - 2) / sxx);
  const t = quantile(0.975, n - 2);
  return {
    n,
    mean,
    slope,
    low: slope - t * standardError,
    high: slope + t * standardError,
    r2: syy === 0 ? 1 : 1 - sse / syy,
  };
}

export type Verdict = 'flat' | 'grows' | 'shrinks' | 'too few points';

export interface Tolerance {
  /** Growth below this share of the series' mean per hour is not a leak worth a name (0.05 = 5 %/h). */
  relative: number;
  /** …nor below this many units per hour (e.g. 2 MiB/h, 1 fd/h). */
  absolute: number;
}

export const DEFAULT_TOLERANCE: Tolerance = { relative: 0.05, absolute: 0 };

/**
 * Grows (or shrinks) when the whole 95 % interval is on one side of zero and
 * the slope is beyond both tolerances; flat otherwise. A confident but tiny
 * slope is flat: a series measured 60 times can show a significant drift of a
 * few kilobytes an hour that no one would call a leak.
 */
export function verdictOf(trend: Trend | null, tolerance: Tolerance = DEFAULT_TOLERANCE): Verdict {
  if (!trend) return 'too few points';
  const large =
    Math.abs(trend.slope) > tolerance.absolute && Math.abs(trend.slope) > tolerance.relative * Math.abs(trend.mean);
  if (trend.low > 0 && large) return 'grows';
  if (trend.high < 0 && large) return 'shrinks';
  return 'flat';
}
