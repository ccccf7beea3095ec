import type { z } from 'zod';
import type { Db } from '../../../db/knex';
import type { Account } from '../../../db/models/Account';
import type { Usage } from './schema';

/** The current period: the calendar month in UTC. */
export function currentPeriod(now = new Date()): { start: Date; end: Date } {
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
}

/**
 * Usage of the current period. Syntheses and cloned voices do not exist yet,
 * so their counters are zero; the synthesis and cloning work fills them in.
 */
export async function usageOf(db: Db, account: Account): Promise<z.output<typeof Usage>> {
  const { start, end } = currentPeriod();
  const plan = await db('subscription_plans').where({ id: account.subscription_tier }).first('max_cloned_voices');
  return {
    period_start: start.toISOString(),
    period_end: end.toISOString(),
    credits_used: 0,
    characters_synthesized: 0,
    syntheses: 0,
    syntheses_failed: 0,
    audio_seconds: 0,
    cloned_voices: 0,
    cloned_voices_limit: plan?.max_cloned_voices ?? 0,
  };
}
