import { resourceRoutes } from '../../api/app';
import type { ApiDeps } from '../../api/deps';
import { buildOpenApiDocument } from '../../api/openapi';
import { loadConfig } from '../../lib/config';

const config = loadConfig({ JWT_SECRET: 'x'.repeat(32) });
const document = buildOpenApiDocument(resourceRoutes({ config } as ApiDeps), config.PUBLIC_URL, 'test') as any;
const operations = Object.entries<any>(document.paths).flatMap(([path, item]) =>
  Object.entries<any>(item).map(([method, operation]) => ({ path, method, operation })),
);

describe('the OpenAPI document, polished', () => {
  it('shows the versioned family under resource tags and the unversioned one as its alias', () => {
    for (const { path, operation } of operations.filter(({ path }) => path.startsWith('/api/v1/'))) {
      expect({ path, alias: operation.tags.includes('Unversioned aliases') }).toEqual({ path, alias: false });
    }
    const synthesize = document.paths['/api/tts/synthesize/'].post;
    expect(synthesize.tags).toEqual(['Unversioned aliases']);
    expect(synthesize['x-alias-of']).toBe('/api/v1/tts/synthesize/');
    // A path that exists only unversioned is no alias.
    expect(document.paths['/api/voices/my/'].get.tags).toEqual(['Voices']);
  });

  it('describes every tag it uses', () => {
    const described = new Set(
      document.tags.map((tag: { name: string; description: string }) => tag.description && tag.name),
    );
    for (const { operation } of operations) for (const tag of operation.tags) expect(described.has(tag)).toBe(true);
  });

  it('documents the response headers: X-Request-Id everywhere, Location, Idempotent-Replayed, Retry-After, Synthesis-Status', () => {
    for (const { operation } of operations)
      for (const response of Object.values<any>(operation.responses))
        expect(response.headers['X-Request-Id']).toBeDefined();
    for (const path of ['/api/v1/tts/synthesize/', '/api/tts/synthesize/']) {
      expect(Object.keys(document.paths[path].post.responses['202'].headers)).toEqual(
        expect.arrayContaining(['Location', 'Idempotent-Replayed']),
      );
      expect(document.paths[path].post.responses['503'].headers['Retry-After']).toBeDefined();
    }
    expect(document.paths['/api/v1/voices/upload/'].post.responses['202'].headers.Location).toBeDefined();
    expect(document.paths['/api/v1/projects/'].post.responses['201'].headers.Location).toBeDefined();
    expect(
      document.paths['/api/v1/tts/history/{id}/'].delete.responses['204'].headers['Synthesis-Status'],
    ).toBeDefined();
    expect(document.paths['/api/v1/auth/login/'].post.responses['429'].headers['Retry-After']).toBeDefined();
  });

  it('gives request examples that the endpoint’s own schema accepts', () => {
    const routes = resourceRoutes({ config } as ApiDeps);
    let checked = 0;
    for (const { path, method, operation } of operations) {
      const content = operation.requestBody?.content ?? {};
      const example = content['application/json']?.example ?? content['multipart/form-data']?.example;
      if (example === undefined) continue;
      const route = routes.find(
        (candidate) => candidate.method === method && Object.values(candidate.paths).includes(path),
      );
      const schema = route?.body ?? route?.form;
      expect({ path, valid: schema?.safeParse(example).success }).toEqual({ path, valid: true });
      checked += 1;
    }
    expect(
      document.paths['/api/v1/tts/synthesize/'].post.requestBody.content['application/json'].example.voice_id,
    ).toBe('en-us-joe');
    // Every request body of both families has one.
    expect(checked).toBe(operations.filter(({ operation }) => operation.requestBody).length);
    expect(checked).toBeGreaterThanOrEqual(20);
  });

  it('types audio as binary', () => {
    const content = document.paths['/api/v1/tts/history/{id}/audio/'].get.responses['200'].content;
    for (const type of ['audio/wav', 'audio/mpeg', 'audio/ogg', 'audio/flac'])
      expect(content[type].schema).toEqual({ type: 'string', format: 'binary' });
  });
});
