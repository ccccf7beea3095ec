import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Config } from './config';

/**
 * The service's schedules (Temporal UI, Schedules), each starting one workflow every hour. Created once by
 * whichever worker starts first; an existing one, paused or not, is left as the operator set it. A run missed
 * while Temporal was down is caught up within a day, and a later run does what it missed anyway.
 */

interface ScheduleOptions {
  scheduleId?: string;
  paused?: boolean;
}

async function ensureHourlySchedule(
  client: Client,
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>,
  {
    scheduleId,
    workflowType,
    note,
    paused,
  }: { scheduleId: string; workflowType: string; note: string; paused: boolean },
): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1 hour' }] },
      action: {
        type: 'startWorkflow',
        workflowType,
        args: [{}],
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: scheduleId,
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
      state: { paused, note },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
}

/**
 * Starts the `billingRefill` workflow every hour. Periods start at any time of day, so a refill lands within the
 * hour.
 */
export function ensureBillingSchedule(
  client: Client,
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>,
  { scheduleId = 'billing-refill', paused = false }: ScheduleOptions = {},
): Promise<void> {
  return ensureHourlySchedule(client, config, {
    scheduleId,
    paused,
    workflowType: 'billingRefill',
    note: 'Monthly credit refills: tops up each account at the start of its billing period.',
  });
}

/** Starts the `historyRetention` workflow every hour. Retention counts in days, so an hour late is on time. */
export function ensureRetentionSchedule(
  client: Client,
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>,
  { scheduleId = 'history-retention', paused = false }: ScheduleOptions = {},
): Promise<void> {
  return ensureHourlySchedule(client, config, {
    scheduleId,
    paused,
    workflowType: 'historyRetention',
    note: 'History retention: deletes syntheses older than each account’s retention (credits untouched).',
  });
}
