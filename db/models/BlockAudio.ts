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

  /**
   * Removes the account's block audio rows that nothing holds: older than
   * `graceDays`, in no snapshot's `block_keys`, and not the hash of a block
   * as it is now (`current`, computed by the caller). Nothing is removed
   * while a conversion or an on-demand render of the account runs (either
   * may be about to reuse or record a row). Returns the rows removed, whose
   * objects the caller deletes after this commits.
   */
  static async removeUnheld(
    db: Knex,
    accountId: string,
    graceDays: number,
    current: () => Promise<Set<string>>,
  ): Promise<BlockAudio[]> {
    return db.transaction(async (trx) => {
      // The account row first, as every credit step: a conversion's reservation waits for this to commit.
      await trx('accounts').where({ id: accountId }).forUpdate().first('id');
      const running = await trx('project_snapshots')
        .where({ account_id: accountId })
        .whereIn('status', ['queued', 'converting'])
        .first('id');
      const openRender = await trx('credit_ledger as reserved')
        .where({ 'reserved.account_id': accountId, 'reserved.kind': 'reserve' })
        .where('reserved.reference', 'like', 'block-render:%')
        .whereNotExists((settled) =>
          settled
            .select(1)
            .from('credit_ledger as settled')
            .whereRaw('settled.account_id = reserved.account_id and settled.reference = reserved.reference')
            .whereIn('settled.kind', ['capture', 'release']),
        )
        .first('reserved.id');
      if (running || openRender) return [];
      const candidates = await BlockAudio.query(trx)
        .where({ account_id: accountId })
        .where('created_at', '<', trx.raw(`now() - make_interval(days => ?)`, [graceDays]))
        .whereNotExists((held) =>
          held
            .select(1)
            .from('project_snapshots')
            .whereRaw('project_snapshots.account_id = block_audio.account_id')
            .whereRaw('block_audio.audio_key = any(project_snapshots.block_keys)'),
        );
      if (candidates.length === 0) return [];
      const keep = await current();
      const doomed = candidates.filter((row) => !keep.has(row.content_hash));
      for (let start = 0; start < doomed.length; start += 5000)
        await BlockAudio.query(trx)
          .where({ account_id: accountId })
          .whereIn(
            'content_hash',
            doomed.slice(start, start + 5000).map((row) => row.content_hash),
          )
          .delete();
      return doomed;
    });
  }
}
