import type { Knex } from 'knex';
import type { PartialModelObject, QueryBuilder } from 'objection';
import { Project } from '../db/models/Project';
import { RUNNING_STATUSES, Synthesis, type SynthesisRow } from '../db/models/Synthesis';
import { PROGRESS_CHANNEL } from '../lib/progress';
import type { SynthesisRequest } from './contracts';
import type { UnchargedEnd } from './status';

/**
 * Every write to a synthesis's row, from its submission to its removal, in
 * the order they happen. The ones a watcher waits for (the status stream, a
 * streaming client: lib/progress.ts) send `NOTIFY synthesis_progress` in the
 * same statement, so the notification goes out at commit, after the row
 * changed. A deletion is announced by the table's trigger (db/migrations).
 */

/**
 * Records a checked request as queued, in the transaction that reserves its
 * credits. Idempotent on the synthesis id. A project deleted since the API
 * checked it unlinks, as deleting a project unlinks its syntheses.
 */
export async function recordRequest(trx: Knex.Transaction, request: SynthesisRequest): Promise<void> {
  const project = request.projectId
    ? await Project.query(trx).modify('ownedBy', { id: request.accountId }).findById(request.projectId).select('id')
    : null;
  await Synthesis.query(trx)
    .insert({
      id: request.synthesisId,
      account_id: request.accountId,
      project_id: project ? request.projectId : null,
      voice_id: request.voiceId,
      text: request.text,
      characters: request.characters,
      spoken_characters: request.spokenCharacters ?? request.characters,
      speed: request.speed,
      pitch: request.pitch,
      emotion: request.emotion,
      output_format: request.outputFormat,
      streaming: request.streaming ?? false,
      text_normalization: request.textNormalization ?? 'auto',
      pronunciation_dictionary_ids: request.pronunciationDictionaryIds?.length
        ? request.pronunciationDictionaryIds
        : null,
      text_type: request.textType ?? 'text',
      part_of: request.partOf?.sessionId ?? null,
      part_index: request.partOf?.index ?? null,
    })
    .onConflict('id')
    .ignore();
}

/**
 * A queued synthesis took one of its plan's slots: it may render, and stays
 * `queued` until its render starts (recordRendering). In the transaction that
 * takes the slot (with the reservation, the first time), without a
 * notification: nothing a client sees changed.
 */
export async function recordSlotTaken(trx: Knex.Transaction, synthesisId: string): Promise<void> {
  await Synthesis.query(trx)
    .patch({ slot_taken_at: trx.fn.now(), updated_at: trx.fn.now() })
    .where({ id: synthesisId });
}

/**
 * Its render started on a worker (it holds a render slot): a queued synthesis
 * is `processing` from now, and its watchers hear it. One that has ended (a
 * cancel recorded at once) or is processing already stays as it is.
 */
export async function recordRendering(db: Knex, synthesisId: string): Promise<void> {
  await patchAndNotify(
    db,
    synthesisId,
    { status: 'processing', started_at: db.fn.now(), updated_at: db.fn.now() },
    { status: 'queued' },
  );
}

/** Tells a synthesis's watchers to look again. Best effort: a failure never fails the step it follows. */
export async function notifyWatchers(db: Knex, synthesisId: string): Promise<void> {
  await db.raw('select pg_notify(?, ?)', [PROGRESS_CHANNEL, synthesisId]).catch(() => undefined);
}

/**
 * Moves a processing synthesis's progress forward (never back: a retried
 * chunk changes nothing) and notifies its watchers, in one round trip.
 */
export async function advanceProgress(db: Knex, synthesisId: string, progress: number): Promise<void> {
  await patchAndNotify(
    db,
    synthesisId,
    { progress: db.raw('greatest(progress, ?)', [Math.round(progress * 1000) / 1000]) },
    { status: 'processing' },
  );
}

/** What a completed synthesis records of its audio. */
export interface CompletedAudio {
  audioKey: string;
  bytes: number;
  durationSeconds: number;
}

/**
 * Records a synthesis as completed with its audio and the credits it was
 * charged, and notifies its watchers, in one round trip. In the caller's
 * transaction when `db` is one: the credit capture records it in the
 * transaction that charges it (activities/credits.ts).
 */
export async function recordCompletion(
  db: Knex,
  synthesisId: string,
  audio: CompletedAudio,
  creditsCharged: number,
): Promise<void> {
  await patchAndNotify(db, synthesisId, {
    status: 'completed',
    progress: 1,
    audio_key: audio.audioKey,
    audio_bytes: audio.bytes,
    duration_seconds: audio.durationSeconds,
    credits_charged: creditsCharged,
    completed_at: db.fn.now(),
    updated_at: db.fn.now(),
  });
}

/**
 * Records a running synthesis as failed or canceled: no audio, nothing charged. One that has ended already keeps
 * how and when it ended (a cancel is recorded at once, then again once its renders have stopped).
 */
export async function recordEnded(
  db: Knex,
  synthesisId: string,
  status: UnchargedEnd,
  error: SynthesisRow['error'],
): Promise<void> {
  await patchAndNotify(
    db,
    synthesisId,
    { status, error, audio_key: null, credits_charged: 0, completed_at: db.fn.now(), updated_at: db.fn.now() },
    (query) => query.whereIn('status', RUNNING_STATUSES),
  );
}

/**
 * Hides an entry from its owner's history (the row stays for usage figures and the ledger), and with it the pieces
 * it was recorded from, if it is a stream's entry (their audio went when it was recorded).
 */
export async function recordDeleted(db: Knex, synthesisId: string): Promise<void> {
  await Synthesis.query(db)
    .modify('live')
    .patch({ deleted_at: db.fn.now(), updated_at: db.fn.now() })
    .where((entry) => entry.where({ id: synthesisId }).orWhere({ part_of: synthesisId }));
}

/** A deleted synthesis's audio is gone from storage. */
export async function recordAudioRemoved(db: Knex, synthesisId: string): Promise<void> {
  await Synthesis.query(db).patch({ audio_key: null }).where({ id: synthesisId });
}

/** History retention: deletes the row of an ended synthesis (never a running one). */
export async function deleteEnded(db: Knex, synthesisId: string): Promise<void> {
  await Synthesis.query(db).modify('ended').delete().where({ id: synthesisId });
}

/** Patches a synthesis's row and notifies its watchers in one statement: the notification goes out at commit, after the row changed. */
async function patchAndNotify(
  db: Knex,
  synthesisId: string,
  patch: PartialModelObject<Synthesis>,
  where: Partial<SynthesisRow> | ((query: QueryBuilder<Synthesis>) => void) = {},
): Promise<void> {
  const query = Synthesis.query(db).where({ id: synthesisId });
  if (typeof where === 'function') where(query);
  else query.where(where);
  await db.raw(`with patched as (?) select pg_notify(?, ?)`, [
    query.patch(patch).toKnexQuery(),
    PROGRESS_CHANNEL,
    synthesisId,
  ]);
}
