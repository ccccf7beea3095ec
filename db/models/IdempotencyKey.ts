import { TableModel } from './TableModel';

/** An Idempotency-Key record, kept 24 h (api/idempotency.ts). */
export class IdempotencyKey extends TableModel {
  static override tableName = 'idempotency_keys';
  static override idColumn = ['account_id', 'key'];
  static override jsonAttributes = ['response_body'];

  account_id!: string;
  key!: string;
  request_hash!: Buffer;
  /** The synthesis this key stands for, fixed when the key is first claimed. */
  synthesis_id!: string;
  status!: 'in_progress' | 'completed';
  locked_until!: Date;
  response_status!: number | null;
  response_body!: unknown;
  response_location!: string | null;
  created_at!: Date;
}
