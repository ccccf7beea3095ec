import type { ProjectSnapshot } from '../db/models/ProjectSnapshot';

/**
 * The public JSON of a snapshot (a conversion): what the API answers and
 * what the `project.*` webhook events carry, so both say the same.
 */
export const presentSnapshot = (row: ProjectSnapshot) => ({
  id: row.id,
  project_id: row.project_id,
  status: row.status,
  progress: row.status === 'completed' ? 1 : row.progress,
  chapters: row.chapters,
  duration_ms: row.duration_ms,
  characters_rendered: row.characters_rendered,
  credits_charged: row.credits_charged,
  blocks_rendered: row.blocks_rendered,
  blocks_reused: row.blocks_reused,
  created_at: new Date(row.created_at).toISOString(),
  completed_at: row.completed_at ? new Date(row.completed_at).toISOString() : null,
  error: row.error,
});

/** Whether a snapshot has ended (nothing will change it any more). */
export const snapshotEnded = (row: Pick<ProjectSnapshot, 'status'>) =>
  row.status === 'completed' || row.status === 'failed' || row.status === 'canceled';
