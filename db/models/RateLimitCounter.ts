import { TableModel } from './TableModel';

/** Requests counted per key and fixed window (api/auth/rateLimit.ts, db/rateLimits.ts). */
export class RateLimitCounter extends TableModel {
  static override tableName = 'rate_limit_counters';
  static override idColumn = ['key', 'window_start'];

  key!: string;
  window_start!: Date;
  count!: number;
}
