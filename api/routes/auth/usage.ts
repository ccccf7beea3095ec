import type { z } from 'zod';
import type { Db } from '../../../db/knex';
import type { Account } from '../../../db/models/Account';
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
  const [plan, [syntheses], clonedVoices, daily] = await Promise.all([
    db('subscription_plans').where({ id: account.subscription_tier }).first('max_cloned_voices'),
    db('syntheses')
      .where({ account_id: account.id })
      .andWhere('completed_at', '>=', start)
      .andWhere('completed_at', '<', end)
      .select(
        db.raw(`count(*) filter (where status = 'completed')::int as syntheses`),
        db.raw(`count(*) filter (where status = 'failed')::int as syntheses_failed`),
        db.raw(`coalesce(sum(credits_charged) filter (where status = 'completed'), 0)::int as credits_used`),
        db.raw(`coalesce(sum(characters) filter (where status = 'completed'), 0)::int as characters_synthesized`),
        db.raw(`coalesce(sum(duration_seconds) filter (where status = 'completed'), 0)::float as audio_seconds`),
      ),
    Voice.query(db).modify('countingTowardPlan', account).resultSize(),
    db('syntheses')
      .where({ account_id: account.id, status: 'completed' })
      .andWhere('completed_at', '>=', start)
      .andWhere('completed_at', '<', end)
      .groupByRaw(`1`)
      .orderByRaw(`1`)
      .select(
        db.raw(`to_char(completed_at at time zone 'UTC', 'YYYY-MM-DD') as date`),
        db.raw(`count(*)::int as syntheses`),
        db.raw(`coalesce(sum(credits_charged), 0)::int as credits_used`),
        db.raw(`coalesce(sum(duration_seconds), 0)::float as audio_seconds`),
      ),
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
    daily: daily.map((day: { date: string; syntheses: number; credits_used: number; audio_seconds: number }) => ({
      date: day.date,
      syntheses: day.syntheses,
      credits_used: day.credits_used,
      audio_seconds: Math.round(day.audio_seconds * 100) / 100,
    })),
  };
}
