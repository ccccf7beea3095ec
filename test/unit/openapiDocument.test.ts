import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { resourceRoutes } from '../../api/app';
import type { ApiDeps } from '../../api/deps';
import { buildOpenApiDocument } from '../../api/openapi';
import type { Route } from '../../api/route';
import { operationsRoutes } from '../../api/routes/operations';
import { apiIndexRoutes } from '../../api/routes/operations/apiIndex';
import { loadConfig } from '../../lib/config';

/**
 * The whole document the API serves at /api/openapi.json (resources and the
 * operations endpoints, as buildApp mounts them), checked for what a reader of
 * the docs page needs: tags, summaries, request examples, a description on
 * every field, parameter and header, and a licence; then Redocly's linter.
 */

type Json = Record<string, any>;

// A server URL that is neither localhost nor example.com, so the linter's server rule has nothing to say.
const config = loadConfig({ JWT_SECRET: 'x'.repeat(32), PUBLIC_URL: 'https://voice.openvox.test' });
const deps = { config } as ApiDeps;
const routes: Route[] = [...resourceRoutes(deps), ...operationsRoutes(deps, () => ({})), ...apiIndexRoutes('test')];
const document = buildOpenApiDocument(routes, config.PUBLIC_URL, '0.0.0-test') as Json;
const METHODS = ['get', 'post', 'patch', 'put', 'delete'];
const operations = Object.entries<Json>(document.paths).flatMap(([path, item]) =>
  Object.entries<Json>(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, operation]) => ({ where: `${method.toUpperCase()} ${path}`, operation })),
);

function resolve(schema: Json): Json {
  if (typeof schema?.$ref !== 'string') return schema;
  return document.components.schemas[schema.$ref.replace('#/components/schemas/', '')];
}

/** `where.property` of every object property in a schema (through $ref, anyOf/oneOf/allOf, items and maps) that has no description. */
function undescribed(schema: Json | undefined, where: string, seen = new Set<Json>()): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const target = resolve(schema);
  if (!target || seen.has(target)) return [];
  seen.add(target);
  const out: string[] = [];
  for (const keyword of ['anyOf', 'oneOf', 'allOf'])
    for (const part of target[keyword] ?? []) out.push(...undescribed(part, where, seen));
  out.push(...undescribed(target.items, `${where}[]`, seen));
  if (typeof target.additionalProperties === 'object')
    out.push(...undescribed(target.additionalProperties, `${where}{}`, seen));
  for (const [name, property] of Object.entries<Json>(target.properties ?? {})) {
    // A $ref'd property may carry its description beside the $ref or in the component.
    if (!property.description && !resolve(property)?.description) out.push(`${where}.${name}`);
    out.push(...undescribed(property, `${where}.${name}`, seen));
  }
  return out;
}

describe('the served OpenAPI document', () => {
  it('has operations in both families', () => {
    expect(operations.length).toBeGreaterThan(60);
    expect(document.paths['/api/v1/tts/synthesize/'].post).toBeDefined();
    expect(document.paths['/api/tts/synthesize/'].post).toBeDefined();
    expect(document.paths['/healthz'].get).toBeDefined();
  });

  it('gives every operation a described tag and a summary', () => {
    const tags = new Map<string, string>(document.tags.map((tag: Json) => [tag.name, tag.description]));
    for (const { where, operation } of operations) {
      expect({ where, tags: operation.tags?.length > 0, summary: Boolean(operation.summary?.trim()) }).toEqual({
        where,
        tags: true,
        summary: true,
      });
      for (const tag of operation.tags)
        expect({ where, tag, described: Boolean(tags.get(tag)) }).toEqual({ where, tag, described: true });
    }
    // Redoc shows only the tags in a group: each tag in exactly one.
    const grouped = document['x-tagGroups'].flatMap((group: Json) => group.tags);
    expect([...grouped].sort()).toEqual([...tags.keys()].sort());
  });

  it('gives every request body, in each of its media types, an example', () => {
    const bodies = operations.filter(({ operation }) => operation.requestBody);
    expect(bodies.length).toBeGreaterThanOrEqual(20);
    for (const { where, operation } of bodies) {
      for (const [type, media] of Object.entries<Json>(operation.requestBody.content)) {
        const examples = media.example !== undefined ? 1 : Object.keys(media.examples ?? {}).length;
        expect({ where, type, examples: examples > 0 }).toEqual({ where, type, examples: true });
      }
    }
  });

  it('describes every property of every request and response schema', () => {
    const missing: string[] = [];
    for (const { where, operation } of operations) {
      for (const [type, media] of Object.entries<Json>(operation.requestBody?.content ?? {}))
        missing.push(...undescribed(media.schema, `${where} request ${type}`));
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        for (const [type, media] of Object.entries<Json>(response.content ?? {}))
          missing.push(...undescribed(media.schema, `${where} ${status} ${type}`));
      }
    }
    // The walk must reach the fields at all: a profile's balance is one of them.
    expect(document.components.schemas.Profile.properties.credit_balance.description).toMatch(/credit/);
    expect(missing).toEqual([]);
  });

  it('describes every parameter and every response header', () => {
    const missing: string[] = [];
    for (const { where, operation } of operations) {
      for (const parameter of operation.parameters ?? [])
        if (!parameter.description && !parameter.schema?.description)
          missing.push(`${where} ${parameter.in} ${parameter.name}`);
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        if (!response.description) missing.push(`${where} ${status}`);
        for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
          // A shared header is written once under components.headers.
          const described = header.$ref
            ? document.components.headers[String(header.$ref).replace('#/components/headers/', '')]
            : header;
          if (!described?.description) missing.push(`${where} ${status} header ${name}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('says the units of quantities', () => {
    const schemas = document.components.schemas;
    const request =
      document.paths['/api/v1/tts/synthesize/'].post.requestBody.content['application/json'].schema.properties;
    expect(request.pitch.description).toMatch(/semitones/);
    expect(request.text.description).toMatch(/characters/);
    expect(schemas.SynthesisStatus.properties.duration_seconds.description).toMatch(/seconds/);
    expect(schemas.TokenPair.properties.expires_in.description).toMatch(/seconds/);
    expect(schemas.SubscriptionPlan.properties.monthly_credits.description).toMatch(/credit/i);
  });

  it('types every audio response as binary and documents the audio headers', () => {
    const audio = document.paths['/api/v1/tts/history/{id}/audio/'].get.responses;
    for (const status of ['200', '206']) {
      for (const type of ['audio/wav', 'audio/mpeg', 'audio/ogg', 'audio/flac'])
        expect(audio[status].content[type].schema).toEqual({ type: 'string', format: 'binary' });
    }
    expect(Object.keys(audio['206'].headers)).toEqual(
      expect.arrayContaining(['Content-Range', 'Accept-Ranges', 'Content-Length']),
    );
    const speech = document.paths['/api/v1/audio/speech/'].post.responses['200'];
    expect(speech.content['audio/mpeg'].schema).toEqual({ type: 'string', format: 'binary' });
    expect(speech.headers['X-Synthesis-Id']).toBeDefined();
    expect(document.paths['/api/v1/webhooks/'].post.responses['201'].headers.Location).toBeDefined();
  });

  it('marks each unversioned alias with the operation it aliases', () => {
    const alias = document.paths['/api/tts/status/{id}/'].get;
    expect(alias['x-alias-of']).toBe('/api/v1/tts/history/{id}/status/');
    expect(alias.description).toContain('GET /api/v1/tts/history/{id}/status/');
  });

  it('has every path, in both families, in the reference in our own words (docs/api.md)', async () => {
    const reference = await readFile(path.resolve(__dirname, '../../docs/api.md'), 'utf8');
    // The docs page's static files are no API; the reference names their folder only.
    const paths = Object.keys(document.paths).filter((candidate) => !candidate.startsWith('/api/docs/assets/'));
    const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // A whole path: `/api/` must not count as found inside `/api/v1/voices/`.
    const missing = paths.filter(
      (candidate) => !new RegExp(`(?<![\\w/{}-])${escape(candidate)}(?![\\w/{}-])`).test(reference),
    );
    expect(missing).toEqual([]);
  });

  it('names a licence', () => {
    expect(document.info.license?.name).toEqual(expect.any(String));
    expect(document.info.license.name.length).toBeGreaterThan(0);
  });

  it('passes Redocly’s linter (redocly.yaml) without errors or warnings', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'openvox-openapi-'));
    try {
      const file = path.join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(document));
      const root = path.resolve(__dirname, '../..');
      const cli = path.join(root, 'node_modules/@redocly/cli/bin/cli.js');
      // No telemetry or update check: the linter runs offline.
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
      const run = await promisify(execFile)(
        process.execPath,
        [cli, 'lint', file, '--config', path.join(root, 'redocly.yaml'), '--format', 'json'],
        {
          env,
          timeout: 90_000,
          maxBuffer: 64 * 1024 * 1024,
        },
      ).catch((failed: { stdout?: string; stderr?: string }) => failed);
      const report = JSON.parse(run.stdout ?? '') as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; message: string }[];
      };
      expect(report.problems.map(({ ruleId, message }) => `${ruleId}: ${message}`)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
