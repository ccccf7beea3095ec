import type { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { hashPassword } from '../api/auth/passwords';
import { currentPeriod } from '../api/routes/auth/usage';
import { SIGNUP_GRANT_REFERENCE } from '../db/erasedSignups';
import type { Knex } from 'knex';
import { accountsWithUsage } from '../db/accountUsage';
import type { Db } from '../db/knex';
import { applyGrant } from '../db/ledger';
import { type AdminActionRow, recordAdminAction } from '../db/adminActions';
import { Account } from '../db/models/Account';
import { EmailVerificationToken } from '../db/models/EmailVerificationToken';
import { SubscriptionPlan } from '../db/models/SubscriptionPlan';
import type { Config } from '../lib/config';
import { randomSecret } from '../lib/secrets';
import { signupWorkflowId } from '../synthesis/contracts';
import { printable } from './output';

/**
 * The operator's commands: they talk to PostgreSQL (and Temporal, to start a
 * signup) directly, with the service's own rules (the ledger, the signup grant).
 * Each change is recorded with who made it in admin_actions, in the same
 * transaction (docs/operations.md, "Admin CLI").
 */

export class AdminError extends Error {}

export interface AdminDeps {
  db: Db;
  config: Config;
  /** Who acts, for the audit trail (db/adminActions.ts): OPENVOX_OPERATOR, else `<OS user>@<host>`. */
  operator: string;
  /** Only `createUser` without `verified` needs Temporal; connected on first use. */
  temporal: () => Promise<Client>;
}

export interface AccountSummary {
  id: string;
  email: string;
  name: string;
  plan: string;
  email_verified: boolean;
  credit_balance: number;
  credits_reserved: number;
  created_at: string;
  /** When the account's owner deleted it (its personal data is erased, its row kept for the ledger); null while it lives. */
  deleted_at: string | null;
}

const normalizeEmail = (email: string) => email.trim().toLowerCase();

async function accountByEmail(db: Db, email: string) {
  const account = await Account.query(db).findOne({ email: normalizeEmail(email) });
  if (!account) throw new AdminError(`no account with email ${normalizeEmail(email)}`);
  return account;
}

function summarize(row: Account): AccountSummary {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    plan: row.subscription_tier,
    email_verified: row.email_verified_at !== null,
    credit_balance: Number(row.credit_balance),
    credits_reserved: Number(row.credits_reserved),
    created_at: new Date(row.created_at).toISOString(),
    deleted_at: row.deleted_at ? new Date(row.deleted_at).toISOString() : null,
  };
}

/** Marks verified, ends outstanding tokens and grants the free credits, exactly as a verification link does (the grant's reference is the same). */
async function markVerified(trx: Knex.Transaction, accountId: string): Promise<number> {
  await EmailVerificationToken.query(trx)
    .where({ account_id: accountId })
    .modify('pending')
    .patch({ superseded_at: trx.fn.now() });
  await Account.query(trx)
    .patch({ email_verified_at: trx.fn.now(), updated_at: trx.fn.now() })
    .where({ id: accountId });
  const plan = await SubscriptionPlan.query(trx).findById('free').select('monthly_credits').throwIfNotFound();
  return (await applyGrant(trx, accountId, Number(plan.monthly_credits), SIGNUP_GRANT_REFERENCE))
    ? Number(plan.monthly_credits)
    : 0;
}

export interface CreateUserProps {
  email: string;
  password?: string;
  name?: string;
  verified?: boolean;
  plan?: string;
}

/** A new account. Verified: credited at once. Otherwise the signup workflow mails the link, as registration does. */
export async function createUser(
  deps: AdminDeps,
  props: CreateUserProps,
): Promise<AccountSummary & { password?: string; credits_granted: number }> {
  const email = normalizeEmail(props.email);
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new AdminError(`not an email address: ${props.email}`);
  const generated = props.password === undefined ? randomSecret(15) : undefined;
  const password = props.password ?? generated!;
  if (password.length < 8 || password.length > 128) throw new AdminError('the password must have 8-128 characters');
  if (props.plan) await planExists(deps.db, props.plan);
  const id = randomUUID();
  const passwordHash = await hashPassword(password);
  let granted = 0;
  await deps.db.transaction(async (trx) => {
    if (await Account.query(trx).findOne({ email }).select('id'))
      throw new AdminError(`an account with email ${email} exists`);
    await Account.query(trx).insert({
      id,
      email,
      name: props.name ?? '',
      password_hash: passwordHash,
      subscription_tier: props.plan ?? 'free',
    });
    if (props.verified) granted = await markVerified(trx, id);
    await recordAdminAction(trx, {
      operator: deps.operator,
      command: 'user create',
      accountId: id,
      details: { plan: props.plan ?? 'free', verified: Boolean(props.verified), credits_granted: granted },
    });
  });
  if (!props.verified) {
    const temporal = await deps.temporal();
    await temporal.workflow.start('signupVerification', {
      workflowId: signupWorkflowId(id),
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [{ accountId: id, ttlSeconds: deps.config.VERIFICATION_TTL }],
    });
  }
  const row = await Account.query(deps.db).findById(id).throwIfNotFound();
  return { ...summarize(row), ...(generated ? { password: generated } : {}), credits_granted: granted };
}

export async function verifyUser(
  deps: AdminDeps,
  email: string,
): Promise<AccountSummary & { credits_granted: number }> {
  const account = await accountByEmail(deps.db, email);
  const granted = account.email_verified_at
    ? 0
    : await deps.db.transaction(async (trx) => {
        const credits = await markVerified(trx, account.id);
        await recordAdminAction(trx, {
          operator: deps.operator,
          command: 'user verify',
          accountId: account.id,
          details: { credits_granted: credits },
        });
        return credits;
      });
  return {
    ...summarize(await Account.query(deps.db).findById(account.id).throwIfNotFound()),
    credits_granted: granted,
  };
}

export interface GrantProps {
  email: string;
  amount: number;
  reason: string;
  /** Makes the grant idempotent: the same reference applies once per account. Defaults to the reason. */
  reference?: string;
}

/** One `grant` row in the ledger and the balance, in one transaction (db/ledger.ts); a repeated reference changes nothing. */
export async function grantCredits(
  deps: AdminDeps,
  props: GrantProps,
): Promise<AccountSummary & { applied: boolean; reference: string; amount: number }> {
  if (!Number.isSafeInteger(props.amount) || props.amount <= 0)
    throw new AdminError(`the amount must be a positive whole number of credits, not ${props.amount}`);
  if (!props.reason.trim()) throw new AdminError('--reason must say why');
  const account = await accountByEmail(deps.db, props.email);
  const reference = `admin:${(props.reference ?? props.reason).trim()}`;
  const applied = await deps.db.transaction(async (trx) => {
    const done = await applyGrant(trx, account.id, props.amount, reference);
    if (done)
      await recordAdminAction(trx, {
        operator: deps.operator,
        command: 'credits grant',
        accountId: account.id,
        details: { amount: props.amount, reference },
      });
    return done;
  });
  return {
    ...summarize(await Account.query(deps.db).findById(account.id).throwIfNotFound()),
    applied,
    reference,
    amount: props.amount,
  };
}

async function planExists(db: Db, plan: string): Promise<void> {
  const found = await SubscriptionPlan.query(db).findById(plan).select('id');
  if (!found) {
    const plans = await SubscriptionPlan.query(db).orderBy('price_cents').select('id');
    throw new AdminError(`no plan ${plan}; plans: ${plans.map((row) => row.id).join(', ')}`);
  }
}

/** Changes the plan; the balance stays (credits come with grants). */
export async function setPlan(deps: AdminDeps, email: string, plan: string): Promise<AccountSummary> {
  await planExists(deps.db, plan);
  const account = await accountByEmail(deps.db, email);
  await deps.db.transaction(async (trx) => {
    await Account.query(trx).patch({ subscription_tier: plan, updated_at: trx.fn.now() }).where({ id: account.id });
    await recordAdminAction(trx, {
      operator: deps.operator,
      command: 'plan set',
      accountId: account.id,
      details: { from: account.subscription_tier, to: plan },
    });
  });
  return summarize(await Account.query(deps.db).findById(account.id).throwIfNotFound());
}

export type UserWithUsage = AccountSummary & {
  usage: {
    period_start: string;
    syntheses: number;
    syntheses_failed: number;
    credits_used: number;
    audio_seconds: number;
    cloned_voices: number;
  };
};

/** Every account, newest first, with this month's usage (the profile's calendar-month period). */
export async function listUsers(
  deps: AdminDeps,
  { limit = 100, email }: { limit?: number; email?: string } = {},
): Promise<UserWithUsage[]> {
  const { db } = deps;
  const { start, end } = currentPeriod();
  const rows = await accountsWithUsage(db, { start, end, limit, ...(email && { email: normalizeEmail(email) }) });
  return rows.map((row) => ({
    ...summarize(row),
    usage: {
      period_start: start.toISOString(),
      syntheses: row.syntheses ?? 0,
      syntheses_failed: row.syntheses_failed ?? 0,
      credits_used: Number(row.credits_used ?? 0),
      audio_seconds: Math.round((row.audio_seconds ?? 0) * 100) / 100,
      cloned_voices: row.cloned_voices ?? 0,
    },
  }));
}

/**
 * `openvox audit` as text, a line per action, newest first. The operator's
 * name is whatever OPENVOX_OPERATOR said when the action was recorded:
 * escaped (`printable`), so no name can forge a line or a field.
 */
export function auditText(actions: AdminActionRow[]): string {
  return actions
    .map((action) =>
      [
        new Date(action.at).toISOString(),
        printable(action.operator),
        printable(action.command),
        action.account_id ?? '(erased)',
        printable(JSON.stringify(action.details)),
      ].join('\t'),
    )
    .join('\n');
}
