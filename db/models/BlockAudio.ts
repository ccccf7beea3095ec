import type { Knex } from 'knex';
import { TableModel } from './TableModel';

/**
 * A Studio block's rendered audio, kept per account by its content hash
 * (studio/blockHash.ts via studio/blockSpec.ts): a block whose hash has a row
 * is current, and any conversion of the account reuses the audio.
 */
export class BlockAudio extends TableModel {
  static override tableName = 'block_audio';
  static override idColumn = ['account_id', 'content_hash'];

  account_id!: string;
  content_hash!: string;
  audio_key!: string;
  duration_ms!: number;
  characters!: number;
  created_at!: Date;

  /** The stored audio keys of the account's hashes that have audio (hash -> key). */
  static async keysOf(db: Knex, accountId: string, hashes: readonly string[]): Promise<Map<string, string>> {
    const keys = new Map<string, string>();
    const unique = [...new Set(hashes)];
    for (let start = 0; start < unique.length; start += 5000) {
      const rows = await BlockAudio.query(db)
        .where({ account_id: accountId })
        .whereIn('content_hash', unique.slice(start, start + 5000))
        .select('content_hash', 'audio_key');
      for (const row of rows) keys.set(row.content_hash, row.audio_key);
    }
    return keys;
  }

  /** Records a block's audio once (a retry, or another conversion's render of the same hash, keeps the first row). */
  static async record(
    db: Knex,
    row: Pick<BlockAudio, 'account_id' | 'content_hash' | 'audio_key' | 'duration_ms' | 'characters'>,
  ): Promise<void> {
    await BlockAudio.query(db).insert(row).onConflict(['account_id', 'content_hash']).ignore();
  }
}
