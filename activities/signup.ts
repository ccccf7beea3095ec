import { ApplicationFailure, log } from '@temporalio/activity';
import { randomUUID } from 'node:crypto';
import type { ActivityDeps } from '.';
import { applyGrant } from '../db/ledger';
import { SIGNUP_GRANT_REFERENCE, signupGrantTakenBefore } from '../db/erasedSignups';
import { Account } from '../db/models/Account';
import { EmailVerificationToken } from '../db/models/EmailVerificationToken';
import { SubscriptionPlan } from '../db/models/SubscriptionPlan';
import { randomSecret, sha256 } from '../lib/secrets';
import { INVALID_TOKEN } from '../synthesis/contracts';

export function createSignupActivities({ db, mailer, config }: ActivityDeps) {
  return {
    /**
     * Makes a token, stores only its hash (older tokens die), and mails the
     * link. The token exists only here and in the mail: never in workflow history.
     */
    async sendVerificationEmail({ accountId }: { accountId: string }): Promise<{ tokenId: string; delivery: string }> {
      const account = await Account.query(db).findById(accountId).select('email', 'email_verified_at');
      if (!account) throw ApplicationFailure.nonRetryable(`account ${accountId} does not exist`, 'AccountMissing');
      if (account.email_verified_at) return { tokenId: '', delivery: 'already verified' };

      const token = randomSecret(32);
      const tokenId = randomUUID();
      await db.transaction(async (trx) => {
        await EmailVerificationToken.query(trx)
          .where({ account_id: accountId })
          .modify('pending')
          .patch({ superseded_at: trx.fn.now() });
        await EmailVerificationToken.query(trx).insert({
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
        const token = await EmailVerificationToken.query(trx)
          .findOne({ id: tokenId, account_id: accountId })
          .forUpdate();
        if (!token) throw ApplicationFailure.nonRetryable('unknown token', INVALID_TOKEN);
        if (token.used_at) {
          const account = await Account.query(trx).findById(accountId).select('email_verified_at');
          if (account?.email_verified_at) return { granted: 0 };
        }
        if (token.used_at || token.superseded_at || token.expires_at <= new Date()) {
          throw ApplicationFailure.nonRetryable('used, replaced or expired token', INVALID_TOKEN);
        }
        await EmailVerificationToken.query(trx).patch({ used_at: trx.fn.now() }).where({ id: tokenId });
        await Account.query(trx)
          .patch({ email_verified_at: trx.fn.now(), updated_at: trx.fn.now() })
          .where({ id: accountId });
        // An address whose erased account already took the free credits is verified without them.
        const { email } = await Account.query(trx).findById(accountId).select('email').throwIfNotFound();
        if (await signupGrantTakenBefore(trx, email, config.ERASED_SIGNUP_RETENTION_DAYS)) return { granted: 0 };
        const plan = await SubscriptionPlan.query(trx).findById('free').select('monthly_credits').throwIfNotFound();
        const granted = (await applyGrant(trx, accountId, plan.monthly_credits, SIGNUP_GRANT_REFERENCE))
          ? plan.monthly_credits
          : 0;
        return { granted };
      });
    },
  };
}
