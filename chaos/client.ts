import { randomUUID } from 'node:crypto';
import type { StackAccount } from '../scripts/isolatedStack';

/**
 * The chaos suite's HTTP clients: what a careful API client does. A submit
 * with an Idempotency-Key is retried with the same key and body on a
 * connection failure, a 5xx, a 429 or a 409 idempotency_key_in_use, until it
 * gets another answer; every loop is bounded in attempts and time.
 */

export interface Answer {
  /** HTTP status, or 0 when no answer came (refused, reset, timed out). */
  status: number;
  code?: string;
  id?: string;
  replayed: boolean;
}

export interface SynthesizeBody {
  text: string;
  voice_id: string;
  output_format?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** One request's own limit: above the API's 15 s step deadline, below a stuck forever. */
const REQUEST_TIMEOUT_MS = 30_000;

async function send(
  apiUrl: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  try {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    let parsed: { id?: string; code?: string } = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      // Not JSON (a proxy page, a cut-off body): the status says enough.
    }
    return {
      status: response.status,
      code: parsed.code,
      id: parsed.id,
      replayed: response.headers.get('idempotent-replayed') === 'true',
    };
  } catch {
    return { status: 0, replayed: false };
  }
}

export const submit = (apiUrl: string, account: StackAccount, body: SynthesizeBody, key?: string) =>
  send(apiUrl, 'POST', '/api/v1/tts/synthesize/', account.token, body, key ? { 'Idempotency-Key': key } : {});

export const deleteSynthesis = (apiUrl: string, account: StackAccount, id: string) =>
  send(apiUrl, 'DELETE', `/api/v1/tts/history/${id}/`, account.token);

const retryable = (answer: Answer) =>
  answer.status === 0 ||
  answer.status >= 500 ||
  answer.status === 429 ||
  (answer.status === 409 && answer.code === 'idempotency_key_in_use');

export interface Outcome {
  account: StackAccount;
  key: string;
  /** The answer the client settled on (the last one when the bound ran out). */
  final: Answer;
  attempts: Answer[];
  /** When the client started and when it settled (epoch ms). */
  startedAt: number;
  settledAt: number;
  /** True when the bound ran out before an answer other than a retryable one. */
  exhausted: boolean;
}

export interface RetryBound {
  maxAttempts: number;
  deadlineMs: number;
}

/** Repeats `attempt` while its answer is retryable, with capped backoff and jitter. */
export async function untilAnswered(
  attempt: () => Promise<Answer>,
  bound: RetryBound,
): Promise<{ final: Answer; attempts: Answer[]; exhausted: boolean }> {
  const attempts: Answer[] = [];
  const deadline = Date.now() + bound.deadlineMs;
  for (let delay = 200; ; delay = Math.min(delay * 1.5, 2_000)) {
    const answer = await attempt();
    attempts.push(answer);
    if (!retryable(answer)) return { final: answer, attempts, exhausted: false };
    if (attempts.length >= bound.maxAttempts || Date.now() + delay > deadline)
      return { final: answer, attempts, exhausted: true };
    await sleep(delay * (0.75 + Math.random() * 0.5));
  }
}

/** Submits with a fresh Idempotency-Key and retries with that key and body until answered. */
export async function submitWithKey(
  apiUrl: string,
  account: StackAccount,
  body: SynthesizeBody,
  bound: RetryBound,
): Promise<Outcome> {
  const key = `chaos-${randomUUID()}`;
  const startedAt = Date.now();
  const result = await untilAnswered(() => submit(apiUrl, account, body, key), bound);
  return { account, key, startedAt, settledAt: Date.now(), ...result };
}

/** Tallies answers by status ("0" for no answer). */
export function tally(answers: Answer[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const answer of answers) {
    const label =
      answer.status === 0 ? 'no answer' : answer.code ? `${answer.status} ${answer.code}` : String(answer.status);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return counts;
}

export const formatTally = (counts: Map<string, number>) =>
  [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([label, count]) => `${count} × ${label}`)
    .join(', ') || 'none';

/** One JSON request as `account`, its answer parsed (null when no answer came or it was not JSON). */
export async function call(
  apiUrl: string,
  account: StackAccount,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> | null }> {
  try {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${account.token}`,
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    try {
      return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
    } catch {
      return { status: response.status, body: null };
    }
  } catch {
    return { status: 0, body: null };
  }
}
