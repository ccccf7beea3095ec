import type { QueryBuilder } from 'objection';
import type { ClonedVoiceProfile } from '../../audio/cloning';
import type { PremadeVoice } from '../../engines/catalog';
import { type Owner, TableModel } from './TableModel';

/** What a clone keeps of its profile (the `profile` column). */
export type StoredVoiceProfile = Omit<ClonedVoiceProfile, 'tried'> & { f0MedianHz: number | null };

/** A row of the `voices` table: the premade catalog (readable ids) and the accounts' clones (UUIDs). */
export interface VoiceRow {
  id: string;
  /** The owner of a clone; null for a premade voice. */
  account_id: string | null;
  category: 'premade' | 'cloned';
  name: string;
  language: string;
  gender: string;
  description: string;
  /** Set on premade voices; a clone renders through its profile's base voice. */
  engine: string | null;
  engine_voice: string | null;
  license: string;
  /** 'revoked': the owner withdrew the sample's consent (the clone can no longer be used). */
  status: 'processing' | 'ready' | 'failed' | 'revoked';
  error: { code: string; message: string } | null;
  similarity: number | null;
  /** A clone's profile toward its sample (base voice, pitch, EQ, rate). */
  profile: StoredVoiceProfile | null;
  sort_order: number;
  /** Premade voices whose engine is not installed or enabled are kept but hidden. */
  available: boolean;
  /** Copied from the base voice when a clone is ready (migration 008). */
  quality: 'neural' | 'classic' | null;
  licence: string | null;
  /** The stored preview (premade voices, once rendered: activities/previews.ts). */
  preview_key?: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

/**
 * The voices table's rules in one place, as named modifiers:
 * `Voice.query(db).modify('visibleTo', account)` and so on.
 */
export class Voice extends TableModel {
  static override tableName = 'voices';
  static override jsonAttributes = ['error', 'profile'];

  static override modifiers = {
    /** Not deleted (a deleted clone's row stays while its objects are removed). */
    live(query: QueryBuilder<Voice>) {
      query.whereNull('voices.deleted_at');
    },
    /** The premade voices on offer (an engine not installed or enabled hides its voices). */
    catalog(query: QueryBuilder<Voice>) {
      query.where({ 'voices.category': 'premade', 'voices.available': true });
    },
    /** The voices an account may see and use: every available premade voice and its own clones. */
    visibleTo(query: QueryBuilder<Voice>, account: Owner) {
      query
        .modify('live')
        .andWhere((inner) =>
          inner.where({ category: 'premade', available: true }).orWhere({ category: 'cloned', account_id: account.id }),
        );
    },
    /** An account's own clones, deleted or not. */
    ownedBy(query: QueryBuilder<Voice>, account: Owner) {
      query.where({ 'voices.account_id': account.id, 'voices.category': 'cloned' });
    },
    /** The clones that take one of the plan's `max_cloned_voices` slots: live, processing or ready. */
    countingTowardPlan(query: QueryBuilder<Voice>, account: Owner) {
      query.modify('ownedBy', account).modify('live').whereIn('voices.status', ['processing', 'ready']);
    },
    /** `en` matches en, en-US, en-GB...; `en-us` matches en-US; case-insensitive. No language: no filter. */
    language(query: QueryBuilder<Voice>, language: string | undefined) {
      if (!language) return;
      query.where((inner) =>
        inner
          .whereRaw('lower(language) = lower(?)', [language])
          .orWhereRaw("lower(language) like lower(?) || '-%'", [language]),
      );
    },
  };
}

// The row's columns are the model's properties (declaration merging).
export interface Voice extends VoiceRow {}

/** A premade voice's row as the engines take it; its columns hold its catalog entry's values (db/seeds), which the casts name. */
export const asPremadeVoice = (row: VoiceRow): PremadeVoice => ({
  id: row.id,
  name: row.name,
  language: row.language,
  gender: row.gender as PremadeVoice['gender'],
  description: row.description,
  engine: row.engine as PremadeVoice['engine'],
  engineVoice: row.engine_voice as string,
  license: row.license as PremadeVoice['license'],
});
