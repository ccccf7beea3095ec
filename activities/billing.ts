import type { ActivityDeps } from '.';
import { applyGrant } from '../db/ledger';
import { Account } from '../db/models/Account';

/**
 * Billing periods run monthly from each account's verification: period k
 * (k ≥ 1) starts at `email_verified_at + k months` (PostgreSQL's month
 * arithmetic: a 31st anchors to the month's last day). Period 0's credits are
 * the signup grant.
 */

export interface RefillBatch {
  /** Accounts whose current period got its refill now. */
  refilled: number;
  /** Credits granted in all (a balance already at the plan's credits gets a zero row). */
  granted: number;
  /** Whether a full batch was taken: the workflow asks again. */
  more: boolean;
}

export function createBillingActivities({ db }: ActivityDeps) {
  return {
    /**
     * Refills up to `limit` accounts whose current period (as of `asOf`) has
     * no refill yet: each in its own transaction, the account row locked, the
     * available balance topped up to the plan's `monthly_credits` through one
     * ledger `grant` row keyed by the period. Reservations in flight are left
     * as they are (`credits_reserved` is not touched; a capture still
     * charges them). Retried or repeated, it changes nothing for a period
     * already refilled.
     */
    async refillDueAccounts({ asOf, limit = 200 }: { asOf: string; limit?: number }): Promise<RefillBatch> {
      const due: { id: string; reference: string }[] = (
        await db.raw(
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
        )
      ).rows;
      let refilled = 0;
      let granted = 0;
      for (const account of due) {
        await db.transaction(async (trx) => {
          const row = await Account.withMonthlyCredits(trx, account.id, { lock: true });
          // Erased since the due list was read: nothing to refill.
          if (!row) return;
          const amount = Math.max(0, Number(row.monthly_credits) - Number(row.credit_balance));
          if (await applyGrant(trx, account.id, amount, account.reference)) {
            refilled += 1;
            granted += amount;
          }
        });
      }
      return { refilled, granted, more: due.length === limit };
    },
  };
}
