import type { Knex } from 'knex';

export type LedgerKind = 'grant' | 'reserve' | 'capture' | 'release';

/**
 * Writes one ledger row and applies it to the account's balance, in the
 * caller's transaction. A row per (account, kind, reference) is unique, so a
 * retried step changes nothing: returns false when the row already existed.
 */
export async function applyGrant(trx: Knex.Transaction, accountId: string, amount: number, reference: string): Promise<boolean> {
  const inserted = await trx('credit_ledger')
    .insert({ account_id: accountId, kind: 'grant', reference, amount })
    .onConflict(['account_id', 'kind', 'reference'])
    .ignore()
    .returning('id');
  if (inserted.length === 0) return false;
  await trx('accounts')
    .where({ id: accountId })
    .update({ credit_balance: trx.raw('credit_balance + ?', [amount]), updated_at: trx.fn.now() });
  return true;
}
