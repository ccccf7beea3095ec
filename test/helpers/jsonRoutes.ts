import { isOpenAiPath } from '../../api/routes/openai/errors';
import { isElevenLabsRequest } from '../../api/routes/elevenlabs/errors';
import { randomUUID } from 'node:crypto';
import { resourceRoutes } from '../../api/app';
import type { ApiDeps } from '../../api/deps';
import type { Route } from '../../api/route';
import { problemShapeErrors, type Reply } from './http';

/** One JSON-body endpoint in one family, with `{id}` filled in. */
export interface JsonEndpoint {
  label: string;
  method: string;
  path: string;
  route: Route;
  auth: boolean;
}

/** Every route with a JSON body, in both families; `ids` fills `{id}` per route path (default: a random UUID). */
export function jsonEndpoints(
  deps: ApiDeps,
  ids: (openApiPath: string) => string = () => randomUUID(),
): JsonEndpoint[] {
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

/**
 * The error shape a 4xx must have on `path`: ElevenLabs' `{detail: {status,
 * message}}` on its paths, OpenAI's `{error: {message, type, param, code}}` on
 * the OpenAI-compatible ones (so each SDK raises the right errors),
 * problem+json everywhere else.
 */
export function errorShapeErrors(path: string, reply: Reply): string[] {
  if (isElevenLabsRequest({ path, get: () => '' })) return elevenLabsShapeErrors(reply);
  if (!isOpenAiPath(path)) return problemShapeErrors(reply);
  const errors: string[] = [];
  if (!/^application\/json/.test(reply.headers.get('content-type') ?? ''))
    errors.push(`content-type ${reply.headers.get('content-type')}`);
  const error = reply.body?.error;
  if (!error || typeof error.message !== 'string' || typeof error.type !== 'string') errors.push('error.message/type');
  else if (
    !(error.param === null || typeof error.param === 'string') ||
    !(error.code === null || typeof error.code === 'string')
  )
    errors.push('error.param/code');
  return errors;
}

/** ElevenLabs' error shape, `{"detail": {"status", "message"}}` (its SDKs read it so). */
function elevenLabsShapeErrors(reply: Reply): string[] {
  const errors: string[] = [];
  if (!/^application\/json/.test(reply.headers.get('content-type') ?? ''))
    errors.push(`content-type ${reply.headers.get('content-type')}`);
  const detail = reply.body?.detail;
  if (!detail || typeof detail.status !== 'string' || typeof detail.message !== 'string')
    errors.push('detail.status/message');
  return errors;
}
