import { proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CaptureInput, CaptureResult } from '../activities/credits';

// One short transaction: a local activity, so the whole workflow is one workflow task (no activity task round trip).
const { captureCredits } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

/**
 * `credits:capture:<reference>`: the credit deduction of a finished synthesis,
 * exactly once, as its own workflow so an operator sees every charge in the
 * Temporal UI. The reservation it charges was made, and is otherwise
 * released, by the synthesis workflow that starts this one.
 *
 * Registered under the workflow type CREDIT_CAPTURE_WORKFLOW_TYPE
 * ('creditDeduction', its name from before it only captured): start it by
 * that name, never by this function (whose name would be the type).
 */
export async function creditCapture(input: CaptureInput): Promise<CaptureResult> {
  return await captureCredits(input);
}
