import { isOpenAiPath } from '../../api/routes/openai/errors';
import { randomUUID } from 'node:crypto';
import { resourceRoutes } from '../../api/app';
import type { ApiDeps } from '../../api/deps';
import type { Route } from '../../api/route';

/** One JSON-body endpoint in one family, with `{id}` filled in. */
export interface JsonEndpoint {
  label: string;
  method: string;
  path: string;
  route: Route;
  auth: boolean;
}

/** Every route with a JSON body, in both families; `ids` fills `{id}` per route path (default: a random UUID). */
export function jsonEndpoints(deps: ApiDeps, ids: (openApiPath: string) => string = () => randomUUID()): JsonEndpoint[] {
  return resourceRoutes(deps)
    .filter((route) => route.body)
    .flatMap((route) =>
      Object.values(route.paths).map((openApiPath) => ({
        label: `${route.method.toUpperCase()} ${openApiPath}`,
        method: route.method.toUpperCase(),
        path: openApiPath!.replace(/\{\w+\}/g, () => ids(openApiPath!)),
        route,
        auth: Boolean(route.auth),
      })),
    );
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** A request with a raw (possibly invalid) JSON text body. */
export async function sendRaw(url: string, method: string, body: string, token?: string, headers: Record<string, string> = {}): Promise<Reply> {
  const response = await fetch(url, {
    method,
    body,
    headers: { 'Content-Type': 'application/json', ...(token && { Authorization: `Bearer ${token}` }), ...headers },
  });
  const text = await response.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/**
 * The error shape a 4xx must have on `path`: OpenAI's `{error: {message, type,
 * param, code}}` on the OpenAI-compatible paths (so OpenAI's SDKs raise the
 * right errors), problem+json everywhere else.
 */
export function errorShapeErrors(path: string, reply: Reply): string[] {
  if (!isOpenAiPath(path)) return problemShapeErrors(reply);
  const errors: string[] = [];
  if (!/^application\/json/.test(reply.headers.get('content-type') ?? '')) errors.push(`content-type ${reply.headers.get('content-type')}`);
  const error = reply.body?.error;
  if (!error || typeof error.message !== 'string' || typeof error.type !== 'string') errors.push('error.message/type');
  else if (!(error.param === null || typeof error.param === 'string') || !(error.code === null || typeof error.code === 'string')) errors.push('error.param/code');
  return errors;
}

/** The problem+json shape of API.md for any 4xx: the members, and request_id matching the header. */
export function problemShapeErrors(reply: Reply): string[] {
  const errors: string[] = [];
  if (!/^application\/problem\+json/.test(reply.headers.get('content-type') ?? '')) errors.push(`content-type ${reply.headers.get('content-type')}`);
  const body = reply.body ?? {};
  if (body.status !== reply.status) errors.push(`status member ${body.status}`);
  if (typeof body.code !== 'string' || body.type !== `/api/docs/errors#${body.code}`) errors.push(`code/type ${body.code} ${body.type}`);
  if (typeof body.title !== 'string' || typeof body.detail !== 'string') errors.push('title/detail');
  if (body.request_id !== reply.headers.get('x-request-id')) errors.push('request_id');
  if (body.errors !== undefined) {
    const ok = body.errors && typeof body.errors === 'object' && Object.values(body.errors).every((list) => Array.isArray(list) && list.every((m) => typeof m === 'string'));
    if (!ok) errors.push('errors member');
  }
  return errors;
}
