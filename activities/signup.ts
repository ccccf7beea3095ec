import { ApplicationFailure, log } from '@temporalio/activity';
import { randomUUID } from 'node:crypto';
import type { ActivityDeps } from '.';
import { applyGrant } from '../db/ledger';
import { randomSecret, sha256 } from '../lib/secrets';
import { INVALID_TOKEN } from '../workflows/contracts';

/** The ledger reference of the signup grant: one per account, ever. */
export const SIGNUP_GRANT_REFERENCE = 'signup:free-plan';

export function createSignupActivities({ db, mailer, config }: ActivityDeps) {
  return {
    /**
     * Makes a token, stores only its hash (older tokens die), and mails the
     * link. The token exists only here and in the mail: never in workflow history.
     */
    async sendVerificationEmail({ accountId }: { accountId: string }): Promise<{ tokenId: string; delivery: string }> {
      const account = await db('accounts').where({ id: accountId }).first('email', 'email_verified_at');
      if (!account) throw ApplicationFailure.nonRetryable(`account ${accountId} does not exist`, 'AccountMissing');
      if (account.email_verified_at) return { tokenId: '', delivery: 'already verified' };

      const token = randomSecret(32);
      const tokenId = randomUUID();
      await db.transaction(async (trx) => {
        await trx('email_verification_tokens').where({ account_id: accountId }).whereNull('used_at').whereNull('superseded_at').update({ superseded_at: trx.fn.now() });
        await trx('email_verification_tokens').insert({
          id: tokenId,
          account_id: accountId,
          token_hash: sha256(token),
          expires_at: new Date(Date.now() + config.VERIFICATION_TTL * 1000),
        });
      });
      const link = `${config.PUBLIC_URL}/api/v1/auth/verify-email/?token=${token}`;
      const delivery = await mailer.send({
        to: account.email,
        subject: 'Verify your email address',
        text: [
          'Welcome to OpenVox.',
          '',
          'Open this link to verify your email address and receive your free credits:',
          '',
          link,
          '',
          `The link works once and expires in ${Math.round(config.VERIFICATION_TTL / 3600) || 1} hour(s).`,
          'If you did not sign up, ignore this message.',
        ].join('\n'),
      });
      // Development only: the first session should not need a mail client. Never in production logs.
      if (config.NODE_ENV === 'development') log.info('verification link', { email: account.email, link });
      return { tokenId, delivery: delivery.startsWith('/') ? 'file' : 'smtp' };
    },

    /**
     * In one transaction: uses the token, marks the account verified and
     * grants the free plan's credits through the ledger. A retry after a lost
     * completion finds the token used by this same verification and succeeds
     * without granting twice.
     */
    async verifyAccount({ accountId, tokenId }: { accountId: string; tokenId: string }): Promise<{ granted: number }> {
      return db.transaction(async (trx) => {
        const token = await trx('email_verification_tokens').where({ id: tokenId, account_id: accountId }).forUpdate().first();
        if (!token) throw ApplicationFailure.nonRetryable('unknown token', INVALID_TOKEN);
        if (token.used_at) {
          const account = await trx('accounts').where({ id: accountId }).first('email_verified_at');
          if (account?.email_verified_at) return { granted: 0 };
        }
        if (token.used_at || token.superseded_at || token.expires_at <= new Date()) {
          throw ApplicationFailure.nonRetryable('used, replaced or expired token', INVALID_TOKEN);
        }
        await trx('email_verification_tokens').where({ id: tokenId }).update({ used_at: trx.fn.now() });
        await trx('accounts').where({ id: accountId }).update({ email_verified_at: trx.fn.now(), updated_at: trx.fn.now() });
        const plan = await trx('subscription_plans').where({ id: 'free' }).first('monthly_credits');
        const granted = (await applyGrant(trx, accountId, plan.monthly_credits, SIGNUP_GRANT_REFERENCE)) ? plan.monthly_credits : 0;
        return { granted };
      });
    },
  };
}
