import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * The free credits go once per address, not once per account: erasing an
 * account and registering its address again must not grant them again. What
 * is kept is an HMAC of the address (lower-cased) with a key of the
 * database's own (migration 015), for ERASED_SIGNUP_RETENTION_DAYS.
 */

/** The ledger reference of the signup grant: one per account, ever. */
export const SIGNUP_GRANT_REFERENCE = 'signup:free-plan';

async function emailHmac(trx: Knex, email: string): Promise<Buffer> {
  const { key } = await trx('service_keys').where({ name: 'erased-signup' }).first('key');
  return createHmac('sha256', key).update(email.trim().toLowerCase()).digest();
}

/** At erasure (before the ledger is anonymized): remembers the address when its account took the grant, and forgets entries past their time. */
export async function rememberErasedSignup(
  trx: Knex.Transaction,
  accountId: string,
  email: string,
  retentionDays: number,
): Promise<void> {
  const granted = await trx('credit_ledger')
    .where({ account_id: accountId, kind: 'grant', reference: SIGNUP_GRANT_REFERENCE })
    .first('id');
  if (granted) {
    await trx('erased_signup_grants')
      .insert({ email_hmac: await emailHmac(trx, email) })
      .onConflict('email_hmac')
      .merge({ erased_at: trx.fn.now() });
  }
  await trx('erased_signup_grants')
    .where('erased_at', '<', trx.raw(`now() - make_interval(days => ?)`, [retentionDays]))
    .delete();
}

/** Whether an account of this address took the signup grant and was erased within the retention. */
export async function signupGrantTakenBefore(
  trx: Knex.Transaction,
  email: string,
  retentionDays: number,
): Promise<boolean> {
  const row = await trx('erased_signup_grants')
    .where({ email_hmac: await emailHmac(trx, email) })
    .andWhere('erased_at', '>=', trx.raw(`now() - make_interval(days => ?)`, [retentionDays]))
    .first('erased_at');
  return Boolean(row);
}
