import type { Context } from 'koa';
import { RefreshTokenFamily } from '../../../db/models/RefreshTokenFamily';
import type { ApiDeps } from '../../deps';
import { notAuthenticated, permissionDenied } from '../../errors';
import { problemResponses, jsonResponse } from '../../openapi';
import { defineRoute, type Route, inBothFamilies } from '../../route';
import { logIn, refreshTokens } from '../auth/commands';
import { LoginBody } from '../auth/schema';
import { presentSession } from './presenter';
import { SESSION_HEADER, sessionHeaders, SessionOut } from './schema';

/**
 * The dashboard's browser session: the same login and rotation as
 * /auth/login/ and /auth/refresh/, but the refresh token lives in an
 * HttpOnly, SameSite=Strict cookie (scripts never see it) and only the
 * short-lived access token is answered. The JSON endpoints stay as they are
 * for API clients.
 *
 * CSRF: SameSite=Strict keeps the cookie off cross-site requests; on top of
 * that, the endpoints that use the cookie want the custom header below (a
 * cross-origin page cannot send it without a CORS preflight, which this
 * service never grants) and refuse a foreign Origin.
 */
const SESSION_COOKIE = 'openvox_refresh';
/**
 * Set and cleared with the session cookie, readable by scripts and holding
 * nothing secret ("1"): the page asks for a refresh only when a session may
 * exist, so an anonymous visit makes no request that must fail.
 */
const MARKER_COOKIE = 'openvox_session';
/** Both families live under /api/, so one cookie serves both. */
const COOKIE_PATH = '/api/';

function setSessionCookie(ctx: Context, deps: ApiDeps, refresh: string | null): void {
  // Secure whenever the browser reached us over https (directly, via a trusted proxy, or as PUBLIC_URL says).
  const secure = ctx.protocol === 'https' || deps.config.PUBLIC_URL.startsWith('https:');
  // The cookies library refuses a Secure cookie on a plain connection it sees; TLS ends at the proxy then.
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(SESSION_COOKIE, refresh ?? '', {
    httpOnly: true,
    sameSite: 'strict',
    path: COOKIE_PATH,
    secure,
    maxAge: refresh ? deps.config.REFRESH_TOKEN_TTL * 1000 : 0,
    overwrite: true,
  });
  ctx.cookies.set(MARKER_COOKIE, refresh ? '1' : '', {
    httpOnly: false,
    sameSite: 'strict',
    path: '/',
    secure,
    maxAge: refresh ? deps.config.REFRESH_TOKEN_TTL * 1000 : 0,
    overwrite: true,
  });
}

/** Refuses a request that did not come from a same-origin script. */
function requireSameOrigin(ctx: Context, deps: ApiDeps): void {
  if (ctx.get(SESSION_HEADER) !== '1')
    throw permissionDenied(`Session requests must carry the ${SESSION_HEADER}: 1 header.`);
  const origin = ctx.get('Origin');
  // Koa 3's ctx.origin echoes the Origin header; this site's own origin is rebuilt from the request.
  const own = `${ctx.protocol}://${ctx.host}`;
  if (origin && origin !== own && origin !== new URL(deps.config.PUBLIC_URL).origin) {
    throw permissionDenied('Session requests must come from this site.');
  }
}

export function sessionRoutes(deps: ApiDeps): Route[] {
  const { db } = deps;
  return [
    defineRoute({
      method: 'post',
      paths: inBothFamilies('auth/session/'),
      summary: 'Log in for the browser dashboard: the refresh token is set as an HttpOnly cookie',
      tags: ['Auth'],
      body: LoginBody,
      headers: sessionHeaders,
      responses: {
        200: jsonResponse(
          'An access token (the session cookie is set, and the `openvox_session=1` marker cookie scripts can read)',
          SessionOut,
        ),
        ...problemResponses(400, 401, 403, 429),
      },
      async handler(ctx, { body }) {
        requireSameOrigin(ctx, deps);
        const pair = await logIn(deps, { email: body.email, password: body.password, ip: ctx.ip });
        setSessionCookie(ctx, deps, pair.refresh);
        ctx.body = presentSession(pair);
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('auth/session/refresh/'),
      summary: 'A new access token from the session cookie (which rotates)',
      tags: ['Auth'],
      headers: sessionHeaders,
      responses: {
        200: jsonResponse('An access token (the session cookie is rotated)', SessionOut),
        ...problemResponses(401, 403),
      },
      async handler(ctx) {
        requireSameOrigin(ctx, deps);
        const refresh = ctx.cookies.get(SESSION_COOKIE);
        if (!refresh) throw notAuthenticated();
        try {
          const pair = await refreshTokens(deps, refresh);
          setSessionCookie(ctx, deps, pair.refresh);
          ctx.body = presentSession(pair);
        } catch (error) {
          setSessionCookie(ctx, deps, null);
          throw error;
        }
      },
    }),
    defineRoute({
      method: 'delete',
      paths: inBothFamilies('auth/session/'),
      summary: "Log out of the browser dashboard: revokes the session's refresh tokens and clears the cookie",
      tags: ['Auth'],
      headers: sessionHeaders,
      responses: { 204: { description: 'Logged out (both cookies cleared)' }, ...problemResponses(403) },
      async handler(ctx) {
        requireSameOrigin(ctx, deps);
        const refresh = ctx.cookies.get(SESSION_COOKIE);
        if (refresh) {
          // An expired or forged cookie has nothing to revoke; the cookie is cleared either way.
          const session = await deps.tokens.verifyRefresh(refresh).catch(() => null);
          if (session) {
            await RefreshTokenFamily.revoke(db, session.accountId, session.familyId);
          }
        }
        setSessionCookie(ctx, deps, null);
        ctx.status = 204;
      },
    }),
  ];
}
