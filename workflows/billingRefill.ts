import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { refillDueAccounts } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute' },
});

export interface BillingRefillInput {
  /** The moment whose periods are refilled (ISO 8601); default the workflow's start, so a late or caught-up run refills the period it was meant for. */
  asOf?: string;
}

/**
 * `billing-refill:<time>`, started by the `billing-refill` schedule: tops up
 * every account whose billing period began and has no refill yet, in
 * batches. Exactly once per account and period (the ledger row is keyed by
 * the period), so overlapping, repeated or caught-up runs are harmless.
 */
export async function billingRefill({ asOf }: BillingRefillInput = {}): Promise<{ refilled: number; granted: number }> {
  const moment = asOf ?? new Date().toISOString();
  let refilled = 0;
  let granted = 0;
  for (;;) {
    const batch = await refillDueAccounts({ asOf: moment });
    refilled += batch.refilled;
    granted += batch.granted;
    if (!batch.more) return { refilled, granted };
  }
}
