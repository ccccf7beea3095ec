import { defineQuery, defineSignal } from '@temporalio/workflow';

/** Sent to a queued synthesis when another synthesis of its account ends and frees a slot. */
export const slotFreedSignal = defineSignal('slotFreed');

export interface SynthesisProgress {
  status: 'queued' | 'processing' | 'completed' | 'failed' | 'canceled';
  progress: number;
}
export const progressQuery = defineQuery<SynthesisProgress>('progress');
