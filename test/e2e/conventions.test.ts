import { z } from 'zod';
import { buildApp } from '../../api/app';
import { defineRoute } from '../../api/route';
import { createTestDeps, type RunningApi, serve, startApi, useStack } from '../helpers/stack';
import { expectProblem, readReply } from '../helpers/http';

/** A JSON endpoint that echoes what validation let through, to test the shared request handling. */
const echoRoute = defineRoute({
  method: 'post',
  paths: { v1: '/api/v1/test-echo/{id}/', unversioned: '/api/test-echo/{id}/' },
  summary: 'Echo for tests',
  tags: ['Test'],
  params: z.object({ id: z.uuid() }),
  body: z.strictObject({ name: z.string().min(1).max(10), count: z.number().int().optional() }),
  responses: { 200: { description: 'Echo' } },
  async handler(ctx, { params, body }, family) {
    ctx.body = { params, body, family };
  },
});

const ID = '7d3c2f9a-1b2c-4d5e-8f90-123456789abc';

describe('API conventions (API.md "every endpoint")', () => {
  const { deps, api } = useStack();
  let echo: RunningApi;
  beforeAll(async () => {
    echo = await serve(buildApp(deps, [echoRoute]));
  });
  afterAll(async () => {
    await Promise.all([api.close(), echo.close()]);
  });

  const post = (path: string, body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
    fetch(`${echo.url}${path}`, { method: 'POST', body, headers });

  /** The shared problem+json assertion, on a fetch response. */
  const expectResponseProblem = async (response: Response, status: number, code: string) =>
    expectProblem(await readReply(response), status, code);

  describe('X-Request-Id', () => {
    it('echoes a well-formed client id', async () => {
      const response = await fetch(`${api.url}/healthz`, { headers: { 'X-Request-Id': 'client-1.2_3~abc:def' } });
      expect(response.headers.get('x-request-id')).toBe('client-1.2_3~abc:def');
    });

    it.each(['has spaces', 'x'.repeat(129), 'semi;colon'])('replaces a malformed one (%s)', async (given) => {
      const response = await fetch(`${api.url}/healthz`, { headers: { 'X-Request-Id': given } });
      const id = response.headers.get('x-request-id');
      expect(id).not.toBe(given);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('repeats the id in problem bodies', async () => {
      const response = await fetch(`${api.url}/api/v1/nothing-here/`, { headers: { 'X-Request-Id': 'trace-42' } });
      const problem = await expectResponseProblem(response, 404, 'not_found');
      expect(problem.request_id).toBe('trace-42');
    });
  });

  it('answers unknown paths with 404 not_found', async () => {
    await expectResponseProblem(await fetch(`${api.url}/api/v1/unknown/`), 404, 'not_found');
    await expectResponseProblem(await fetch(`${api.url}/unknown/`), 404, 'not_found'); // `/` itself is the API index
  });

  it('answers a wrong method with 405 method_not_allowed and an Allow header', async () => {
    const response = await fetch(`${api.url}/api/v1/subscription-plans/`, { method: 'DELETE' });
    await expectResponseProblem(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toContain('GET');
  });

  it('mounts one handler in both families, with and without the trailing slash', async () => {
    for (const path of [
      `/api/v1/test-echo/${ID}/`,
      `/api/v1/test-echo/${ID}`,
      `/api/test-echo/${ID}/`,
      `/api/test-echo/${ID}`,
    ]) {
      const response = await post(path, JSON.stringify({ name: 'ok' }));
      expect(response.status).toBe(200);
      const body = (await response.json()) as any;
      expect(body).toEqual({
        params: { id: ID },
        body: { name: 'ok' },
        family: path.startsWith('/api/v1') ? 'v1' : 'unversioned',
      });
    }
  });

  it('answers 404, never 500, for a malformed id in the path', async () => {
    await expectResponseProblem(
      await post('/api/v1/test-echo/not-a-uuid/', JSON.stringify({ name: 'ok' })),
      404,
      'not_found',
    );
    await expectResponseProblem(
      await post("/api/test-echo/1'%20OR%201=1/", JSON.stringify({ name: 'ok' })),
      404,
      'not_found',
    );
  });

  it('answers unparseable JSON with 400 invalid_json', async () => {
    await expectResponseProblem(await post(`/api/v1/test-echo/${ID}/`, '{"name": '), 400, 'invalid_json');
    await expectResponseProblem(await post(`/api/v1/test-echo/${ID}/`, '"just a string"'), 400, 'invalid_json');
  });

  it('answers a JSON body sent with another Content-Type with 415', async () => {
    await expectResponseProblem(
      await post(`/api/v1/test-echo/${ID}/`, '{"name":"ok"}', { 'Content-Type': 'text/plain' }),
      415,
      'unsupported_media_type',
    );
    await expectResponseProblem(
      await post(`/api/test-echo/${ID}/`, 'name=ok', { 'Content-Type': 'application/x-www-form-urlencoded' }),
      415,
      'unsupported_media_type',
    );
  });

  it('answers a body over 1 MiB with 413 payload_too_large', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
    await expectResponseProblem(await post(`/api/v1/test-echo/${ID}/`, big), 413, 'payload_too_large');
  });

  it('rejects unknown fields with 400 validation_error naming each', async () => {
    const problem = await expectResponseProblem(
      await post(`/api/v1/test-echo/${ID}/`, JSON.stringify({ name: 'ok', admin: true, 'x y': 1 })),
      400,
      'validation_error',
    );
    expect(problem.errors).toEqual({ admin: ['Unknown field.'], 'x y': ['Unknown field.'] });
  });

  it('rejects strings holding a NUL character with 400 validation_error on that field', async () => {
    const problem = await expectResponseProblem(
      await post(`/api/v1/test-echo/${ID}/`, JSON.stringify({ name: 'a\u0000b' })),
      400,
      'validation_error',
    );
    expect(problem.errors).toEqual({ name: ['Must not contain NUL characters.'] });
  });

  it('names missing and wrongly typed fields', async () => {
    const missing = await expectResponseProblem(await post(`/api/v1/test-echo/${ID}/`, '{}'), 400, 'validation_error');
    expect(missing.errors).toEqual({ name: ['This field is required.'] });
    expect(missing.detail).toBe('name: This field is required.');
    const wrong = await expectResponseProblem(
      await post(`/api/v1/test-echo/${ID}/`, JSON.stringify({ name: 5, count: 'many' })),
      400,
      'validation_error',
    );
    expect(Object.keys(wrong.errors).sort()).toEqual(['count', 'name']);
    const empty = await expectResponseProblem(await post(`/api/v1/test-echo/${ID}/`, '', {}), 400, 'validation_error');
    expect(empty.errors).toEqual({ name: ['This field is required.'] });
  });

  it('never leaks a stack trace in a 500', async () => {
    const failing = defineRoute({
      method: 'get',
      paths: { v1: '/api/v1/test-fail/' },
      summary: 'Fails',
      tags: ['Test'],
      responses: {},
      async handler() {
        throw new Error('select * from secrets at db-host.internal:5432');
      },
    });
    const server = await serve(buildApp(deps, [failing]));
    try {
      const response = await fetch(`${server.url}/api/v1/test-fail/`);
      const problem = await expectResponseProblem(response, 500, 'internal_error');
      expect(JSON.stringify(problem)).not.toMatch(/secrets|db-host|at /);
    } finally {
      await server.close();
    }
  });
});

describe('API documentation', () => {
  const deps = createTestDeps();
  let api: RunningApi;
  beforeAll(async () => {
    api = await startApi(deps);
  });
  afterAll(async () => {
    await api.close();
    await deps.close();
  });

  it('serves an OpenAPI 3.1 document generated from the route schemas, both families', async () => {
    const response = await fetch(`${api.url}/api/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as any;
    expect(document.openapi).toBe('3.1.0');
    for (const path of ['/api/v1/subscription-plans/', '/api/subscription-plans/', '/healthz', '/readyz']) {
      expect(document.paths[path]?.get).toBeDefined();
    }
    const parameters = document.paths['/api/v1/subscription-plans/'].get.parameters.map(
      (p: { name: string }) => p.name,
    );
    expect(parameters).toEqual(expect.arrayContaining(['page', 'page_size']));
    const plan = document.components.schemas.SubscriptionPlan;
    expect(plan.required).toEqual(expect.arrayContaining(['id', 'monthly_credits', 'output_formats']));
  });

  it('serves a browsable docs page whose assets load', async () => {
    const page = await fetch(`${api.url}/api/docs/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('/api/openapi.json');
    for (const asset of html.matchAll(/(?:src|href)="(\/api\/docs\/assets\/[^"]+)"/g)) {
      const response = await fetch(`${api.url}${asset[1]}`);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    expect((await fetch(`${api.url}/api/docs/assets/..%2F..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${api.url}/api/docs/errors/`)).status).toBe(200);
  });
});
