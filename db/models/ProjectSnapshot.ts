import type { Knex } from 'knex';
import { reserve } from '../ledger';
import { TableModel } from './TableModel';

export type SnapshotStatusColumn = 'queued' | 'converting' | 'completed' | 'failed' | 'canceled';

/** A chapter of a snapshot's index (the `chapters` column). */
export interface SnapshotChapter {
  chapter_id: string;
  title: string;
  index: number;
  start_ms?: number | null;
  duration_ms: number;
  qc: Record<string, unknown> | null;
  blocks_rendered: number;
  blocks_reused: number;
}

/** The share of a conversion's progress bar its block renders fill; the chapters' and the book's assembly the rest. */
const RENDERED_SHARE = 0.9;

const conversionReference = (snapshotId: string) => `conversion:${snapshotId}`;
const blockReference = (snapshotId: string, blockId: string) => `block:${snapshotId}:${blockId}`;

/**
 * One conversion of a Studio project into an audiobook
 * (workflows/projectConversion.ts), and its credits. The conversion reserves
 * its estimate once (`conversion:<snapshot>`, db/ledger.ts's reserve); each
 * rendered block is charged out of that reservation as it is stored (a
 * `capture` row `block:<snapshot>:<block>`, unique per account: a retry
 * charges nothing more); at the end, whatever way it ends, the rest is
 * released once (a `release` row `conversion:<snapshot>`). db/ledger.ts's
 * settle captures or releases a whole reservation; these are its partial
 * counterparts, with the same locking (the account row first) and uniqueness.
 */
export class ProjectSnapshot extends TableModel {
  static override tableName = 'project_snapshots';
  static override jsonAttributes = ['chapters', 'outputs', 'error'];

  id!: string;
  project_id!: string;
  account_id!: string;
  status!: SnapshotStatusColumn;
  progress!: number;
  chapter_ids!: string[] | null;
  chapters!: SnapshotChapter[];
  duration_ms!: number | null;
  characters_rendered!: number;
  credits_charged!: number;
  blocks_rendered!: number;
  blocks_reused!: number;
  outputs!: Record<string, unknown>;
  block_keys!: string[];
  error!: { code: string; message: string } | null;
  created_at!: Date;
  completed_at!: Date | null;

  /** Each project's newest snapshot (project id -> snapshot). */
  static async latestOf(db: Knex, projectIds: readonly string[]): Promise<Map<string, ProjectSnapshot>> {
    if (projectIds.length === 0) return new Map();
    const rows = await ProjectSnapshot.query(db)
      .distinctOn('project_id')
      .whereIn('project_id', [...projectIds])
      .orderBy([{ column: 'project_id' }, { column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
    return new Map(rows.map((row) => [row.project_id, row]));
  }

  /** A project's snapshots, newest first (at most `limit`: retention keeps only a few). */
  static async newestOf(db: Knex, projectId: string, limit = 50): Promise<ProjectSnapshot[]> {
    return ProjectSnapshot.query(db)
      .where({ project_id: projectId })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit)
      .select('id', 'status', 'chapter_ids', 'chapters', 'completed_at');
  }

  /** Whether a conversion of the project is queued or converting. */
  static async running(trx: Knex, projectId: string): Promise<boolean> {
    const row = await ProjectSnapshot.query(trx)
      .where({ project_id: projectId })
      .whereIn('status', ['queued', 'converting'])
      .select('id')
      .first();
    return row !== undefined;
  }

  /**
   * The project's ended snapshots past the newest `kept` (the newest
   * completed one always stays: it is the book to download).
   */
  static async beyondKept(db: Knex, projectId: string, kept: number): Promise<ProjectSnapshot[]> {
    const ended = await ProjectSnapshot.query(db)
      .where({ project_id: projectId })
      .whereIn('status', ['completed', 'failed', 'canceled'])
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .select('id', 'account_id', 'status');
    const newestCompleted = ended.find((row) => row.status === 'completed');
    return ended.slice(kept).filter((row) => row !== newestCompleted);
  }

  /** Reserves a conversion's estimate from the account's balance (false: the balance does not cover it). */
  static reserve(trx: Knex.Transaction, accountId: string, snapshotId: string, amount: number): Promise<boolean> {
    return reserve(trx, accountId, conversionReference(snapshotId), amount);
  }

  /** What the conversion's blocks have taken of its reservation: the sum of their captures. */
  private static async charged(trx: Knex.Transaction, accountId: string, snapshotId: string): Promise<number> {
    const row = (await trx('credit_ledger')
      .where({ account_id: accountId, kind: 'capture' })
      .where('reference', 'like', `block:${snapshotId}:%`)
      .sum({ total: 'amount' })
      .first()) as { total: string | null } | undefined;
    return Number(row?.total ?? 0);
  }

  /** The reservation's amount, when it is reserved and not yet released (null otherwise). */
  private static async openReservation(
    trx: Knex.Transaction,
    accountId: string,
    snapshotId: string,
  ): Promise<number | null> {
    await trx('accounts').where({ id: accountId }).forUpdate().first('id');
    const rows: { kind: string; amount: string }[] = await trx('credit_ledger')
      .where({ account_id: accountId, reference: conversionReference(snapshotId) })
      .select('kind', 'amount');
    const reservation = rows.find((row) => row.kind === 'reserve');
    if (!reservation || rows.some((row) => row.kind !== 'reserve')) return null;
    return Number(reservation.amount);
  }

  /**
   * Charges one rendered block out of the conversion's reservation (at most
   * what is left of it) and counts it on the snapshot. Returns what was
   * charged now: 0 when charged before, or once the conversion has settled.
   */
  static async chargeBlock(
    trx: Knex.Transaction,
    input: { accountId: string; snapshotId: string; blockId: string; characters: number },
  ): Promise<number> {
    const reserved = await ProjectSnapshot.openReservation(trx, input.accountId, input.snapshotId);
    if (reserved === null) return 0;
    const before = await ProjectSnapshot.charged(trx, input.accountId, input.snapshotId);
    const amount = Math.min(input.characters, reserved - before);
    if (amount <= 0) return 0;
    const inserted = await trx('credit_ledger')
      .insert({
        account_id: input.accountId,
        kind: 'capture',
        reference: blockReference(input.snapshotId, input.blockId),
        amount,
      })
      .onConflict(['account_id', 'kind', 'reference'])
      .ignore()
      .returning('id');
    if (inserted.length === 0) return 0;
    await trx('accounts')
      .where({ id: input.accountId })
      .update({ credits_reserved: trx.raw('credits_reserved - ?', [amount]), updated_at: trx.fn.now() });
    await ProjectSnapshot.query(trx)
      .findById(input.snapshotId)
      .patch({
        blocks_rendered: ProjectSnapshot.raw('blocks_rendered + 1'),
        characters_rendered: ProjectSnapshot.raw('characters_rendered + ?', [input.characters]),
        credits_charged: ProjectSnapshot.raw('credits_charged + ?', [amount]),
        // Rendering is most of the work: the share of the reservation charged moves the bar up to RENDERED_SHARE.
        progress: ProjectSnapshot.raw('greatest(progress, ?)', [((before + amount) / reserved) * RENDERED_SHARE]),
      } as never);
    return amount;
  }

  /** Returns to the balance what the conversion's blocks did not take, once. Returns that amount. */
  static async releaseRest(trx: Knex.Transaction, accountId: string, snapshotId: string): Promise<number> {
    const reserved = await ProjectSnapshot.openReservation(trx, accountId, snapshotId);
    if (reserved === null) return 0;
    const rest = Math.max(0, reserved - (await ProjectSnapshot.charged(trx, accountId, snapshotId)));
    await trx('credit_ledger').insert({
      account_id: accountId,
      kind: 'release',
      reference: conversionReference(snapshotId),
      amount: rest,
    });
    if (rest > 0)
      await trx('accounts')
        .where({ id: accountId })
        .update({
          credits_reserved: trx.raw('credits_reserved - ?', [rest]),
          credit_balance: trx.raw('credit_balance + ?', [rest]),
          updated_at: trx.fn.now(),
        });
    return rest;
  }

  /** The status (queued -> converting) and overall progress of a conversion still running (never moved back). */
  static async recordProgress(db: Knex, snapshotId: string, progress: number, status?: 'converting'): Promise<void> {
    await ProjectSnapshot.query(db)
      .findById(snapshotId)
      .whereIn('status', ['queued', 'converting'])
      .patch({
        ...(status && { status }),
        progress: ProjectSnapshot.raw('greatest(progress, ?)', [progress]),
      } as never);
  }

  /** A converted chapter's entry in the index (replacing an earlier one of the chapter: a retry) and its files. */
  static async recordChapter(
    db: Knex,
    snapshotId: string,
    entry: SnapshotChapter,
    files: { srt: string; vtt: string; wav: string; mp3?: string },
  ): Promise<void> {
    await db.transaction(async (trx) => {
      const row = await ProjectSnapshot.query(trx).findById(snapshotId).forUpdate();
      if (!row) return;
      const chapters = [...row.chapters.filter((one) => one.chapter_id !== entry.chapter_id), entry].sort(
        (a, b) => a.index - b.index,
      );
      const captions = {
        ...((row.outputs.captions as Record<string, unknown> | undefined) ?? {}),
        [entry.chapter_id]: files,
      };
      await ProjectSnapshot.query(trx)
        .findById(snapshotId)
        .patch({
          chapters,
          outputs: { ...row.outputs, captions },
          blocks_reused: chapters.reduce((sum, one) => sum + one.blocks_reused, 0),
        });
    });
  }

  /** Completes a conversion, once: releases the rest of its reservation and records its files. */
  static async complete(
    db: Knex,
    input: {
      snapshotId: string;
      accountId: string;
      outputs: Record<string, string>;
      /** Each chapter's start in the book, in index order. */
      startsMs: number[];
      durationMs: number;
      blockKeys: string[];
    },
  ): Promise<void> {
    await db.transaction(async (trx) => {
      await ProjectSnapshot.releaseRest(trx, input.accountId, input.snapshotId);
      const row = await ProjectSnapshot.query(trx).findById(input.snapshotId).forUpdate();
      if (!row || row.status === 'completed') return;
      await ProjectSnapshot.query(trx)
        .findById(input.snapshotId)
        .patch({
          status: 'completed',
          progress: 1,
          chapters: row.chapters.map((chapter, at) => ({ ...chapter, start_ms: input.startsMs[at] ?? null })),
          duration_ms: input.durationMs,
          outputs: { ...row.outputs, ...input.outputs },
          block_keys: input.blockKeys,
          completed_at: new Date(),
        });
    });
  }

  /** Ends a conversion failed or canceled, once: releases the rest of its reservation and records why. */
  static async end(
    db: Knex,
    input: {
      snapshotId: string;
      accountId: string;
      status: 'failed' | 'canceled';
      error: { code: string; message: string } | null;
    },
  ): Promise<void> {
    await db.transaction(async (trx) => {
      await ProjectSnapshot.releaseRest(trx, input.accountId, input.snapshotId);
      await ProjectSnapshot.query(trx)
        .findById(input.snapshotId)
        .whereIn('status', ['queued', 'converting'])
        .patch({ status: input.status, error: input.error, completed_at: new Date() });
    });
  }
}
