import { Account } from '../../db/models/Account';
import { ApiKey } from '../../db/models/ApiKey';
import type { Db } from '../../db/knex';
import { sha256 } from '../../lib/secrets';

/** The Wyoming server's key is unknown, deleted, or its account is gone: nothing can be spoken for it. */
export class KeyRefusedError extends Error {
  override name = 'KeyRefusedError';
  constructor() {
    super('WYOMING_API_KEY is not a valid API key of any account (deleted, or mistyped): ask the operator.');
  }
}

/**
 * The account WYOMING_API_KEY acts for, read for each request (a key deleted
 * in the dashboard stops the next one), its last use noted at most once a
 * minute as the API's own authentication does.
 */
export async function accountOfKey(db: Db, key: string): Promise<Account> {
  const row = await ApiKey.query(db)
    .findOne({ key_hash: sha256(key) })
    .select('id', 'account_id', 'last_used_at');
  if (!row) throw new KeyRefusedError();
  const account = await Account.query(db).findById(row.account_id);
  if (!account || account.deleted_at) throw new KeyRefusedError();
  if (Date.now() - (row.last_used_at?.getTime() ?? 0) > 60_000)
    await ApiKey.query(db).patch({ last_used_at: db.fn.now() }).where({ id: row.id });
  return account;
}
