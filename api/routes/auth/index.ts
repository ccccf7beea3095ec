import type { Context } from 'koa';
import path from 'node:path';
import { enforceRateLimit } from '../../auth/rateLimit';
import type { ApiDeps } from '../../deps';
import { problemResponses, jsonResponse } from '../../openapi';
import { defineRoute, type Route, inBothFamilies } from '../../route';
import { logIn, logOut, refreshTokens, registerAccount, resendVerification, verifyEmail } from './commands';
import { presentAccount, presentProfile } from './presenter';
import {
  Accepted,
  LoginBody,
  LogoutBody,
  Profile,
  RefreshBody,
  RegisterBody,
  RegisteredAccount,
  ResendBody,
  TokenPair,
  VerifyEmailBody,
  VerifyEmailQuery,
} from './schema';
import { usageOf } from './usage';
import { defaultVoiceOf } from '../../../synthesis/defaultVoice';
import { z } from 'zod';

/** Runs `task` once the response is sent (or the client has gone); its failure is only logged, and shutdown waits for it. */
function afterResponse(
  deps: ApiDeps,
  ctx: Context,
  task: () => Promise<void>,
  onError: (error: unknown) => void,
): void {
  ctx.res.once('close', () => deps.background.run(task, onError));
}

/**
 * In development without SMTP_URL the verification mail is an .eml file on this machine: the sign-up answer says
 * where, so a person in a browser is not left waiting for mail that never leaves. Nothing of the kind in production.
 */
function fileMailHint(config: ApiDeps['config']): { verification_mail?: { delivery: 'file'; directory: string } } {
  if (config.NODE_ENV !== 'development' || config.SMTP_URL) return {};
  const relative = path.relative(process.cwd(), config.MAIL_DIR);
  return {
    verification_mail: {
      delivery: 'file',
      directory: relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : config.MAIL_DIR,
    },
  };
}

const HOUR = 3600;

export function authRoutes(deps: ApiDeps): Route[] {
  const { config, db } = deps;

  const verified = async (ctx: Context, token: string) => {
    await verifyEmail(deps, token);
    ctx.body = { email_verified: true };
  };
  const verifyResponses = {
    200: jsonResponse(
      'Verified and credited',
      z.object({ email_verified: z.literal(true).meta({ description: 'Always `true`: the account may log in now' }) }),
    ),
    ...problemResponses(400, 503),
  };

  return [
    defineRoute({
      method: 'post',
      paths: inBothFamilies('auth/register/'),
      summary: 'Create an account; a verification email is sent',
      tags: ['Auth'],
      body: RegisterBody,
      responses: {
        201: jsonResponse('Account created', RegisteredAccount),
        ...problemResponses(400, 409, 413, 415, 429),
      },
      async handler(ctx, { body }) {
        await enforceRateLimit(db, {
          key: `register:ip:${ctx.ip}`,
          limit: config.RATE_LIMIT_REGISTER_PER_HOUR,
          windowSeconds: HOUR,
        });
        const account = await registerAccount(deps, body);
        ctx.status = 201;
        ctx.body = { ...presentAccount(account), ...fileMailHint(config) };
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('auth/verify-email/'),
      summary: 'Verify an email address with the mailed token; grants the free credits',
      tags: ['Auth'],
      body: VerifyEmailBody,
      responses: verifyResponses,
      handler: (ctx, { body }) => verified(ctx, body.token),
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('auth/verify-email/'),
      summary: 'Verify an email address from the mailed link',
      tags: ['Auth'],
      query: VerifyEmailQuery,
      responses: verifyResponses,
      handler: (ctx, { query }) => verified(ctx, query.token),
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('auth/resend-verification/'),
      summary: 'Mail a new verification link (202 whether or not the account exists)',
      tags: ['Auth'],
      body: ResendBody,
      responses: { 202: jsonResponse('Accepted', Accepted), ...problemResponses(400, 429) },
      async handler(ctx, { body }) {
        await enforceRateLimit(db, {
          key: `resend:email:${body.email}`,
          limit: config.RATE_LIMIT_RESEND_PER_HOUR,
          windowSeconds: HOUR,
        });
        // No enumeration by content or by time: every address takes this same path, and the
        // account lookup and the workflow signal (~150 ms for a known address) run after the answer.
        afterResponse(
          deps,
          ctx,
          () => resendVerification(deps, body.email),
          (error) =>
            deps.logger.error(
              { err: error, request_id: ctx.state.requestId },
              'resend-verification failed after the answer',
            ),
        );
        ctx.status = 202;
        ctx.body = { detail: 'If an unverified account uses this address, a new verification email is on its way.' };
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('auth/login/'),
      summary: 'Exchange email and password for an access and a refresh token',
      tags: ['Auth'],
      body: LoginBody,
      responses: { 200: jsonResponse('Tokens', TokenPair), ...problemResponses(400, 401, 403, 429) },
      async handler(ctx, { body }) {
        ctx.body = await logIn(deps, { email: body.email, password: body.password, ip: ctx.ip });
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('auth/refresh/'),
      summary: 'Rotate a refresh token: a new pair; the old token stops working',
      tags: ['Auth'],
      body: RefreshBody,
      responses: { 200: jsonResponse('Tokens', TokenPair), ...problemResponses(400, 401) },
      async handler(ctx, { body }) {
        ctx.body = await refreshTokens(deps, body.refresh);
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('auth/logout/'),
      summary: "Revoke the refresh token's session",
      tags: ['Auth'],
      auth: true,
      body: LogoutBody,
      responses: { 204: { description: 'Logged out' }, ...problemResponses(400, 401) },
      async handler(ctx, { account, body }) {
        await logOut(deps, account, body.refresh);
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('auth/profile/'),
      summary: 'The caller: plan, credits and usage of the current month',
      tags: ['Auth'],
      auth: true,
      responses: { 200: jsonResponse('Profile', Profile), ...problemResponses(401) },
      async handler(ctx, { account }) {
        ctx.body = presentProfile(account, await usageOf(db, account), await defaultVoiceOf(db, account.id));
      },
    }),
  ];
}
