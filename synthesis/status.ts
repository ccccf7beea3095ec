/**
 * The statuses of a synthesis: the `syntheses.status` column (its CHECK
 * constraint lists the same), the API's `status` field and the workflow's
 * `progress` query. Pure: workflow code imports it.
 */
export const SYNTHESIS_STATUSES = ['queued', 'processing', 'completed', 'failed', 'canceled'] as const;
export type SynthesisStatus = (typeof SYNTHESIS_STATUSES)[number];

/** How a synthesis that produced no audio ended: its credits released, nothing charged. */
export type UnchargedEnd = Extract<SynthesisStatus, 'failed' | 'canceled'>;
