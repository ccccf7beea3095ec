import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Config } from './config';

const BILLING_SCHEDULE_ID = 'billing-refill';

/**
 * The schedule (visible in the Temporal UI under Schedules) that starts the
 * `billingRefill` workflow every hour. Created once; an existing one, paused
 * or not, is left as the operator set it. Periods start at any time of day,
 * so a refill lands within the hour; a run missed while Temporal was down is
 * caught up within a day, and a later run refills what it missed anyway.
 */
export async function ensureBillingSchedule(
  client: Client,
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>,
  { scheduleId = BILLING_SCHEDULE_ID, paused = false } = {},
): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1 hour' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'billingRefill',
        args: [{}],
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: `${scheduleId}`,
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
      state: { paused, note: 'Monthly credit refills: tops up each account at the start of its billing period.' },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
}
