import type { Db } from '../../db/knex';
import { rateLimited } from '../errors';

export interface RateLimit {
  /** What is counted, e.g. `login:ip:127.0.0.1`. */
  key: string;
  /** Requests allowed per window; 0 turns the limit off. */
  limit: number;
  windowSeconds: number;
}

/**
 * Fixed-window counters in PostgreSQL, shared by every API process. Counts
 * the request, then answers 429 with Retry-After once the window's limit is passed.
 */
export async function enforceRateLimit(db: Db, { key, limit, windowSeconds }: RateLimit): Promise<void> {
  if (limit === 0) return;
  const now = Date.now();
  const windowMs = windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now / windowMs) * windowMs);
  const { rows } = await db.raw<{ rows: { count: number }[] }>(
    `insert into rate_limit_counters (key, window_start, count) values (?, ?, 1)
     on conflict (key, window_start) do update set count = rate_limit_counters.count + 1
     returning count`,
    [key, windowStart],
  );
  // Now and then, forget windows that ended long ago.
  if (Math.random() < 0.01) {
    await db('rate_limit_counters')
      .where('window_start', '<', new Date(now - 2 * 24 * 3600 * 1000))
      .delete();
  }
  if (rows[0].count > limit) throw rateLimited(Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now) / 1000)));
}
