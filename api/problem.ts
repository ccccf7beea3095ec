import type { Context } from 'koa';
import type { ApiError } from './errors';

/** Writes an ApiError as application/problem+json (RFC 9457), with extension members if given. */
export function sendProblem(ctx: Context, error: ApiError, extensions: Record<string, unknown> = {}): void {
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
  ctx.type = 'application/problem+json';
  ctx.body = {
    type: `/api/docs/errors#${error.code}`,
    title: error.title,
    status: error.status,
    code: error.code,
    detail: error.message,
    ...(error.errors && { errors: error.errors }),
    ...error.extensions,
    ...extensions,
    request_id: ctx.state.requestId as string,
  };
}
