import { WorkflowNotFoundError } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import { Account } from '../../../db/models/Account';
import { EmailVerificationToken } from '../../../db/models/EmailVerificationToken';
import { RefreshToken } from '../../../db/models/RefreshToken';
import { RefreshTokenFamily } from '../../../db/models/RefreshTokenFamily';
import { sha256 } from '../../../lib/secrets';
import { INVALID_TOKEN, resendSignal, signupWorkflowId, verifyUpdate } from '../../../synthesis/contracts';
import { signupVerification } from '../../../workflows/signupVerification';
import { hasFailureType, violatedUniqueConstraint } from '../../failures';
import { hashPassword, verifyPassword } from '../../auth/passwords';
import { enforceRateLimit } from '../../auth/rateLimit';
import type { ApiDeps } from '../../deps';
import { authenticationFailed, emailNotVerified, emailTaken, tokenInvalid, validationError } from '../../errors';

/** The commands behind the auth endpoints: one verb-noun function each. */

/** accounts (email), named by knex in db/migrations/002_accounts.ts. */
const UNIQUE_EMAIL = 'accounts_email_unique';
const invalidVerificationToken = () => validationError({ token: ['Invalid or expired token.'] });
// The update waits for a worker; without one the client gets a 503, not a hung request.
const VERIFY_DEADLINE_MS = 15_000;

export interface RegisterProps {
  email: string;
  password: string;
  name: string;
}

/** Creates the account, then starts its signup-verification workflow, which mails the link. */
export async function registerAccount({ db, temporal, config }: ApiDeps, props: RegisterProps): Promise<Account> {
  const passwordHash = await hashPassword(props.password);
  let account: Account;
  try {
    account = await Account.query(db).insertAndFetch({
      id: randomUUID(),
      email: props.email,
      name: props.name,
      password_hash: passwordHash,
    });
  } catch (error) {
    if (violatedUniqueConstraint(error) === UNIQUE_EMAIL) throw emailTaken();
    throw error;
  }
  // Started after the commit (its first activity reads the account); if Temporal refuses, the account goes again.
  try {
    await temporal.workflow.start(signupVerification, {
      workflowId: signupWorkflowId(account.id),
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      args: [{ accountId: account.id, ttlSeconds: config.VERIFICATION_TTL }],
    });
  } catch (error) {
    await Account.query(db).deleteById(account.id);
    throw error;
  }
  return account;
}

/** Resolves only once the workflow has verified the account and granted its credits. */
export async function verifyEmail({ db, temporal }: ApiDeps, token: string): Promise<void> {
  const row = await EmailVerificationToken.query(db).findOne({ token_hash: sha256(token) });
  if (!row || row.used_at || row.superseded_at || row.expires_at <= new Date()) throw invalidVerificationToken();
  try {
    await temporal.connection.withDeadline(Date.now() + VERIFY_DEADLINE_MS, () =>
      temporal.workflow
        .getHandle(signupWorkflowId(row.account_id))
        .executeUpdate(verifyUpdate, { args: [{ tokenId: row.id }] }),
    );
  } catch (error) {
    if (error instanceof WorkflowNotFoundError || hasFailureType(error, INVALID_TOKEN))
      throw invalidVerificationToken();
    throw error;
  }
}

/** Mails a new link to an unverified account; says nothing about whether the account exists. */
export async function resendVerification({ db, temporal, config }: ApiDeps, email: string): Promise<void> {
  const account = await Account.query(db).findOne({ email });
  if (!account || account.email_verified_at) return;
  // Signals the running workflow, or starts a new one if the last one expired.
  await temporal.workflow.signalWithStart(signupVerification, {
    workflowId: signupWorkflowId(account.id),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    args: [{ accountId: account.id, ttlSeconds: config.VERIFICATION_TTL }],
    signal: resendSignal,
    signalArgs: [],
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
  });
}

export interface TokenPairOut {
  access: string;
  refresh: string;
  token_type: 'Bearer';
  expires_in: number;
}

async function issueTokenPair({ db, tokens }: ApiDeps, accountId: string, familyId: string): Promise<TokenPairOut> {
  const refresh = await tokens.issueRefresh(accountId, familyId);
  await RefreshToken.query(db).insert({
    jti_hash: sha256(refresh.jti),
    family_id: familyId,
    expires_at: refresh.expiresAt,
  });
  return {
    access: await tokens.issueAccess(accountId),
    refresh: refresh.token,
    token_type: 'Bearer',
    expires_in: tokens.accessTtl,
  };
}

export interface LogInProps {
  email: string;
  password: string;
  /** The caller's address: its attempts are limited as well as the email's. */
  ip: string;
}

const MINUTE = 60;

/**
 * Within the login limits (per address and per email, under the same keys for /auth/login/ and the dashboard's
 * session, so neither is a way around the other), checks the password (unknown emails cost the same), then opens
 * a new refresh-token family.
 */
export async function logIn(deps: ApiDeps, { email, password, ip }: LogInProps): Promise<TokenPairOut> {
  const { config, db } = deps;
  await enforceRateLimit(db, {
    key: `login:ip:${ip}`,
    limit: config.RATE_LIMIT_LOGIN_PER_MINUTE,
    windowSeconds: MINUTE,
  });
  await enforceRateLimit(db, {
    key: `login:email:${email}`,
    limit: config.RATE_LIMIT_LOGIN_PER_EMAIL_PER_MINUTE,
    windowSeconds: MINUTE,
  });
  const account = await Account.query(deps.db).findOne({ email });
  const valid = await verifyPassword(account?.password_hash ?? null, password);
  if (!account || !valid) throw authenticationFailed('Invalid email or password.');
  if (!account.email_verified_at) throw emailNotVerified();
  const familyId = randomUUID();
  await RefreshTokenFamily.query(deps.db).insert({ id: familyId, account_id: account.id });
  return issueTokenPair(deps, account.id, familyId);
}

/**
 * Rotates a refresh token: the presented one stops working and a new pair is
 * issued. Presenting an already-rotated token is reuse: its family is revoked.
 */
export async function refreshTokens(deps: ApiDeps, refreshToken: string): Promise<TokenPairOut> {
  const { accountId, jti, familyId } = await deps.tokens.verifyRefresh(refreshToken);
  const outcome = await deps.db.transaction(async (trx) => {
    const family = await RefreshTokenFamily.query(trx)
      .modify('ownedBy', { id: accountId })
      .findOne({ id: familyId })
      .forUpdate();
    if (!family || family.revoked_at) return 'invalid';
    const token = await RefreshToken.query(trx).findOne({ jti_hash: sha256(jti), family_id: familyId });
    if (!token) return 'invalid';
    if (token.rotated_at) {
      await RefreshTokenFamily.query(trx).patch({ revoked_at: trx.fn.now() }).where({ id: familyId });
      return 'reused';
    }
    await RefreshToken.query(trx).patch({ rotated_at: trx.fn.now() }).where({ jti_hash: token.jti_hash });
    return 'rotated';
  });
  if (outcome === 'reused') {
    deps.logger.warn({ accountId, familyId }, 'refresh token reused: family revoked');
    throw tokenInvalid('This refresh token was already used; its session has been revoked.');
  }
  if (outcome === 'invalid') throw tokenInvalid('The refresh token is invalid or revoked.');
  return issueTokenPair(deps, accountId, familyId);
}

/** Revokes the refresh-token family of the caller's presented refresh token. */
export async function logOut({ db, tokens }: ApiDeps, account: Account, refreshToken: string): Promise<void> {
  const { accountId, familyId } = await tokens.verifyRefresh(refreshToken);
  if (accountId !== account.id) throw tokenInvalid('The refresh token belongs to another session.');
  await RefreshTokenFamily.revoke(db, accountId, familyId);
}
