import type { Db } from '../../db/knex';
import { countRequest, forgetWindowsBefore } from '../../db/rateLimits';
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
  const count = await countRequest(db, key, windowStart);
  // Now and then, forget windows that ended long ago.
  if (Math.random() < 0.01) {
    await forgetWindowsBefore(db, new Date(now - 2 * 24 * 3600 * 1000));
  }
  if (count > limit) throw rateLimited(Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now) / 1000)));
}
