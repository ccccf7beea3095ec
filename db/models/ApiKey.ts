import type { QueryBuilder } from 'objection';
import { type Owner, TableModel } from './TableModel';

/** An account's API key: only its SHA-256 is kept (the key is shown once). */
export class ApiKey extends TableModel {
  static override tableName = 'api_keys';

  static override modifiers = {
    ownedBy(query: QueryBuilder<ApiKey>, account: Owner) {
      query.where({ 'api_keys.account_id': account.id });
    },
  };

  id!: string;
  account_id!: string;
  name!: string;
  /** The key's first 12 characters, shown in lists. */
  prefix!: string;
  key_hash!: Buffer;
  last_used_at!: Date | null;
  created_at!: Date;
}
