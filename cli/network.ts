/**
 * Why a request never got an answer, in words and as a code a script can
 * test. Node's fetch says only "fetch failed"; the reason is in its `cause`
 * (a system error: ECONNREFUSED with the address, ENOTFOUND with the host, a
 * TLS code) or it is an abort by timeout.
 */

export interface NetworkFailure {
  /** For `--json`: connection_refused, host_not_found, tls_failed, timed_out, connection_reset, network_unreachable, network_error. */
  code: string;
  /** The system's code and where, e.g. `ECONNREFUSED 127.0.0.1:3000`, `ENOTFOUND tts.example.invalid`. */
  cause: string;
  /** The cause and what it means, e.g. `ECONNREFUSED 127.0.0.1:3000 (connection refused)`. */
  detail: string;
}

/** A request that got no answer. */
export class NetworkError extends Error {
  constructor(
    readonly code: string,
    /** The system's code and where (NetworkFailure's `cause`). */
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

interface SystemError {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  cause?: unknown;
  errors?: unknown;
}

const TLS_CODE = /^(CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

const KINDS: ReadonlyArray<[RegExp, string, string]> = [
  [/^ECONNREFUSED$/, 'connection_refused', 'connection refused: nothing listens there'],
  [/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)$/, 'host_not_found', 'host not found: DNS has no address for it'],
  [/^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT)$/, 'timed_out', 'timed out'],
  [/^(ECONNRESET|EPIPE|UND_ERR_SOCKET|ECONNABORTED)$/, 'connection_reset', 'the connection was closed'],
  [/^(EHOSTUNREACH|ENETUNREACH|ENETDOWN|EHOSTDOWN)$/, 'network_unreachable', 'no route to it'],
  [TLS_CODE, 'tls_failed', 'TLS failed'],
];

const asObject = (value: unknown): SystemError | null =>
  typeof value === 'object' && value !== null ? (value as SystemError) : null;

/** The deepest error with a system code (or a timeout) in the cause chain, the first of an AggregateError's. */
function rootCause(error: unknown): SystemError | null {
  let found: SystemError | null = null;
  let current = asObject(error);
  for (let depth = 0; current && depth < 8; depth++) {
    if (typeof current.code === 'string' || current.name === 'TimeoutError') found = current;
    const inner = Array.isArray(current.errors) ? current.errors[0] : undefined;
    current = asObject(current.cause) ?? asObject(inner);
  }
  return found;
}

/** Why `error` (thrown by fetch, or an error whose cause it is) got no answer; null when it is not a network failure. */
export function networkFailure(error: unknown): NetworkFailure | null {
  const root = rootCause(error);
  if (!root) {
    // fetch's own refusals without a system code ("bad port"): the cause's words.
    const fetchFailed = asObject(error);
    const cause = asObject(fetchFailed?.cause);
    if (fetchFailed?.message === 'fetch failed' && typeof cause?.message === 'string')
      return { code: 'network_error', cause: cause.message, detail: cause.message };
    return null;
  }
  if (root.name === 'TimeoutError')
    return { code: 'timed_out', cause: 'timeout', detail: 'timed out: no answer in time' };
  const code = String(root.code);
  const where =
    typeof root.address === 'string'
      ? ` ${root.address.includes(':') ? `[${root.address}]` : root.address}${root.port !== undefined ? `:${String(root.port)}` : ''}`
      : typeof root.hostname === 'string'
        ? ` ${root.hostname}`
        : '';
  const cause = `${code}${where}`;
  const kind = KINDS.find(([pattern]) => pattern.test(code));
  if (!kind) {
    const words = typeof root.message === 'string' ? root.message : 'network error';
    return { code: 'network_error', cause, detail: `${cause} (${words})` };
  }
  const [, kindCode, words] = kind;
  const tlsWords = kindCode === 'tls_failed' && typeof root.message === 'string' ? `${words}: ${root.message}` : words;
  return { code: kindCode, cause, detail: `${cause} (${tlsWords})` };
}
