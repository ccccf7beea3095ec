import type { Context } from 'koa';
import { z } from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import type { Account } from '../db/models/Account';
import type { Family } from '../synthesis/resources';
import { type FieldErrors, notFound, unsupportedMediaType, validationError } from './errors';

/**
 * One endpoint, described once: its paths in both families, the schemas that
 * validate its input (and document it in OpenAPI), and its handler.
 */

export type { Family };

/** Where a family's paths start: `/api/v1` or `/api`. */
export const familyPrefix = (family: Family): string => (family === 'v1' ? '/api/v1' : '/api');

/** One path in both families: `inBothFamilies('projects/{id}/')` is `/api/v1/projects/{id}/` and `/api/projects/{id}/`. */
export const inBothFamilies = (path: string): Record<Family, string> => ({
  v1: `${familyPrefix('v1')}/${path}`,
  unversioned: `${familyPrefix('unversioned')}/${path}`,
});

type AnyObject = z.ZodObject<z.ZodRawShape>;

export interface Input<P extends AnyObject, Q extends AnyObject, B extends AnyObject> {
  /** The caller, on routes with `auth: true`. */
  account: Account;
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
}

export interface RouteSpec<P extends AnyObject, Q extends AnyObject, B extends AnyObject> {
  method: 'get' | 'post' | 'patch' | 'delete';
  /**
   * OpenAPI-style paths with a trailing slash, e.g. `/api/v1/projects/{id}/`,
   * one per family; operations endpoints (`/healthz`) have one path only.
   */
  paths: Partial<Record<Family, string>>;
  /** Requires `Authorization: Bearer` (an access JWT or an API key). */
  auth?: boolean;
  /** The handler needs only who the caller is: its account row may be up to AUTH_CACHE_SECONDS old (status reads). */
  cachedAccount?: boolean;
  summary: string;
  tags: string[];
  params?: P;
  query?: Q;
  /** A JSON body; its schema should be strict so unknown fields are rejected. */
  body?: B;
  /** A multipart/form-data body the handler reads itself (documented in OpenAPI only). */
  form?: AnyObject;
  /** Request headers the handler reads itself (documented in OpenAPI only). */
  headers?: AnyObject;
  responses: ZodOpenApiOperationObject['responses'];
  handler: (ctx: Context, input: Input<P, Q, B>, family: Family) => Promise<void>;
}

export type Route = RouteSpec<AnyObject, AnyObject, AnyObject>;

/** Keeps the schema types of one route checked against its handler. */
export function defineRoute<
  P extends AnyObject = z.ZodObject<{}>,
  Q extends AnyObject = z.ZodObject<{}>,
  B extends AnyObject = z.ZodObject<{}>,
>(spec: RouteSpec<P, Q, B>): Route {
  return spec as unknown as Route;
}

const empty = z.object({});

function fieldName(path: PropertyKey[]): string {
  return path.length ? path.map(String).join('.') : 'non_field_errors';
}

// Client-facing wording for zod's generic messages; a schema's own message still wins.
z.config({
  customError: (issue) => {
    if (issue.code !== 'invalid_type') return undefined;
    return issue.input === undefined ? 'This field is required.' : `Must be of type ${issue.expected}.`;
  },
});

function messageFor(issue: z.core.$ZodIssue): string {
  return issue.message.endsWith('.') ? issue.message : `${issue.message}.`;
}

/** At most this many fields are named in one problem's `errors`: a body with 900 unknown keys gets a short answer. */
export const MAX_FIELD_ERRORS = 20;
const MORE_PROBLEMS = 'More problems were found; fix these first.';

/** Collects field errors up to MAX_FIELD_ERRORS fields; the last slot says that more were left out. */
class FieldErrorList {
  readonly errors: FieldErrors = {};
  private fields = 0;
  full = false;

  add(field: string, message: string): void {
    // Own properties only: a field named `constructor` must not find Object.prototype's.
    if (Object.hasOwn(this.errors, field)) {
      if (!this.errors[field].includes(message)) this.errors[field].push(message);
      return;
    }
    if (this.full) return;
    if (this.fields === MAX_FIELD_ERRORS - 1) {
      this.full = true;
      this.errors.non_field_errors ??= [];
      this.errors.non_field_errors.push(MORE_PROBLEMS);
      return;
    }
    this.errors[field] = [message];
    this.fields++;
  }
}

/** Zod issues as API.md's `errors` member: field -> messages; unknown fields are named one by one, up to MAX_FIELD_ERRORS. */
export function toFieldErrors(error: z.ZodError): FieldErrors {
  const list = new FieldErrorList();
  for (const issue of error.issues) {
    if (list.full) break;
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) list.add(fieldName([...issue.path, key]), 'Unknown field.');
    } else {
      list.add(fieldName(issue.path), messageFor(issue));
    }
  }
  return list.errors;
}

/**
 * Finds strings (and member names) holding a NUL character anywhere in parsed
 * input, without recursion: an explicit stack, at most MAX_FIELD_ERRORS
 * findings. JSON bodies reach it already bounded in depth and size (api/jsonBody.ts).
 */
function nulFields(value: unknown): FieldErrors {
  const list = new FieldErrorList();
  const NUL = 'Must not contain NUL characters.';
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value, path: [] }];
  while (stack.length > 0 && !list.full) {
    const { value: current, path } = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) list.add(fieldName(path), NUL);
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--)
        stack.push({ value: current[index], path: [...path, index] });
    } else if (current && typeof current === 'object') {
      const entries = Object.entries(current);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, item] = entries[index];
        if (key.includes('\u0000')) list.add(fieldName(path), NUL);
        stack.push({ value: item, path: [...path, key] });
      }
    }
  }
  return list.errors;
}

/** Throws 400 validation_error naming every field whose string holds a NUL (JSON bodies, query strings, form fields). */
export function rejectNul(value: unknown): void {
  const nul = nulFields(value);
  if (Object.keys(nul).length) throw validationError(nul);
}

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  rejectNul(value);
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(toFieldErrors(result.error));
  return result.data;
}

function isJson(ctx: Context): boolean {
  return Boolean(ctx.is('application/json', 'application/*+json'));
}

/** Validates params, query and (JSON) body of a request against the route's schemas. */
export function readInput(ctx: Context, route: Route): Omit<Input<AnyObject, AnyObject, AnyObject>, 'account'> {
  // A malformed id in the path names no resource: 404, like an unknown one.
  const params = (route.params ?? empty).safeParse(ctx.params ?? {});
  if (!params.success) throw notFound();
  const query = parseOrThrow(route.query ?? empty, ctx.query);
  let body = {};
  if (route.body) {
    const hasBody = ctx.request.length > 0 || ctx.get('Transfer-Encoding') !== '';
    if (hasBody && !isJson(ctx)) throw unsupportedMediaType('The request body must be application/json.');
    body = parseOrThrow(route.body, hasBody ? ctx.request.body : {});
  }
  return { params: params.data, query, body };
}

/** `/api/v1/projects/{id}/` -> `/api/v1/projects/:id` (the router accepts an optional trailing slash). */
export function routerPath(openApiPath: string): string {
  return openApiPath.replace(/\{(\w+)\}/g, ':$1').replace(/(.)\/$/, '$1');
}
