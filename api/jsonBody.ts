import bourne from '@hapi/bourne';
import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { invalidJson, validationError } from './errors';

// inflation ships no types: it returns the request, or a decompressing stream for gzip/deflate/br.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const inflate = require('inflation') as (req: NodeJS.ReadableStream) => NodeJS.ReadableStream;

/**
 * Reads JSON request bodies with bounds checked on the raw text, before any
 * parsing or recursive work: at most 1 MiB, nested at most MAX_JSON_DEPTH
 * levels, at most MAX_JSON_MEMBERS members and array items in all. Every body
 * the API accepts is one flat object; the limits leave wide margins and make
 * the cost of a hostile body one linear scan that stops at the first excess.
 */
const JSON_LIMIT_BYTES = 1024 * 1024;
export const MAX_JSON_DEPTH = 16;
export const MAX_JSON_MEMBERS = 1000;

const JSON_TYPES = ['application/json', 'application/*+json'];
// DELETE too: deleting the account carries the password.
const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export type JsonBounds = 'ok' | 'too_deep' | 'too_many_members';

/** One pass over JSON text: nesting depth and the number of members/items (commas outside strings, plus one). */
export function checkJsonBounds(text: string, maxDepth = MAX_JSON_DEPTH, maxMembers = MAX_JSON_MEMBERS): JsonBounds {
  let depth = 0;
  let separators = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return 'too_deep';
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && ++separators >= maxMembers) return 'too_many_members';
  }
  return 'ok';
}

const tooDeep = () => invalidJson(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`);
const tooManyMembers = () =>
  validationError({ non_field_errors: [`The JSON body has more than ${MAX_JSON_MEMBERS} members.`] });

/**
 * The API's JSON body parser (for POST, PUT and PATCH with a JSON content
 * type): size, depth and member limits, then a parse that refuses
 * `__proto__` members. Only objects and arrays are accepted at the top; an
 * empty body reads as `{}`. Parser errors keep the shapes api/failures.ts maps.
 */
export function jsonBody(): Middleware {
  return async (ctx, next) => {
    if (!PARSED_METHODS.has(ctx.method) || !ctx.is(JSON_TYPES)) return next();
    const length = ctx.get('Content-Length');
    const encoding = ctx.get('Content-Encoding') || 'identity';
    const text = await getRawBody(inflate(ctx.req) as never, {
      limit: JSON_LIMIT_BYTES,
      encoding: 'utf-8',
      ...(length && encoding === 'identity' && { length: Number(length) }),
    });
    ctx.request.body = parseJsonBody(text);
    return next();
  };
}

/** Bounds first, then the parse; throws ApiErrors or the parser's SyntaxError. */
export function parseJsonBody(text: string): unknown {
  if (!text) return {};
  const bounds = checkJsonBounds(text);
  if (bounds === 'too_deep') throw tooDeep();
  if (bounds === 'too_many_members') throw tooManyMembers();
  if (!/^[\x20\x09\x0a\x0d]*[[{]/.test(text))
    throw Object.assign(new SyntaxError('only objects and arrays'), { status: 400 });
  try {
    return bourne.parse(text, { protoAction: 'error' });
  } catch (error) {
    throw Object.assign(error as Error, { status: 400 });
  }
}

declare module 'koa' {
  interface Request {
    /** The parsed JSON body (jsonBody), or undefined for other requests. */
    body?: unknown;
  }
}
