import { TableModel, ownedBy } from './TableModel';

/** An account's API key: only its SHA-256 is kept (the key is shown once). */
export class ApiKey extends TableModel {
  static override tableName = 'api_keys';

  static override modifiers = {
    ownedBy,
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
