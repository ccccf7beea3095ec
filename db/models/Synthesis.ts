import type { Knex } from 'knex';
import { raw, type QueryBuilder } from 'objection';
import type { SynthesisStatus } from '../../synthesis/status';
import { type Owner, TableModel, ownedBy } from './TableModel';

/** A row of the `syntheses` table, as knex returns it (bigint columns arrive as strings). */
export interface SynthesisRow {
  id: string;
  account_id: string;
  project_id: string | null;
  voice_id: string;
  text: string;
  characters: number;
  speed: number;
  pitch: number;
  emotion: string;
  output_format: string;
  /** Rendered sentence by sentence for a streaming client (see splitSentences). */
  streaming: boolean;
  /** Written forms read as words first (text/normalize): auto, on or off. */
  text_normalization: 'auto' | 'on' | 'off';
  /** The pronunciation dictionaries it applies, in order, resolved at submit; null: none. */
  pronunciation_dictionary_ids: string[] | null;
  /** `text` or `ssml` (text/ssml): how `text` is read. */
  text_type: TextType;
  /** Code points said after the dictionaries' aliases, as charged at submit; null before it was recorded. */
  spoken_characters: number | null;
  status: SynthesisStatus;
  progress: number;
  credits_charged: number;
  duration_seconds: number | null;
  audio_key: string | null;
  audio_bytes: string | number | null;
  error: { code: string; message: string } | null;
  created_at: Date;
  updated_at: Date;
  /** When its render started on a worker (it became `processing`). */
  started_at: Date | null;
  /** When it took one of its plan's concurrent slots (it may still be `queued`, waiting for a render slot). */
  slot_taken_at: Date | null;
  /** A piece of a stream-input connection: the connection's entry (hidden from history, which shows the entry). */
  part_of: string | null;
  /** Its place among its connection's pieces, from 0. */
  part_index: number | null;
  completed_at: Date | null;
  deleted_at: Date | null;
}

/** How a synthesis's text is read: as plain text, or as an SSML document. */
export type TextType = 'text' | 'ssml';

/** The statuses of a synthesis whose workflow still runs. */
export const RUNNING_STATUSES = ['queued', 'processing'] as const satisfies readonly SynthesisStatus[];

/** The columns a synthesis's status shows (GET .../status/ reads only these, never the text). */
export const STATUS_COLUMNS = [
  'id',
  'status',
  'progress',
  'created_at',
  'started_at',
  'completed_at',
  'characters',
  'credits_charged',
  'output_format',
  'duration_seconds',
  'error',
] as const;

export type SynthesisStatusRow = Pick<SynthesisRow, (typeof STATUS_COLUMNS)[number]>;

/**
 * The syntheses table's rules as named modifiers:
 * `Synthesis.query(db).modify('ownedBy', account).modify('live')`.
 */
export class Synthesis extends TableModel {
  static override tableName = 'syntheses';
  static override jsonAttributes = ['error'];

  static override modifiers = {
    /** Still in the owner's history (a deleted one stays for usage figures and the ledger). */
    live(query: QueryBuilder<Synthesis>) {
      query.whereNull('syntheses.deleted_at');
    },
    ownedBy,
    /**
     * What history lists and usage counts: not a piece of a stream-input connection (its connection's entry
     * holds its text, audio and charge).
     */
    listed(query: QueryBuilder<Synthesis>) {
      query.whereNull('syntheses.part_of');
    },
    /** Queued or processing: its workflow still runs. */
    running(query: QueryBuilder<Synthesis>) {
      query.whereIn('syntheses.status', RUNNING_STATUSES);
    },
    /** Ended (completed, failed or canceled): nothing runs for it any more. */
    ended(query: QueryBuilder<Synthesis>) {
      query.whereNotIn('syntheses.status', RUNNING_STATUSES);
    },
  };

  /** The engine that renders a synthesis: its voice's, or a clone's base voice's; undefined without either. */
  static async engineOf(db: Knex, id: string): Promise<string | undefined> {
    const row = await this.query(db)
      .alias('s')
      .join('voices as v', 'v.id', 's.voice_id')
      .leftJoin('voices as b', 'b.id', raw(`v.profile->>'baseVoiceId'`))
      .findOne('s.id', id)
      .select(raw('coalesce(v.engine, b.engine) as engine'))
      .castTo<{ engine: string | null } | undefined>();
    return row?.engine ?? undefined;
  }

  /**
   * Ended syntheses older than their account's history retention (or
   * `defaultDays` where the account set none; neither: kept), oldest first.
   * Accounts being deleted are left to their deletion.
   */
  static pastRetention(db: Knex, asOf: string, defaultDays: number | null, limit: number) {
    return this.query(db)
      .alias('s')
      .join('accounts as a', 'a.id', 's.account_id')
      .whereNull('a.deleted_at')
      .whereIn('s.status', ['completed', 'failed', 'canceled'] satisfies SynthesisStatus[])
      .whereRaw(`s.created_at < ?::timestamptz - make_interval(days => coalesce(a.history_retention_days, ?::int))`, [
        asOf,
        defaultDays,
      ])
      .orderBy('s.created_at')
      .limit(limit)
      .select('s.id', 's.account_id', 's.output_format')
      .castTo<Pick<Synthesis, 'id' | 'account_id' | 'output_format'>[]>();
  }

  /** The syntheses that ended in [start, end): counts and sums of the completed ones, the count of the failed. */
  static async periodTotals(db: Knex, account: Owner, start: Date, end: Date): Promise<PeriodTotals> {
    const [totals] = await this.query(db)
      .modify('ownedBy', account)
      .modify('listed')
      .andWhere('completed_at', '>=', start)
      .andWhere('completed_at', '<', end)
      .select(
        raw(`count(*) filter (where status = 'completed')::int as syntheses`),
        raw(`count(*) filter (where status = 'failed')::int as syntheses_failed`),
        raw(`coalesce(sum(credits_charged) filter (where status = 'completed'), 0)::int as credits_used`),
        raw(`coalesce(sum(characters) filter (where status = 'completed'), 0)::int as characters_synthesized`),
        raw(`coalesce(sum(duration_seconds) filter (where status = 'completed'), 0)::float as audio_seconds`),
      )
      .castTo<PeriodTotals[]>();
    return totals;
  }

  /** The completed syntheses of [start, end) per UTC day, oldest first (days without any are absent). */
  static dailyTotals(db: Knex, account: Owner, start: Date, end: Date) {
    return this.query(db)
      .modify('ownedBy', account)
      .modify('listed')
      .where({ status: 'completed' })
      .andWhere('completed_at', '>=', start)
      .andWhere('completed_at', '<', end)
      .groupByRaw(`1`)
      .orderByRaw(`1`)
      .select(
        raw(`to_char(completed_at at time zone 'UTC', 'YYYY-MM-DD') as date`),
        raw(`count(*)::int as syntheses`),
        raw(`coalesce(sum(credits_charged), 0)::int as credits_used`),
        raw(`coalesce(sum(duration_seconds), 0)::float as audio_seconds`),
      )
      .castTo<{ date: string; syntheses: number; credits_used: number; audio_seconds: number }[]>();
  }
}

export interface PeriodTotals {
  syntheses: number;
  syntheses_failed: number;
  credits_used: number;
  characters_synthesized: number;
  audio_seconds: number;
}

// The row's columns are the model's properties (declaration merging).
export interface Synthesis extends SynthesisRow {}
