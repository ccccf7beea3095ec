import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { methodNotAllowed, notFound } from './errors';
import { toApiError } from './failures';
import type { Logger } from '../lib/logger';
import { sendProblem } from './problem';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._~:-]{1,128}$/;

/** Echoes a well-formed client X-Request-Id, else makes one; every response carries it. */
export const requestId: Middleware = async (ctx, next) => {
  const given = ctx.get('X-Request-Id');
  ctx.state.requestId = CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
  ctx.set('X-Request-Id', ctx.state.requestId);
  await next();
};

/** One structured line per request, and the error behind any 5xx. */
export function accessLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const line = {
        request_id: ctx.state.requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      };
      if (ctx.status >= 500) logger.error({ ...line, err: ctx.state.error }, 'request failed');
      else logger.info(line, 'request');
    }
  };
}

/** Turns every thrown error into problem+json; never leaks a stack, SQL or host name. */
export const problems: Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (thrown) {
    const { error, unexpected } = toApiError(thrown);
    if (unexpected) ctx.state.error = thrown;
    sendProblem(ctx, error);
  }
};

/** Gives the router's bare 404 / 405 / 501 answers a problem body. */
export const routingProblems: Middleware = async (ctx, next) => {
  await next();
  if (ctx.body !== undefined && ctx.body !== null) return;
  if (ctx.status === 405 || ctx.status === 501) {
    const allowed = (ctx.response.get('Allow') || '').split(/,\s*/).filter(Boolean);
    sendProblem(ctx, methodNotAllowed(allowed));
  } else if (ctx.status === 404) {
    sendProblem(ctx, notFound(`No endpoint at ${ctx.method} ${ctx.path}.`));
  }
};

export const securityHeaders: Middleware = async (ctx, next) => {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', 'no-store');
  await next();
};
