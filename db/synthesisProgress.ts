import type { Knex } from 'knex';
import type { PartialModelObject } from 'objection';
import { PROGRESS_CHANNEL } from '../lib/progress';
import { Synthesis, type SynthesisRow } from './models/Synthesis';

/**
 * Moves a processing synthesis's progress forward (never back: a retried
 * chunk changes nothing) and notifies its watchers, in one round trip: the
 * update, then the notification (sent at commit, so after the row changed).
 */
export async function advanceProgress(db: Knex, synthesisId: string, progress: number): Promise<void> {
  await patchAndNotify(db, synthesisId, { progress: db.raw('greatest(progress, ?)', [Math.round(progress * 1000) / 1000]) }, { status: 'processing' });
}

/** Patches a synthesis's row and notifies its watchers in one statement: the notification goes out at commit, after the row changed. */
async function patchAndNotify(db: Knex, synthesisId: string, patch: PartialModelObject<Synthesis>, where: Partial<SynthesisRow> = {}): Promise<void> {
  await db.raw(`with patched as (?) select pg_notify(?, ?)`, [
    Synthesis.query(db)
      .where({ ...where, id: synthesisId })
      .patch(patch)
      .toKnexQuery(),
    PROGRESS_CHANNEL,
    synthesisId,
  ]);
}

/** What a completed synthesis records of its audio. */
export interface CompletedAudio {
  audioKey: string;
  bytes: number;
  durationSeconds: number;
}

/**
 * Records a synthesis as completed with its audio, charged its characters,
 * and notifies its watchers, in one round trip (the notification goes out at
 * commit). In the caller's transaction when `db` is one: the credit capture
 * records it in the transaction that charges it (activities/credits.ts).
 */
export async function recordCompletion(db: Knex, synthesisId: string, audio: CompletedAudio): Promise<void> {
  await patchAndNotify(db, synthesisId, {
    status: 'completed',
    progress: 1,
    audio_key: audio.audioKey,
    audio_bytes: audio.bytes,
    duration_seconds: audio.durationSeconds,
    credits_charged: db.raw('characters'),
    completed_at: db.fn.now(),
    updated_at: db.fn.now(),
  });
}
