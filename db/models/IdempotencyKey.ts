import type { Knex } from 'knex';
import { TableModel } from './TableModel';

/** An Idempotency-Key record, kept 24 h (api/idempotency.ts). */
export class IdempotencyKey extends TableModel {
  static override tableName = 'idempotency_keys';
  static override idColumn = ['account_id', 'key'];

  /**
   * Claims a free key: the new row's synthesis id, or undefined when the key
   * already has a row (read it locked). The insert's own answer tells, so it
   * runs as the plain query (a model insert answers with the model either way).
   */
  static async claimFree(
    trx: Knex.Transaction,
    row: Pick<IdempotencyKey, 'account_id' | 'key' | 'request_hash' | 'synthesis_id' | 'status'> & {
      locked_until: Date | Knex.Raw;
    },
  ): Promise<string | undefined> {
    const inserted: Pick<IdempotencyKey, 'synthesis_id'>[] = await this.query(trx)
      .insert(row)
      .onConflict(['account_id', 'key'])
      .ignore()
      .returning('synthesis_id')
      .toKnexQuery();
    return inserted[0]?.synthesis_id;
  }

  /** One account's key (the primary key's two columns). */
  static of(db: Knex, accountId: string, key: string) {
    return this.query(db).where({ account_id: accountId, key });
  }

  account_id!: string;
  key!: string;
  request_hash!: Buffer;
  /** The synthesis this key stands for, fixed when the key is first claimed. */
  synthesis_id!: string;
  status!: 'in_progress' | 'completed';
  locked_until!: Date;
  response_status!: number | null;
  /** jsonb, written as JSON text by api/idempotency.ts (any JSON value, not only objects), read as pg parses it. */
  response_body!: unknown;
  response_location!: string | null;
  created_at!: Date;
}
