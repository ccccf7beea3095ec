import type { Knex } from 'knex';

/**
 * The accounts whose current billing period (as of `asOf`) has no refill
 * yet, oldest period first, at most `limit`, each with its period's ledger
 * reference (`refill:<period start>`). Periods run monthly from the
 * account's verification (activities/billing.ts); accounts being deleted
 * are left out.
 */
export async function dueRefills(db: Knex, asOf: string, limit: number): Promise<{ id: string; reference: string }[]> {
  const { rows } = await db.raw(
    `-- In UTC timestamps, so the month arithmetic does not depend on the session's time zone.
     with ages as (
       select a.id, a.email_verified_at at time zone 'UTC' as anchor,
              (extract(year from age(:asOf::timestamptz at time zone 'UTC', a.email_verified_at at time zone 'UTC')) * 12
                + extract(month from age(:asOf::timestamptz at time zone 'UTC', a.email_verified_at at time zone 'UTC')))::int as months
         from accounts a
        where a.email_verified_at is not null and a.email_verified_at <= :asOf::timestamptz and a.deleted_at is null),
     -- age() counts Jan 31 -> Feb 28 as 28 days, while Jan 31 + 1 month is Feb 28: take the later start when it has come.
     periods as (
       select id, anchor,
              case when anchor + (months + 1) * interval '1 month' <= :asOf::timestamptz at time zone 'UTC'
                   then anchor + (months + 1) * interval '1 month'
                   else anchor + months * interval '1 month' end as period_start
         from ages),
     refs as (
       select id, period_start, anchor,
              'refill:' || to_char(period_start, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as reference
         from periods)
     select r.id, r.reference from refs r
      where r.period_start > r.anchor
        and not exists (select 1 from credit_ledger l where l.account_id = r.id and l.kind = 'grant' and l.reference = r.reference)
      order by r.period_start, r.id
      limit :limit`,
    { asOf, limit },
  );
  return rows;
}
