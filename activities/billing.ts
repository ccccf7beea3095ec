import type { ActivityDeps } from '.';
import { applyGrant } from '../db/ledger';
import { dueRefills } from '../db/refills';
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
      const due = await dueRefills(db, asOf, limit);
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
