/**
 * The dashboard's only way to the server: the public API, with the access
 * token from memory. The refresh token never reaches a script: it lives in
 * the HttpOnly session cookie, and an expired access token is renewed
 * through /auth/session/refresh/.
 */
const API = '/api/v1';
const SESSION_HEADERS = { 'X-OpenVox-Session': '1' };

export interface Problem {
  status: number;
  code: string;
  title?: string;
  detail?: string;
  errors?: Record<string, string[]>;
  request_id?: string;
  /** insufficient_credits: the available balance now, and what the request needed. */
  balance?: number;
  required?: number;
}

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(describeProblem(problem));
  }
  get code(): string {
    return this.problem.code;
  }
  get status(): number {
    return this.problem.status;
  }
}

/** Fields whose names say less than the form's labels. */
const FIELD_LABELS: Record<string, string> = {
  pls: 'PLS file',
  voice_id: 'Voice',
  default_voice_id: 'Default voice',
  output_format: 'Format',
  text_type: 'Text type',
};
/** A field's name as people read it: `pls` → "PLS file", `history_retention_days` → "History retention days". */
const fieldName = (field: string) =>
  field === 'non_field_errors'
    ? ''
    : (FIELD_LABELS[field] ?? field.charAt(0).toUpperCase() + field.slice(1).replace(/_/g, ' '));

/** Each field message as a sentence that names its field in words: "Password must be at least 8 characters." */
export function fieldSentences(problem: Pick<Problem, 'errors'>): string[] {
  return Object.entries(problem.errors ?? {}).flatMap(([field, messages]) =>
    messages.map((message) => {
      const name = fieldName(field);
      if (!name) return message;
      // "Must be …", "Is …": the field is the sentence's subject; anything else follows its name.
      return /^(Must|Is|Has|Cannot|Should) /.test(message)
        ? `${name} ${message.charAt(0).toLowerCase()}${message.slice(1)}`
        : `${name}: ${message}`;
    }),
  );
}

/** One readable sentence from problem details: the detail, then every field message. */
function describeProblem(problem: Problem): string {
  const fields = fieldSentences(problem);
  const detail = problem.detail ?? problem.title ?? `Request failed (${problem.status}).`;
  return fields.length ? fields.join(' ') : detail;
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

let access: string | null = null;
const listeners = new Set<() => void>();
export const isLoggedIn = () => access !== null;
export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
function setAccess(token: string | null): void {
  const changed = (token === null) !== (access === null);
  access = token;
  if (changed) listeners.forEach((listener) => listener());
}

async function problemOf(response: Response): Promise<ApiError> {
  let problem: Problem;
  try {
    problem = (await response.json()) as Problem;
  } catch {
    problem = {
      status: response.status,
      code: 'http_error',
      detail: `The server answered ${response.status} ${response.statusText}.`,
    };
  }
  return new ApiError({ ...problem, status: response.status });
}

/** The server sets this readable marker with the HttpOnly session cookie and clears it with it. */
const mayHaveSession = () => /(?:^|;\s*)openvox_session=1(?:;|$)/.test(document.cookie);

let refreshing: Promise<boolean> | null = null;
/**
 * Renews the access token from the session cookie; one request at a time,
 * shared by every caller. Without the session marker there is nothing to
 * renew, and nothing is asked (an anonymous page logs no failed request).
 */
export function restoreSession(): Promise<boolean> {
  if (!mayHaveSession()) {
    setAccess(null);
    return Promise.resolve(false);
  }
  refreshing ??= fetch(`${API}/auth/session/refresh/`, {
    method: 'POST',
    headers: SESSION_HEADERS,
    credentials: 'same-origin',
  })
    .then(async (response) => {
      if (!response.ok) {
        setAccess(null);
        return false;
      }
      setAccess(((await response.json()) as { access: string }).access);
      return true;
    })
    .catch(() => false)
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

export async function logIn(email: string, password: string): Promise<void> {
  const response = await fetch(`${API}/auth/session/`, {
    method: 'POST',
    headers: { ...SESSION_HEADERS, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
    credentials: 'same-origin',
  });
  if (!response.ok) throw await problemOf(response);
  setAccess(((await response.json()) as { access: string }).access);
}

export async function logOut(): Promise<void> {
  await fetch(`${API}/auth/session/`, { method: 'DELETE', headers: SESSION_HEADERS, credentials: 'same-origin' }).catch(
    () => undefined,
  );
  setAccess(null);
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** A raw authenticated request; renews an expired access token once and retries. */
export async function request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  const send = () => {
    const headers: Record<string, string> = { ...options.headers };
    // The token goes only to this site, never to a URL elsewhere.
    if (access && new URL(path, location.href).origin === location.origin) headers.Authorization = `Bearer ${access}`;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    // Paths of the API as given (`/api/...`, or a full URL such as a catalog preview), else relative to /api/v1/.
    return fetch(/^(https?:)?\//.test(path) ? path : `${API}/${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      credentials: 'same-origin',
    });
  };
  let response = await send();
  if (response.status === 401 && (await restoreSession())) response = await send();
  if (!response.ok) throw await problemOf(response);
  return response;
}

export async function api<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const response = await request(method, path, options);
  return (response.status === 204 ? null : await response.json()) as T;
}

export const get = <T>(path: string, signal?: AbortSignal) => api<T>('GET', path, { signal });

/**
 * A multipart POST with upload progress (fetch cannot report it, XMLHttpRequest can); `path` as for request().
 * Renews an expired access token once; a refusal is an ApiError with the problem's words.
 */
export function upload<T>(path: string, form: FormData, onProgress: (fraction: number) => void): Promise<T> {
  const send = () =>
    new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', path.startsWith('/') ? path : `${API}/${path}`);
      if (access) xhr.setRequestHeader('Authorization', `Bearer ${access}`);
      xhr.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
      xhr.onload = () => {
        let body: unknown = null;
        try {
          body = JSON.parse(xhr.responseText);
        } catch {
          body = { code: 'http_error', detail: `The server answered ${xhr.status}.` };
        }
        resolve({ status: xhr.status, body });
      };
      xhr.onerror = () => reject(new Error('The upload did not reach the server. Check the connection and try again.'));
      xhr.send(form);
    });
  return send().then(async (answer) => {
    if (answer.status === 401 && (await restoreSession())) answer = await send();
    if (answer.status >= 400) throw new ApiError({ ...(answer.body as Problem), status: answer.status });
    return answer.body as T;
  });
}

/** Saves a response's bytes under `name` (an authenticated download: no plain link can send the Authorization header). */
export async function saveResponse(response: Response, name: string): Promise<void> {
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Every item of a paginated list (`path` without page parameters), 100 a page. */
export async function getAll<T>(path: string, signal?: AbortSignal): Promise<Page<T>> {
  const results: T[] = [];
  const joiner = path.includes('?') ? '&' : '?';
  for (let page = 1; ; page++) {
    const answer = await get<Page<T>>(`${path}${joiner}page_size=100&page=${page}`, signal);
    results.push(...answer.results);
    if (!answer.next || answer.results.length === 0)
      return { count: answer.count, next: null, previous: null, results };
  }
}
