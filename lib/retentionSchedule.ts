import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Config } from './config';

const RETENTION_SCHEDULE_ID = 'history-retention';

/**
 * The schedule (Temporal UI, Schedules) that starts the `historyRetention`
 * workflow every hour, made the way the billing schedule is: created once by
 * whichever worker starts first; an existing one, paused or not, is left as
 * the operator set it. Retention counts in days, so an hour late is on time.
 */
export async function ensureRetentionSchedule(
  client: Client,
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>,
  { scheduleId = RETENTION_SCHEDULE_ID, paused = false } = {},
): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1 hour' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'historyRetention',
        args: [{}],
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: scheduleId,
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
      state: {
        paused,
        note: 'History retention: deletes syntheses older than each account’s retention (credits untouched).',
      },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
}
