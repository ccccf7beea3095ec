import { patched, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { AccountDeletionInput, AccountDeletionResult } from '../synthesis/contracts';

/** Database and storage steps: retried until PostgreSQL and storage answer, so an outage delays the erasure and never stops it. */
const { beginAccountDeletion, removeAccountObjects, eraseAccountHistories, eraseAccount } = proxyActivities<Activities>(
  {
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '30 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  },
);
/** Waits for canceled jobs to end (a render stops within seconds); a killed worker's attempt is retried within seconds. */
const { cancelAccountJobs } = proxyActivities<Activities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/**
 * `account-deletion:<account id>`, started by the API once the account is
 * marked deleted: mark again and drop the webhook endpoints → cancel running
 * jobs and wait for them (each releases its own reservation) → remove every
 * object under the account's keys → delete its closed workflow histories →
 * anonymize the ledger, keep the consent
 * records and delete the account with every other row of it. Every step is
 * idempotent, so a worker restart anywhere repeats at most one of them; a job
 * submitted at the last moment sends the loop round again.
 */
/** Deployed after accounts were being deleted without it: their histories replay without the step. */
const ERASE_HISTORIES = 'erase-workflow-histories';

export async function accountDeletion({ accountId }: AccountDeletionInput): Promise<AccountDeletionResult> {
  const result: AccountDeletionResult = {
    canceledJobs: 0,
    removedObjects: 0,
    anonymizedLedgerRows: 0,
    keptConsentRecords: 0,
  };
  await beginAccountDeletion({ accountId });
  for (;;) {
    result.canceledJobs += await cancelAccountJobs({ accountId });
    result.removedObjects += await removeAccountObjects({ accountId });
    // Temporal keeps a synthesis's text in its history: those go before the rows that name them.
    if (patched(ERASE_HISTORIES))
      result.deletedHistories = (result.deletedHistories ?? 0) + (await eraseAccountHistories({ accountId }));
    const erased = await eraseAccount({ accountId });
    if (erased) return { ...result, ...erased };
    await sleep('1 second');
  }
}
