import { createReadStream } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { serviceUnavailable } from '../../errors';
import type { ApiDeps } from '../../deps';
import { problemResponses } from '../../openapi';
import { sendProblem } from '../../problem';
import { defineRoute, type Route } from '../../route';
import { DOCS_CSP, docsPage, errorsPage } from './docs';
import { checkDependencies } from './readiness';

/** Public: a name and up/down only. Latencies and error messages (host names, ports) go to the log. */
const Dependency = z.object({ status: z.enum(['up', 'down']).meta({ description: 'Whether it answered the check' }) });
const Readiness = z
  .object({
    status: z.enum(['ready']).meta({ description: 'Always `ready` on a 200' }),
    dependencies: z
      .object({
        postgresql: Dependency.meta({ description: 'The database' }),
        temporal: Dependency.meta({ description: 'The workflow service' }),
        minio: Dependency.meta({ description: 'The object storage (S3 API)' }),
      })
      .meta({ description: 'Each dependency’s state' }),
  })
  .meta({ id: 'Readiness' });

// Swagger UI ships as static files in an npm package: the docs work offline.
const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

export function operationsRoutes(deps: ApiDeps, openApiDocument: () => unknown): Route[] {
  return [
    defineRoute({
      method: 'get',
      paths: { unversioned: '/healthz' },
      summary: 'Liveness: 200 while the process runs',
      tags: ['Operations'],
      responses: {
        200: {
          description: 'Alive',
          content: {
            'application/json': { schema: z.object({ status: z.literal('ok').meta({ description: 'Always `ok`' }) }) },
          },
        },
      },
      async handler(ctx) {
        ctx.body = { status: 'ok' };
      },
    }),
    defineRoute({
      method: 'get',
      paths: { unversioned: '/readyz' },
      summary: 'Readiness: PostgreSQL, Temporal and MinIO each answer',
      tags: ['Operations'],
      responses: {
        200: { description: 'Every dependency is up', content: { 'application/json': { schema: Readiness } } },
        ...problemResponses(503),
      },
      async handler(ctx) {
        const checked = await checkDependencies(deps);
        const dependencies = Object.fromEntries(
          Object.entries(checked).map(([name, { status }]) => [name, { status }]),
        );
        const down = Object.entries(checked)
          .filter(([, state]) => state.status === 'down')
          .map(([name]) => name);
        if (down.length) {
          deps.logger.warn({ dependencies: checked, request_id: ctx.state.requestId }, 'not ready');
          sendProblem(ctx, serviceUnavailable(down.join(', ')), { dependencies });
          return;
        }
        ctx.body = { status: 'ready', dependencies };
      },
    }),
    defineRoute({
      method: 'get',
      paths: { unversioned: '/api/openapi.json' },
      summary: 'This OpenAPI 3.1 document',
      tags: ['Operations'],
      responses: {
        200: { description: 'OpenAPI document', content: { 'application/json': { schema: z.looseObject({}) } } },
      },
      async handler(ctx) {
        ctx.body = openApiDocument();
      },
    }),
    defineRoute({
      method: 'get',
      paths: { unversioned: '/api/docs/' },
      summary: 'Browsable API documentation (Swagger UI)',
      tags: ['Operations'],
      responses: { 200: { description: 'HTML page', content: { 'text/html': { schema: z.string() } } } },
      async handler(ctx) {
        ctx.type = 'text/html; charset=utf-8';
        ctx.set('Content-Security-Policy', DOCS_CSP);
        ctx.body = docsPage();
      },
    }),
    defineRoute({
      method: 'get',
      paths: { unversioned: '/api/docs/errors/' },
      summary: 'The error codes a problem body can carry',
      tags: ['Operations'],
      responses: { 200: { description: 'HTML page', content: { 'text/html': { schema: z.string() } } } },
      async handler(ctx) {
        ctx.type = 'text/html; charset=utf-8';
        ctx.set('Content-Security-Policy', DOCS_CSP);
        ctx.body = errorsPage();
      },
    }),
    defineRoute({
      method: 'get',
      paths: { unversioned: '/api/docs/assets/{file}' },
      summary: 'Static files of the documentation page',
      tags: ['Operations'],
      params: z.object({
        file: z
          .enum(Object.keys(SWAGGER_ASSETS) as [string, ...string[]])
          .meta({ description: 'The asset’s file name' }),
      }),
      responses: { 200: { description: 'A static file' }, ...problemResponses(404) },
      async handler(ctx, { params }) {
        ctx.type = SWAGGER_ASSETS[params.file];
        ctx.set('Cache-Control', 'public, max-age=86400');
        ctx.body = createReadStream(path.join(SWAGGER_DIR, params.file));
      },
    }),
  ];
}
