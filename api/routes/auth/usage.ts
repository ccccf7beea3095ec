import type { z } from 'zod';
import type { Db } from '../../../db/knex';
import type { Account } from '../../../db/models/Account';
import { SubscriptionPlan } from '../../../db/models/SubscriptionPlan';
import { Synthesis } from '../../../db/models/Synthesis';
import { Voice } from '../../../db/models/Voice';
import type { Usage } from './schema';

/** The current period: the calendar month in UTC. */
export function currentPeriod(now = new Date()): { start: Date; end: Date } {
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
}

/** Usage of the current period: syntheses that ended in it, and the clones that count against the plan. */
export async function usageOf(db: Db, account: Account): Promise<z.output<typeof Usage>> {
  const { start, end } = currentPeriod();
  const [plan, syntheses, clonedVoices, daily] = await Promise.all([
    SubscriptionPlan.query(db).findById(account.subscription_tier).select('max_cloned_voices'),
    Synthesis.periodTotals(db, account, start, end),
    Voice.query(db).modify('countingTowardPlan', account).resultSize(),
    Synthesis.dailyTotals(db, account, start, end),
  ]);
  return {
    period_start: start.toISOString(),
    period_end: end.toISOString(),
    credits_used: syntheses.credits_used,
    characters_synthesized: syntheses.characters_synthesized,
    syntheses: syntheses.syntheses,
    syntheses_failed: syntheses.syntheses_failed,
    audio_seconds: Math.round(syntheses.audio_seconds * 100) / 100,
    cloned_voices: clonedVoices,
    cloned_voices_limit: plan?.max_cloned_voices ?? 0,
    daily: daily.map((day) => ({
      date: day.date,
      syntheses: day.syntheses,
      credits_used: day.credits_used,
      audio_seconds: Math.round(day.audio_seconds * 100) / 100,
    })),
  };
}
