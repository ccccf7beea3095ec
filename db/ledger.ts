import type { Knex } from 'knex';

type LedgerKind = 'grant' | 'reserve' | 'capture' | 'release';

/**
 * Every credit movement, each in the caller's transaction: one ledger row and
 * its balance change together. Ledger amounts are positive; the kind says
 * which way they move. A row per (account, kind, reference) is unique, so a
 * retried step changes nothing. Steps of one account run one at a time (each
 * locks the account row first).
 */

const lockAccount = (trx: Knex.Transaction, accountId: string) =>
  trx('accounts').where({ id: accountId }).forUpdate().first('id');

/** Adds credits (verification's free credits, refills): returns false when the row already existed. */
export async function applyGrant(
  trx: Knex.Transaction,
  accountId: string,
  amount: number,
  reference: string,
): Promise<boolean> {
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

/**
 * Moves `amount` from the available balance to `credits_reserved`, only if the
 * balance covers it (concurrent reservations cannot overdraw). A reference
 * reserved before stays reserved (`true`), whatever the balance is now.
 */
export async function reserve(
  trx: Knex.Transaction,
  accountId: string,
  reference: string,
  amount: number,
): Promise<boolean> {
  await lockAccount(trx, accountId);
  const existing = await trx('credit_ledger').where({ account_id: accountId, kind: 'reserve', reference }).first('id');
  if (existing) return true;
  const updated = await trx('accounts')
    .where({ id: accountId })
    .andWhere('credit_balance', '>=', amount)
    // An account being deleted takes no new reservation: its deletion cancels what runs and must not meet a new job.
    .whereNull('deleted_at')
    .update({
      credit_balance: trx.raw('credit_balance - ?', [amount]),
      credits_reserved: trx.raw('credits_reserved + ?', [amount]),
      updated_at: trx.fn.now(),
    });
  if (updated === 0) return false;
  await trx('credit_ledger').insert({ account_id: accountId, kind: 'reserve', reference, amount });
  return true;
}

/**
 * An erased account's ledger rows keep their amounts (for the books) and lose
 * what names the account: no account id, and the reference becomes
 * `erased:<row id>` (still unique; it no longer names a synthesis or a period).
 * Returns the number of rows.
 */
export async function anonymizeLedger(trx: Knex.Transaction, accountId: string): Promise<number> {
  return trx('credit_ledger')
    .where({ account_id: accountId })
    .update({ account_id: null, reference: trx.raw(`'erased:' || id`) });
}

export type SettleOutcome = 'captured' | 'released' | 'settled' | 'unreserved';

/**
 * Settles a reservation once: capture charges it (it leaves
 * `credits_reserved`), release returns it to the balance. After either, both
 * do nothing (`settled`); with no reservation, nothing happens (`unreserved`).
 * `amount` is the reservation's (0 without one): what a capture charges.
 */
export async function settle(
  trx: Knex.Transaction,
  accountId: string,
  reference: string,
  step: 'capture' | 'release',
): Promise<{ outcome: SettleOutcome; amount: number }> {
  await lockAccount(trx, accountId);
  const rows: { kind: LedgerKind; amount: string }[] = await trx('credit_ledger')
    .where({ account_id: accountId, reference })
    .whereIn('kind', ['reserve', 'capture', 'release'])
    .select('kind', 'amount');
  const reservation = rows.find((row) => row.kind === 'reserve');
  if (!reservation) return { outcome: 'unreserved', amount: 0 };
  const amount = Number(reservation.amount);
  if (rows.some((row) => row.kind !== 'reserve')) return { outcome: 'settled', amount };
  await trx('credit_ledger').insert({ account_id: accountId, kind: step, reference, amount });
  await trx('accounts')
    .where({ id: accountId })
    .update({
      credits_reserved: trx.raw('credits_reserved - ?', [amount]),
      ...(step === 'release' && { credit_balance: trx.raw('credit_balance + ?', [amount]) }),
      updated_at: trx.fn.now(),
    });
  return { outcome: step === 'capture' ? 'captured' : 'released', amount };
}
