import type { Knex } from 'knex';
import { RateLimitCounter } from './models/RateLimitCounter';

/**
 * Counts one request in its fixed window, shared by every API process: one
 * upsert that answers the window's count so far (this request included).
 */
export async function countRequest(db: Knex, key: string, windowStart: Date): Promise<number> {
  const { rows } = await db.raw<{ rows: { count: number }[] }>(
    `insert into rate_limit_counters (key, window_start, count) values (?, ?, 1)
     on conflict (key, window_start) do update set count = rate_limit_counters.count + 1
     returning count`,
    [key, windowStart],
  );
  return rows[0].count;
}

/** Forgets the windows that started before `before`. */
export async function forgetWindowsBefore(db: Knex, before: Date): Promise<void> {
  await RateLimitCounter.query(db).where('window_start', '<', before).delete();
}
