import type { Knex } from 'knex';
import type { Account } from './models/Account';

/** An account with its usage of a period (null where it has none). */
export type AccountWithUsage = Account & {
  syntheses: number | null;
  syntheses_failed: number | null;
  /** bigint: a string from pg. */
  credits_used: string | null;
  audio_seconds: number | null;
  cloned_voices: number | null;
};

/**
 * The operator's account list (cli/admin.ts): accounts, newest first, each
 * with the syntheses that ended in [start, end) and the clones that count
 * toward its plan, in one statement (two grouped subqueries joined to accounts).
 */
export function accountsWithUsage(
  db: Knex,
  { start, end, limit, email }: { start: Date; end: Date; limit: number; email?: string },
): Promise<AccountWithUsage[]> {
  // As Synthesis's listed modifier: a stream-input connection's pieces count in its entry.
  const syntheses = db('syntheses')
    .whereNull('part_of')
    .where('completed_at', '>=', start)
    .andWhere('completed_at', '<', end)
    .groupBy('account_id')
    .select(
      'account_id',
      db.raw(`count(*) filter (where status = 'completed')::int as syntheses`),
      db.raw(`count(*) filter (where status = 'failed')::int as syntheses_failed`),
      db.raw(`coalesce(sum(credits_charged) filter (where status = 'completed'), 0)::bigint as credits_used`),
      db.raw(`coalesce(sum(duration_seconds) filter (where status = 'completed'), 0)::float as audio_seconds`),
    )
    .as('s');
  // As Voice's countingTowardPlan modifier: live clones, processing or ready.
  const voices = db('voices')
    .where({ category: 'cloned' })
    .whereIn('status', ['processing', 'ready'])
    .whereNull('deleted_at')
    .groupBy('account_id')
    .select('account_id', db.raw('count(*)::int as cloned_voices'))
    .as('v');
  const query = db('accounts as a')
    .leftJoin(syntheses, 's.account_id', 'a.id')
    .leftJoin(voices, 'v.account_id', 'a.id')
    .select('a.*', 's.syntheses', 's.syntheses_failed', 's.credits_used', 's.audio_seconds', 'v.cloned_voices')
    .orderBy('a.created_at', 'desc')
    .limit(limit);
  if (email) query.where('a.email', email);
  return query;
}
