import { z } from 'zod';
import { resourceRoutes } from '../../api/app';
import type { ApiDeps } from '../../api/deps';
import { buildOpenApiDocument } from '../../api/openapi';
import type { Route } from '../../api/route';
import { loadConfig } from '../../lib/config';

/**
 * Issue 14 (contract drift): the OpenAPI document must be as strict as the
 * validators. Every constraint a route's zod schema checks (lengths, formats,
 * ranges, enums, strictness, and refinements, which must say in `.meta()`
 * what they check) must appear at the same place in the document.
 */

type Json = Record<string, any>;

// Handlers are never called here; the routes only need deps to exist.
const config = loadConfig({ JWT_SECRET: 'x'.repeat(32) });
const routes: Route[] = resourceRoutes({ config } as ApiDeps);
const document = buildOpenApiDocument(routes, config.PUBLIC_URL, 'test') as Json;

/** JSON Schema keywords a refinement's `.meta()` may use to say what it checks. */
const CONSTRAINT_KEYWORDS = [
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'minProperties',
  'enum',
  'minItems',
  'maxItems',
];

interface Expected {
  where: string;
  keyword: string;
  value?: unknown;
}

const defOf = (schema: z.ZodType): Json => (schema as any)._zod.def;

/** The constraints one zod schema node checks, as JSON Schema keywords (with values where they must match). */
function constraintsOf(schema: z.ZodType, where: string, meta: Json): Expected[] {
  const def = defOf(schema);
  const out: Expected[] = [];
  if (def.format && def.check === 'string_format')
    out.push({
      where,
      keyword: def.format === 'regex' ? 'pattern' : 'format',
      ...(def.format !== 'regex' && { value: def.format }),
    });
  for (const check of (def.checks ?? []) as z.ZodType[]) {
    const c = defOf(check);
    // zod names a length check the same on strings and arrays; JSON Schema says minItems/maxItems for arrays.
    if (c.check === 'min_length')
      out.push({ where, keyword: def.type === 'array' ? 'minItems' : 'minLength', value: c.minimum });
    else if (c.check === 'max_length')
      out.push({ where, keyword: def.type === 'array' ? 'maxItems' : 'maxLength', value: c.maximum });
    else if (c.check === 'greater_than')
      out.push({ where, keyword: c.inclusive ? 'minimum' : 'exclusiveMinimum', value: c.value });
    else if (c.check === 'less_than')
      out.push({ where, keyword: c.inclusive ? 'maximum' : 'exclusiveMaximum', value: c.value });
    else if (c.check === 'string_format') out.push({ where, keyword: c.format === 'regex' ? 'pattern' : 'format' });
    else if (c.check === 'custom') {
      // A refinement is opaque to the generator: its meta must name what it checks.
      const said = CONSTRAINT_KEYWORDS.filter((keyword) => keyword in meta);
      if (said.length === 0) out.push({ where, keyword: '(a refinement without a documented keyword)' });
      for (const keyword of said) out.push({ where, keyword, value: meta[keyword] });
    }
  }
  if (def.type === 'enum') out.push({ where, keyword: 'enum' });
  if (def.type === 'object' && def.catchall && defOf(def.catchall).type === 'never')
    out.push({ where, keyword: 'additionalProperties', value: false });
  return out;
}

/**
 * Every constraint of a schema and of the schemas inside it, with the
 * document's path to each. `inherited` is the meta of the enclosing wrappers
 * (a `.meta()` on a pipe documents the checks inside it).
 */
function allConstraints(schema: z.ZodType, where: string, inherited: Json = {}): Expected[] {
  const def = defOf(schema);
  const meta = { ...inherited, ...((z.globalRegistry.get(schema) ?? {}) as Json) };
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'nullable':
    case 'prefault':
      return allConstraints(def.innerType, where, meta);
    case 'pipe':
      // Both sides validate; the document shows the input side, so the output side's checks must be in the meta.
      return [...allConstraints(def.in, where, meta), ...allConstraints(def.out, where, meta)];
    case 'transform':
      return [];
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      return [
        ...constraintsOf(schema, where, meta),
        ...Object.entries(shape).flatMap(([key, value]) => allConstraints(value, `${where}.properties.${key}`)),
      ];
    }
    default:
      return constraintsOf(schema, where, meta);
  }
}

/** The document's schema at a dotted path, with $refs followed. */
function documentAt(root: Json, where: string): Json | undefined {
  let node: Json | undefined = root;
  for (const part of where.split('.')) {
    while (node && typeof node.$ref === 'string') node = document.components.schemas[node.$ref.split('/').pop()!];
    node = node?.[part];
  }
  while (node && typeof node.$ref === 'string') node = document.components.schemas[node.$ref.split('/').pop()!];
  return node;
}

/** Where a route's schemas sit in the document: body, query and path parameters. */
function cases(): [string, z.ZodType, Json, string][] {
  const found: [string, z.ZodType, Json, string][] = [];
  for (const route of routes) {
    for (const path of Object.values(route.paths)) {
      const operation = document.paths[path!][route.method];
      if (route.body) {
        found.push([
          `${route.method.toUpperCase()} ${path} body`,
          route.body,
          operation.requestBody.content['application/json'],
          'schema',
        ]);
      }
      for (const [location, schema] of [
        ['query', route.query],
        ['path', route.params],
      ] as const) {
        if (!schema) continue;
        for (const [name, field] of Object.entries((schema as z.ZodObject).shape)) {
          const parameter = operation.parameters.find((p: Json) => p.in === location && p.name === name);
          found.push([
            `${route.method.toUpperCase()} ${path} ${location} ${name}`,
            field as z.ZodType,
            parameter,
            'schema',
          ]);
        }
      }
    }
  }
  return found;
}

describe('the OpenAPI document is as strict as the validators', () => {
  it.each(cases())('%s: every zod constraint appears in the document', (_label, schema, container, root) => {
    const missing: string[] = [];
    for (const expected of allConstraints(schema, root)) {
      const node = documentAt(container, expected.where);
      if (!node || !(expected.keyword in node)) missing.push(`${expected.where}: ${expected.keyword}`);
      else if (
        expected.value !== undefined &&
        JSON.stringify(node[expected.keyword]) !== JSON.stringify(expected.value)
      ) {
        missing.push(
          `${expected.where}: ${expected.keyword} is ${JSON.stringify(node[expected.keyword])}, the validator says ${JSON.stringify(expected.value)}`,
        );
      }
    }
    expect(missing).toEqual([]);
  });

  it('documents the rules the issue named: email format, password minimum, non-empty names and text, PATCH needs a field', () => {
    const body = (path: string, method: string) =>
      documentAt(document.paths[path][method].requestBody.content['application/json'], 'schema')!;
    expect(body('/api/v1/auth/register/', 'post').properties.email.format).toBe('email');
    expect(body('/api/v1/auth/register/', 'post').properties.password.minLength).toBe(8);
    expect(body('/api/v1/projects/', 'post').properties.name.minLength).toBe(1);
    expect(body('/api/v1/tts/synthesize/', 'post').properties.text.minLength).toBe(1);
    expect(body('/api/v1/projects/{id}/', 'patch').minProperties).toBe(1);
  });
});
