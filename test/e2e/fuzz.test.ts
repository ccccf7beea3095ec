import fc from 'fast-check';
import { buildOpenApiDocument } from '../../api/openapi';
import { resourceRoutes } from '../../api/app';
import { createAccount, createProject, type TestAccount } from '../helpers/factories';
import { call, sendRaw } from '../helpers/http';
import { errorShapeErrors, type JsonEndpoint, jsonEndpoints } from '../helpers/jsonRoutes';
import { useStack } from '../helpers/stack';

/**
 * Issue 14: property-based fuzzing of every JSON route in both families.
 * Bodies come from each route's own schema (through the OpenAPI document the
 * zod schemas generate), valid ones and hostile mutations of them. The
 * properties: never a 5xx, and every 4xx is problem+json with API.md's members.
 * Bounded (RUNS per endpoint, fixed seed) so the suite stays fast; set
 * FUZZ_RUNS and FUZZ_SEED to search longer or elsewhere.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = Number(process.env.FUZZ_SEED ?? 14);

type Json = Record<string, any>;

const { deps, api } = useStack();
let account: TestAccount;
let projectId: string;
beforeAll(async () => {
  account = await createAccount(deps, { credits: 0 });
  projectId = await createProject(deps, account, 'fuzz');
});

const document = buildOpenApiDocument(resourceRoutes(deps), deps.config.PUBLIC_URL, 'fuzz') as Json;

const resolve = (schema: Json): Json =>
  schema?.$ref ? resolve(document.components.schemas[schema.$ref.split('/').pop()]) : schema;

/** Names an object literal inherits: a lookup of user input in a plain object finds them (`voice: "constructor"` was a 500). */
const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'CONSTRUCTOR',
  '__defineGetter__',
  'isPrototypeOf',
];

/** Values the review and the issue named, for any field. */
const HOSTILE_VALUES: unknown[] = [
  1e-300,
  -1e-300,
  1e308,
  -1e308,
  0,
  -0,
  2 ** 53 + 1,
  0.1 + 0.2,
  'NaN',
  'Infinity',
  '-Infinity',
  '1e400',
  '',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '\u0001\u001f\u007f',
  '\u202e\u2028\u2029',
  '\r\n',
  'x'.repeat(100_000),
  '<script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%00',
  '\\u0000',
  ...PROTOTYPE_NAMES,
  null,
  true,
  false,
  [],
  {},
  [null],
  { a: { b: { c: {} } } },
];

const hostileValue = fc.oneof(fc.constantFrom(...HOSTILE_VALUES), fc.jsonValue({ maxDepth: 3 }));

/** An arbitrary for values a JSON Schema (as zod-openapi writes them) accepts. */
function arbitraryFor(raw: Json): fc.Arbitrary<unknown> {
  const schema = resolve(raw);
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const options: fc.Arbitrary<unknown>[] = [];
  for (const type of types) {
    if (type === 'string') {
      if (schema.format === 'email')
        options.push(fc.emailAddress().filter((email) => email.length <= (schema.maxLength ?? 254)));
      else if (schema.format === 'uuid') options.push(fc.uuid());
      else {
        const string = fc.string({
          minLength: schema.minLength ?? 0,
          maxLength: Math.min(schema.maxLength ?? 300, 300),
          unit: 'grapheme',
        });
        options.push(schema.pattern ? string.filter((value) => new RegExp(schema.pattern, 'u').test(value)) : string);
      }
    } else if (type === 'number' || type === 'integer') {
      const bounds = { min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6 };
      options.push(type === 'integer' ? fc.integer(bounds) : fc.double({ ...bounds, noNaN: true }));
    } else if (type === 'boolean') options.push(fc.boolean());
    else if (type === 'null') options.push(fc.constant(null));
    else if (type === 'object') options.push(objectArbitrary(schema));
  }
  return options.length ? fc.oneof(...options) : fc.jsonValue({ maxDepth: 2 });
}

function objectArbitrary(schema: Json): fc.Arbitrary<Json> {
  const properties: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries<Json>(schema.properties ?? {}))
    properties[name] = arbitraryFor(property);
  return fc
    .record(properties, { requiredKeys: schema.required ?? [] })
    .filter((body) => Object.keys(body).length >= (schema.minProperties ?? 0));
}

/** A valid body, or one mutation of it: a field dropped, an unknown field, a hostile value, or a hostile body. */
function bodyArbitrary(schema: Json): fc.Arbitrary<string> {
  const valid = objectArbitrary(schema);
  const names = Object.keys(schema.properties ?? {});
  const field = names.length ? fc.constantFrom(...names) : fc.constant('x');
  const mutated = fc.oneof(
    valid,
    fc.tuple(valid, field).map(([body, name]) => {
      const { [name]: _dropped, ...rest } = body;
      return rest;
    }),
    fc
      .tuple(valid, fc.string({ minLength: 1, maxLength: 20 }), hostileValue)
      .map(([body, name, value]) => ({ ...body, [name]: value })),
    fc.tuple(valid, field, hostileValue).map(([body, name, value]) => ({ ...body, [name]: value })),
    hostileValue,
  );
  return fc.oneof(
    { weight: 9, arbitrary: mutated.map((body) => JSON.stringify(body) ?? 'null') },
    // Raw text no serializer would write: cut JSON, lone surrogate escapes, deep nesting.
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"a":',
        '{"x":"\\ud800"}',
        '['.repeat(40) + ']'.repeat(40),
        '{"a":1,"a":2}',
        '',
        ' ',
        '{}garbage',
      ),
    },
  );
}

function requestSchema(endpoint: JsonEndpoint, openApiPath: string): Json {
  const operation = document.paths[openApiPath][endpoint.method.toLowerCase()];
  return resolve(operation.requestBody.content['application/json'].schema);
}

describe('fuzzing every JSON route from its own schema', () => {
  const endpoints = () =>
    jsonEndpoints(deps, () => projectId).map((endpoint) => ({
      endpoint,
      openApiPath: Object.values(endpoint.route.paths).find(
        (path) => path!.replace(/\{\w+\}/g, projectId) === endpoint.path,
      )!,
    }));

  it('covers both families of every JSON route', () => {
    const labels = endpoints().map(({ endpoint }) => endpoint.label);
    expect(labels).toEqual(
      expect.arrayContaining([
        'POST /api/v1/auth/register/',
        'POST /api/auth/register/',
        'PATCH /api/projects/{id}/',
        'POST /api/tts/synthesize/',
      ]),
    );
    expect(labels.length).toBeGreaterThanOrEqual(20);
  });

  it(`answers ${RUNS} generated bodies per route with no 5xx and every 4xx as problem+json`, async () => {
    let requests = 0;
    const statuses = new Map<number, number>();
    for (const { endpoint, openApiPath } of endpoints()) {
      const schema = requestSchema(endpoint, openApiPath);
      await fc.assert(
        fc.asyncProperty(bodyArbitrary(schema), async (body) => {
          const reply = await sendRaw(
            `${api.url}${endpoint.path}`,
            endpoint.method,
            body,
            endpoint.auth ? account.access : undefined,
          );
          requests++;
          statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
          if (reply.status >= 500) throw new Error(`${endpoint.label}: ${reply.status} for ${body.slice(0, 300)}`);
          if (reply.status >= 400) {
            const shape = errorShapeErrors(endpoint.path, reply);
            if (shape.length)
              throw new Error(
                `${endpoint.label}: ${reply.status} not in its error shape (${shape.join(', ')}) for ${body.slice(0, 300)}`,
              );
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    }
    if (process.env.FUZZ_REPORT) console.log(`fuzz: ${requests} requests`, Object.fromEntries([...statuses].sort()));
    expect(requests).toBeGreaterThanOrEqual(RUNS * 20);
    // Some generated bodies must pass validation, or the fuzzing only tests the validator.
    expect([...statuses.keys()].some((status) => status < 300)).toBe(true);
  });

  it('answers every string field set to a prototype name (constructor, __proto__, …) with no 5xx', async () => {
    let checked = 0;
    for (const { endpoint, openApiPath } of endpoints()) {
      const schema = requestSchema(endpoint, openApiPath);
      const [valid] = fc.sample(objectArbitrary(schema), { seed: SEED, numRuns: 1 });
      const stringFields = Object.entries<Json>(schema.properties ?? {}).filter(([, property]) => {
        const types = resolve(property).type;
        return types === 'string' || (Array.isArray(types) && types.includes('string'));
      });
      for (const [name] of stringFields) {
        for (const value of PROTOTYPE_NAMES) {
          const body = JSON.stringify({ ...valid, [name]: value });
          const reply = await sendRaw(
            `${api.url}${endpoint.path}`,
            endpoint.method,
            body,
            endpoint.auth ? account.access : undefined,
          );
          checked++;
          if (reply.status >= 500) throw new Error(`${endpoint.label}: ${reply.status} for ${name}=${value}`);
          if (reply.status >= 400)
            expect([endpoint.label, name, value, errorShapeErrors(endpoint.path, reply)]).toEqual([
              endpoint.label,
              name,
              value,
              [],
            ]);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  /**
   * Issue 41, item 5: SSML attribute values are looked up in tables too. A
   * strength of "__proto__" lifted the break cap, a rate of "constructor" was
   * NaN. Every attribute (and element name) gets every prototype name: never
   * a 5xx, and a value that must be one of a list is refused.
   */
  it('answers every SSML attribute set to a prototype name with no 5xx, and refuses enumerated ones', async () => {
    const ATTRIBUTES: Array<[string, (value: string) => string, 'refused' | 'any']> = [
      ['break strength', (v) => `a <break strength="${v}"/> b`, 'refused'],
      ['break time', (v) => `a <break time="${v}"/> b`, 'refused'],
      ['prosody rate', (v) => `<prosody rate="${v}">a</prosody>`, 'refused'],
      ['prosody pitch', (v) => `<prosody pitch="${v}">a</prosody>`, 'refused'],
      ['prosody volume', (v) => `<prosody volume="${v}">a</prosody>`, 'refused'],
      ['emphasis level', (v) => `<emphasis level="${v}">a</emphasis>`, 'refused'],
      ['say-as interpret-as', (v) => `<say-as interpret-as="${v}">5</say-as>`, 'any'],
      ['say-as format', (v) => `<say-as interpret-as="date" format="${v}">5/3</say-as>`, 'refused'],
      ['say-as detail', (v) => `<say-as interpret-as="cardinal" detail="${v}">5</say-as>`, 'any'],
      ['sub alias', (v) => `<sub alias="${v}">a</sub>`, 'any'],
      ['phoneme alphabet', (v) => `<phoneme alphabet="${v}" ph="a">a</phoneme>`, 'any'],
      ['phoneme ph', (v) => `<phoneme ph="${v}">a</phoneme>`, 'any'],
      ['s xml:lang', (v) => `<s xml:lang="${v}">a</s>`, 'any'],
      ['lang xml:lang', (v) => `<lang xml:lang="${v}">a</lang>`, 'any'],
      ['mark name', (v) => `a <mark name="${v}"/> b`, 'any'],
      ['an attribute named so', (v) => `a <break time="1s" ${v}="x"/> b`, 'any'],
      ['an element named so', (v) => `a <${v}>b</${v}>`, 'any'],
    ];
    // An account per attribute: previews are rate limited per account.
    for (const [label, markup, expected] of ATTRIBUTES) {
      const who = await createAccount(deps, { credits: 0 });
      for (const value of PROTOTYPE_NAMES) {
        const text = `<speak>${markup(value)}</speak>`;
        const reply = await call(api.url, 'POST', '/api/v1/tts/normalize/', { text, language: 'en-US' }, who.access);
        if (reply.status >= 500) throw new Error(`${label}=${value}: ${reply.status}`);
        if (reply.status >= 400)
          expect([label, value, errorShapeErrors('/api/v1/tts/normalize/', reply)]).toEqual([label, value, []]);
        expect([label, value, reply.status]).toEqual([label, value, expected === 'refused' ? 400 : expect.any(Number)]);
      }
    }
  });
});
