import type { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { hashPassword } from '../api/auth/passwords';
import { currentPeriod } from '../api/routes/auth/usage';
import { SIGNUP_GRANT_REFERENCE } from '../activities/signup';
import type { Db } from '../db/knex';
import { applyGrant } from '../db/ledger';
import type { Config } from '../lib/config';
import { randomSecret } from '../lib/secrets';
import { signupWorkflowId } from '../workflows/contracts';

/**
 * The operator's commands: they talk to PostgreSQL (and Temporal, to start a
 * signup) directly, with the service's own rules (the ledger, the signup grant).
 */

export class AdminError extends Error {}

export interface AdminDeps {
  db: Db;
  config: Config;
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
}

const normalizeEmail = (email: string) => email.trim().toLowerCase();

async function accountByEmail(db: Db, email: string) {
  const account = await db('accounts')
    .where({ email: normalizeEmail(email) })
    .first();
  if (!account) throw new AdminError(`no account with email ${normalizeEmail(email)}`);
  return account;
}

function summarize(row: Record<string, any>): AccountSummary {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    plan: row.subscription_tier,
    email_verified: row.email_verified_at !== null,
    credit_balance: Number(row.credit_balance),
    credits_reserved: Number(row.credits_reserved),
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** Marks verified, ends outstanding tokens and grants the free credits, exactly as a verification link does (the grant's reference is the same). */
async function markVerified(trx: Db, accountId: string): Promise<number> {
  await trx('email_verification_tokens').where({ account_id: accountId }).whereNull('used_at').whereNull('superseded_at').update({ superseded_at: trx.fn.now() });
  await trx('accounts').where({ id: accountId }).update({ email_verified_at: trx.fn.now(), updated_at: trx.fn.now() });
  const plan = await trx('subscription_plans').where({ id: 'free' }).first('monthly_credits');
  return (await applyGrant(trx as never, accountId, Number(plan.monthly_credits), SIGNUP_GRANT_REFERENCE)) ? Number(plan.monthly_credits) : 0;
}

export interface CreateUserProps {
  email: string;
  password?: string;
  name?: string;
  verified?: boolean;
  plan?: string;
}

/** A new account. Verified: credited at once. Otherwise the signup workflow mails the link, as registration does. */
export async function createUser(deps: AdminDeps, props: CreateUserProps): Promise<AccountSummary & { password?: string; credits_granted: number }> {
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
    if (await trx('accounts').where({ email }).first('id')) throw new AdminError(`an account with email ${email} exists`);
    await trx('accounts').insert({ id, email, name: props.name ?? '', password_hash: passwordHash, subscription_tier: props.plan ?? 'free' });
    if (props.verified) granted = await markVerified(trx, id);
  });
  if (!props.verified) {
    const temporal = await deps.temporal();
    await temporal.workflow.start('signupVerification', {
      workflowId: signupWorkflowId(id),
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [{ accountId: id, ttlSeconds: deps.config.VERIFICATION_TTL }],
    });
  }
  const row = await deps.db('accounts').where({ id }).first();
  return { ...summarize(row), ...(generated ? { password: generated } : {}), credits_granted: granted };
}

export async function verifyUser(deps: AdminDeps, email: string): Promise<AccountSummary & { credits_granted: number }> {
  const account = await accountByEmail(deps.db, email);
  const granted = account.email_verified_at ? 0 : await deps.db.transaction((trx) => markVerified(trx, account.id));
  return { ...summarize(await deps.db('accounts').where({ id: account.id }).first()), credits_granted: granted };
}

export interface GrantProps {
  email: string;
  amount: number;
  reason: string;
  /** Makes the grant idempotent: the same reference applies once per account. Defaults to the reason. */
  reference?: string;
}

/** One `grant` row in the ledger and the balance, in one transaction (db/ledger.ts); a repeated reference changes nothing. */
export async function grantCredits(deps: AdminDeps, props: GrantProps): Promise<AccountSummary & { applied: boolean; reference: string; amount: number }> {
  if (!Number.isSafeInteger(props.amount) || props.amount <= 0) throw new AdminError(`the amount must be a positive whole number of credits, not ${props.amount}`);
  if (!props.reason.trim()) throw new AdminError('--reason must say why');
  const account = await accountByEmail(deps.db, props.email);
  const reference = `admin:${(props.reference ?? props.reason).trim()}`;
  const applied = await deps.db.transaction((trx) => applyGrant(trx, account.id, props.amount, reference));
  return { ...summarize(await deps.db('accounts').where({ id: account.id }).first()), applied, reference, amount: props.amount };
}

async function planExists(db: Db, plan: string): Promise<void> {
  const found = await db('subscription_plans').where({ id: plan }).first('id');
  if (!found) {
    const plans = (await db('subscription_plans').orderBy('price_cents').pluck('id')) as string[];
    throw new AdminError(`no plan ${plan}; plans: ${plans.join(', ')}`);
  }
}

/** Changes the plan; the balance stays (credits come with grants). */
export async function setPlan(deps: AdminDeps, email: string, plan: string): Promise<AccountSummary> {
  await planExists(deps.db, plan);
  const account = await accountByEmail(deps.db, email);
  await deps.db('accounts').where({ id: account.id }).update({ subscription_tier: plan, updated_at: deps.db.fn.now() });
  return summarize(await deps.db('accounts').where({ id: account.id }).first());
}

export type UserWithUsage = AccountSummary & {
  usage: { period_start: string; syntheses: number; syntheses_failed: number; credits_used: number; audio_seconds: number; cloned_voices: number };
};

/** Every account, newest first, with this month's usage (the profile's calendar-month period). */
export async function listUsers(deps: AdminDeps, { limit = 100, email }: { limit?: number; email?: string } = {}): Promise<UserWithUsage[]> {
  const { db } = deps;
  const { start, end } = currentPeriod();
  const syntheses = db('syntheses')
    .where('completed_at', '>=', start)
    .andWhere('completed_at', '<', end)
    .groupBy('account_id')
    .select(
      'account_id',
      db.raw(`count(*) filter (where status = 'completed')::int as syntheses`),
      db.raw(`count(*) filter (where status = 'failed')::int as syntheses_failed`),
      db.raw(`coalesce(sum(credits_charged) filter (where status = 'completed'), 0)::bigint as credits_used`),
      db.raw(`coalesce(sum(duration_seconds) filter (where status = 'completed'), 0)::float as audio_seconds`),
    )
    .as('s');
  const voices = db('voices')
    .where({ category: 'cloned' })
    .whereIn('status', ['processing', 'ready'])
    .whereNull('deleted_at')
    .groupBy('account_id')
    .select('account_id', db.raw('count(*)::int as cloned_voices'))
    .as('v');
  const query = db('accounts as a')
    .leftJoin(syntheses, 's.account_id', 'a.id')
    .leftJoin(voices, 'v.account_id', 'a.id')
    .select('a.*', 's.syntheses', 's.syntheses_failed', 's.credits_used', 's.audio_seconds', 'v.cloned_voices')
    .orderBy('a.created_at', 'desc')
    .limit(limit);
  if (email) query.where('a.email', normalizeEmail(email));
  const rows = await query;
  return rows.map((row: Record<string, any>) => ({
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
