/**
 * The one HTTP kit of the tests: a reply type, a request helper for JSON and
 * one for raw bodies, and the assertion every error test makes (API.md's
 * problem+json shape).
 */

/** A reply as tests read it: status, headers, the body parsed when it is JSON (else its text), and the raw text. */
export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** Reads a fetch response into a Reply; a body that is not JSON stays text, so assertions on it show what came. */
export async function readReply(response: Response): Promise<Reply> {
  const text = await response.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** JSON over fetch: `body` (when given) is sent as JSON, `token` as a bearer token. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  return readReply(
    await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
  );
}

/**
 * `call` for the paths below `prefix`, as `owner` unless another account is given: `owner` is read at each
 * request, so a view of an account not made yet (useAccount) does.
 */
export function requestsBelow(api: { url: string }, prefix: string, owner: { access: string }) {
  return (method: string, path: string, body?: unknown, who: { access: string } = owner): Promise<Reply> =>
    call(api.url, method, `${prefix}${path}`, body, who.access);
}

/** `POST /v1/audio/speech` as `token`: the Response itself, so that a test reads the stream at its own pace. */
export function postSpeech(url: string, token: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${url}/v1/audio/speech`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** A request with a raw (possibly invalid) JSON text body. */
export async function sendRaw(
  url: string,
  method: string,
  body: string,
  token?: string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return readReply(
    await fetch(url, {
      method,
      body,
      headers: { 'Content-Type': 'application/json', ...(token && { Authorization: `Bearer ${token}` }), ...headers },
    }),
  );
}

/** The problem+json shape of API.md for any 4xx: the members, and request_id matching the header. */
export function problemShapeErrors(reply: Reply): string[] {
  const errors: string[] = [];
  if (!/^application\/problem\+json/.test(reply.headers.get('content-type') ?? ''))
    errors.push(`content-type ${reply.headers.get('content-type')}`);
  const body = reply.body ?? {};
  if (body.status !== reply.status) errors.push(`status member ${body.status}`);
  if (typeof body.code !== 'string' || body.type !== `/api/docs/errors#${body.code}`)
    errors.push(`code/type ${body.code} ${body.type}`);
  if (typeof body.title !== 'string' || typeof body.detail !== 'string') errors.push('title/detail');
  if (body.request_id !== reply.headers.get('x-request-id')) errors.push('request_id');
  if (body.errors !== undefined) {
    const ok =
      body.errors &&
      typeof body.errors === 'object' &&
      Object.values(body.errors).every((list) => Array.isArray(list) && list.every((m) => typeof m === 'string'));
    if (!ok) errors.push('errors member');
  }
  return errors;
}

/**
 * Asserts `reply` is the problem `status`/`code` (code unchecked when omitted)
 * in API.md's shape: problem+json, type, status, code, title, detail, a
 * request_id matching the X-Request-Id header. Returns the problem body.
 */
export function expectProblem(reply: Reply, status: number, code?: string): any {
  expect({ status: reply.status, code: reply.body?.code }).toEqual({ status, code: code ?? reply.body?.code });
  expect(problemShapeErrors(reply)).toEqual([]);
  return reply.body;
}

/** Pagination queries every list endpoint refuses (400 validation_error), each with the field it names. */
export const BAD_PAGE_QUERIES: [query: string, field: 'page' | 'page_size'][] = [
  ['page_size=0', 'page_size'],
  ['page_size=101', 'page_size'],
  ['page_size=-1', 'page_size'],
  ['page_size=abc', 'page_size'],
  ['page=0', 'page'],
  ['page=1.5', 'page'],
  ['page=abc', 'page'],
];
