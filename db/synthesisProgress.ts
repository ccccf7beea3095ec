import type { Knex } from 'knex';
import { PROGRESS_CHANNEL } from '../lib/progress';
import { Synthesis } from './models/Synthesis';

/**
 * Moves a processing synthesis's progress forward (never back: a retried
 * chunk changes nothing) and notifies its watchers, in one round trip: the
 * update, then the notification (sent at commit, so after the row changed).
 */
export async function advanceProgress(db: Knex, synthesisId: string, progress: number): Promise<void> {
  await db.raw(`with moved as (?) select pg_notify(?, ?)`, [
    Synthesis.query(db)
      .where({ id: synthesisId, status: 'processing' })
      .patch({ progress: db.raw('greatest(progress, ?)', [Math.round(progress * 1000) / 1000]) })
      .toKnexQuery(),
    PROGRESS_CHANNEL,
    synthesisId,
  ]);
}
