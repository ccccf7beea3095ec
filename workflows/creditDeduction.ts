import { proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CreditStepInput, CreditStepResult } from '../activities/credits';

// One short transaction: a local activity, so the whole workflow is one workflow task (no activity task round trip).
const { applyCreditStep } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

export const creditWorkflowId = (step: CreditStepInput['step'], reference: string) => `credits:${step}:${reference}`;

/** `credits:<step>:<reference>`: one ledger step (reserve, capture or release), exactly once. */
export async function creditDeduction(input: CreditStepInput): Promise<CreditStepResult> {
  return await applyCreditStep(input);
}
