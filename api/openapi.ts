import { z } from 'zod';
import { createDocument, type ZodOpenApiPathsObject } from 'zod-openapi';
import type { Family, Route } from './route';

/** The RFC 9457 problem body every error response carries. */
export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.string(),
    detail: z.string(),
    errors: z.record(z.string(), z.array(z.string())).optional(),
    request_id: z.string(),
  })
  .meta({ id: 'Problem' });

const PROBLEM_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (`validation_error`, `invalid_json`)',
  401: 'Missing or invalid credentials',
  402: 'Insufficient credits',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  416: 'Range not satisfiable',
  422: 'Unprocessable request',
  429: 'Rate limited',
  500: 'Internal error (`internal_error`), logged with the request id',
  503: 'A dependency is unavailable',
};

export function problemResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: PROBLEM_DESCRIPTIONS[status], content: { 'application/problem+json': { schema: Problem } } },
    ]),
  );
}

const FAMILY_TAG: Record<Family, string> = { v1: '', unversioned: ' (unversioned)' };

/** OpenAPI 3.1 from the same zod schemas that validate requests: both families, every route. */
export function buildOpenApiDocument(routes: Route[], publicUrl: string, version: string) {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    for (const [family, path] of Object.entries(route.paths) as [Family, string][]) {
      const operationId = `${route.method}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string) => (c ?? '').toUpperCase())}`;
      paths[path] ??= {};
      paths[path][route.method] = {
        operationId,
        summary: `${route.summary}${FAMILY_TAG[family]}`,
        tags: route.tags,
        requestParams: {
          ...(route.params && { path: route.params }),
          ...(route.query && { query: route.query }),
          ...(route.headers && { header: route.headers }),
        },
        ...(route.body && {
          requestBody: { required: true, content: { 'application/json': { schema: route.body } } },
        }),
        ...(route.form && {
          requestBody: { required: true, content: { 'multipart/form-data': { schema: route.form } } },
        }),
        security: route.auth ? [{ bearer: [] }] : [],
        responses: { ...route.responses, ...problemResponses(500) },
      };
    }
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'OpenVox API',
      version,
      description:
        'Self-hosted text-to-speech and voice cloning. Every path exists in two families: `/api/v1/...` and `/api/...`. Errors are `application/problem+json`.',
    },
    servers: [{ url: publicUrl }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An access JWT or an API key (`vk_...`).' },
      },
    },
    paths,
  });
}
