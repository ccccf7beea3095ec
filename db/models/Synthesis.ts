import type { QueryBuilder } from 'objection';
import { type Owner, TableModel } from './TableModel';

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
  status: string;
  progress: number;
  credits_charged: number;
  duration_seconds: number | null;
  audio_key: string | null;
  audio_bytes: string | number | null;
  error: { code: string; message: string } | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  deleted_at: Date | null;
}

/** The columns a synthesis's status shows (GET .../status/ reads only these, never the text). */
export const STATUS_COLUMNS = ['id', 'status', 'progress', 'created_at', 'started_at', 'completed_at', 'characters', 'credits_charged', 'output_format', 'duration_seconds', 'error'] as const;

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
    ownedBy(query: QueryBuilder<Synthesis>, account: Owner) {
      query.where({ 'syntheses.account_id': account.id });
    },
  };
}

// The row's columns are the model's properties (declaration merging).
export interface Synthesis extends SynthesisRow {}
