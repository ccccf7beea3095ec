import { z } from 'zod';
import { verifyPassword } from '../../auth/passwords';
import { enforceRateLimit } from '../../auth/rateLimit';
import type { ApiDeps } from '../../deps';
import { passwordIncorrect, validationError } from '../../errors';
import { problemResponses, jsonResponse } from '../../openapi';
import { defineRoute, type Route } from '../../route';
import { Account } from '../../../db/models/Account';
import { Voice } from '../../../db/models/Voice';
import { defaultVoiceOf } from '../../../synthesis/defaultVoice';
import { markAccountDeleted } from '../../../db/privacy';
import { accountDeletion } from '../../../workflows/accountDeletion';
import { accountDeletionWorkflowId } from '../../../synthesis/contracts';
import { presentProfile } from './presenter';
import { Accepted, Profile } from './schema';
import { usageOf } from './usage';

/** The owner's own changes to the account (PATCH profile) and its deletion (DELETE profile). */

const ProfileUpdateBody = z.strictObject({
  name: z
    .string()
    .trim()
    .max(100, 'Must be at most 100 characters.')
    .optional()
    .meta({ description: 'A display name, at most 100 characters', example: 'Ada' }),
  history_retention_days: z
    .number('Must be an integer or null.')
    .int('Must be an integer or null.')
    .min(1, 'Must be between 1 and 3650, or null.')
    .max(3650, 'Must be between 1 and 3650, or null.')
    .nullable()
    .optional()
    // The nullable wrapper hides the bounds from the document: say them here.
    .meta({
      description:
        'Delete syntheses (and their audio) older than this many days; null: the service default (by default, keep)',
      minimum: 1,
      maximum: 3650,
    }),
  default_voice_id: z.string().min(1, 'Must not be empty.').max(64, 'Unknown voice.').nullable().optional().meta({
    description:
      'The voice that speaks when a request names none: a premade voice id or one of your ready cloned voices; null: the service default',
    example: 'en-us-slt',
    minLength: 1,
    maxLength: 64,
  }),
});
const AccountDeletionBody = z.strictObject({
  password: z
    .string()
    .min(1, 'This field is required.')
    .max(1024)
    .meta({ description: "The account's password, to confirm" }),
});

/**
 * A default voice must be one the account may speak with now: a premade voice
 * on offer or its own ready clone (the same 400 for another account's clone
 * as for no voice at all).
 */
async function checkDefaultVoice({ db }: ApiDeps, account: Account, voiceId: string): Promise<void> {
  const voice = await Voice.query(db).modify('visibleTo', account).findById(voiceId).select('id', 'status');
  if (!voice) throw validationError({ default_voice_id: ['Unknown voice.'] });
  if (voice.status === 'revoked')
    throw validationError({ default_voice_id: ["This cloned voice's consent was revoked; it can no longer be used."] });
  if (voice.status !== 'ready') throw validationError({ default_voice_id: ['This cloned voice is not ready.'] });
}

const profilePaths = { v1: '/api/v1/auth/profile/', unversioned: '/api/auth/profile/' };

/**
 * Confirms with the password, starts `account-deletion:<id>` and marks the
 * account deleted. The workflow starts first: if Temporal is down the answer
 * is 503 and nothing has happened (the client can retry); once it runs, it
 * marks the account itself too, so a database hiccup here cannot stop it.
 */
async function deleteAccount(deps: ApiDeps, account: Account, password: string): Promise<void> {
  const { db, temporal, config } = deps;
  // Wrong passwords count against the same budget as logins for this email: no brute force through a stolen token.
  await enforceRateLimit(db, {
    key: `login:email:${account.email}`,
    limit: config.RATE_LIMIT_LOGIN_PER_EMAIL_PER_MINUTE,
    windowSeconds: 60,
  });
  if (!(await verifyPassword(account.password_hash, password))) throw passwordIncorrect();
  await temporal.workflow.start(accountDeletion, {
    workflowId: accountDeletionWorkflowId(account.id),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    args: [{ accountId: account.id }],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  await markAccountDeleted(db, account.id, { erasedSignupRetentionDays: config.ERASED_SIGNUP_RETENTION_DAYS });
}

export function accountRoutes(deps: ApiDeps): Route[] {
  const { db } = deps;
  return [
    defineRoute({
      method: 'patch',
      paths: profilePaths,
      summary: "Change the caller's name, history retention or default voice",
      tags: ['Auth'],
      auth: true,
      body: ProfileUpdateBody,
      responses: { 200: jsonResponse('Profile', Profile), ...problemResponses(400, 401, 415) },
      async handler(ctx, { account, body }) {
        if (
          body.name === undefined &&
          body.history_retention_days === undefined &&
          body.default_voice_id === undefined
        ) {
          throw validationError({
            non_field_errors: ['Give at least one of name, history_retention_days, default_voice_id.'],
          });
        }
        if (body.default_voice_id) await checkDefaultVoice(deps, account, body.default_voice_id);
        const changes = {
          ...(body.name !== undefined && { name: body.name }),
          ...(body.history_retention_days !== undefined && { history_retention_days: body.history_retention_days }),
          ...(body.default_voice_id !== undefined && { default_voice_id: body.default_voice_id }),
        };
        const [fresh] = await Account.query(db)
          .patch({ ...changes, updated_at: db.fn.now() })
          .where({ id: account.id })
          .returning('*');
        ctx.body = presentProfile(fresh, await usageOf(db, fresh), await defaultVoiceOf(db, fresh.id));
      },
    }),
    defineRoute({
      method: 'delete',
      paths: profilePaths,
      summary: 'Delete the account and everything in it (confirm with the password); see the docs for what is kept',
      tags: ['Auth'],
      auth: true,
      body: AccountDeletionBody,
      responses: {
        202: jsonResponse('Accepted: the account no longer authenticates; its data is being erased', Accepted),
        ...problemResponses(400, 401, 403, 415, 429, 503),
      },
      async handler(ctx, { account, body }) {
        await deleteAccount(deps, account, body.password);
        ctx.status = 202;
        ctx.body = { detail: 'The account is deleted: it no longer signs in, and its data is being erased.' };
      },
    }),
  ];
}
