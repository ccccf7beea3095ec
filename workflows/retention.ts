import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { HistoryRetentionInput } from '../synthesis/contracts';

const { expireHistory } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute' },
});

/**
 * `history-retention`, started by the `history-retention` schedule: deletes
 * ended syntheses older than their account's retention, with their audio, in
 * batches. Repeated or overlapping runs find nothing more to do.
 */
export async function historyRetention({ asOf }: HistoryRetentionInput = {}): Promise<{ deleted: number }> {
  const moment = asOf ?? new Date().toISOString();
  let deleted = 0;
  for (;;) {
    const batch = await expireHistory({ asOf: moment });
    deleted += batch.deleted;
    if (!batch.more) return { deleted };
  }
}
