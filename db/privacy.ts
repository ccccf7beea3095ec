import type { Knex } from 'knex';
import { rememberErasedSignup } from './erasedSignups';

/** The address a deleted account keeps until its row goes: unique, undeliverable (RFC 2606 `.invalid`), and free for the owner to register again. */
const erasedEmail = (accountId: string) => `deleted-${accountId}@deleted.invalid`;

/**
 * The first step of an account deletion, in one transaction: the account is
 * marked deleted (nothing authenticates as it from this commit on), its
 * email, name and password hash are replaced, its API keys deleted, its
 * sessions revoked, its pending verification tokens and the rate-limit
 * counters keyed by its email dropped. Idempotent: the API runs it before
 * answering, the deletion workflow again as its first step. Returns false
 * when the account no longer exists (already erased).
 */
export async function markAccountDeleted(
  db: Knex,
  accountId: string,
  { erasedSignupRetentionDays }: { erasedSignupRetentionDays: number },
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const account = await trx('accounts').where({ id: accountId }).forUpdate().first('email', 'deleted_at');
    if (!account) return false;
    if (!account.deleted_at) {
      // Before the address is replaced: registering it again must not take the free credits again.
      await rememberErasedSignup(trx, accountId, account.email, erasedSignupRetentionDays);
      await trx('accounts')
        .where({ id: accountId })
        // An empty hash never verifies: logins fail like a wrong password.
        .update({
          deleted_at: trx.fn.now(),
          email: erasedEmail(accountId),
          name: '',
          password_hash: '',
          updated_at: trx.fn.now(),
        });
      await trx('rate_limit_counters')
        .whereIn('key', [`login:email:${account.email}`, `resend:email:${account.email}`])
        .delete();
    }
    await trx('api_keys').where({ account_id: accountId }).delete();
    await trx('refresh_token_families')
      .where({ account_id: accountId })
      .whereNull('revoked_at')
      .update({ revoked_at: trx.fn.now() });
    await trx('email_verification_tokens').where({ account_id: accountId }).delete();
    return true;
  });
}
