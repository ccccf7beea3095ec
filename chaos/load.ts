import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The client operations of the soak and the multi-node harness, each timed:
 * a synthesis followed to its end by Server-Sent Events or by polling, its
 * audio downloaded; an OpenAI-style speech stream read to its end; a clone
 * made, used and deleted; a history page; an account deletion. `baseUrl()`
 * is asked at every request, so a caller can round-robin over several APIs
 * (a client-side balancer) and a client that lost its node reconnects to another.
 */

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ENDED = new Set(['completed', 'failed', 'canceled']);

export interface Op {
  kind: string;
  ok: boolean;
  ms: number;
  endedAt: number;
  /** What went wrong, for the error tally (`http 503`, `timeout`, `failed:<code>`, …). */
  error?: string;
  /** The resource the op made, when it made one (a synthesis or voice id). */
  id?: string;
  /** Extra facts, e.g. how many times an SSE stream was reopened. */
  note?: string;
}

/** The op of `kind` started at `started`, ended now, as it came out. */
const ended =
  (kind: string, started: number) =>
  (ok: boolean, error?: string, id?: string, note?: string): Op => ({
    kind,
    ok,
    ms: Date.now() - started,
    endedAt: Date.now(),
    error,
    id,
    note,
  });

export interface Client {
  baseUrl: () => string;
  token: string;
  /** One request's limit (30 s by default): a node cut from the network answers nothing until then. */
  timeoutMs?: number;
}

const REQUEST_MS = 30_000;

async function call(
  client: Client,
  method: string,
  pathname: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any; headers: Headers }> {
  const response = await fetch(`${client.baseUrl()}${pathname}`, {
    method,
    headers: {
      Authorization: `Bearer ${client.token}`,
      ...(body !== undefined && !(body instanceof FormData) && { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(client.timeoutMs ?? REQUEST_MS),
  });
  const text = await response.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: the status says enough.
  }
  return { status: response.status, json, headers: response.headers };
}

/** Retries no answer, 5xx, 429 and 409 idempotency_key_in_use (what a careful client does), bounded in time. */
async function callRetrying(
  client: Client,
  method: string,
  pathname: string,
  body: unknown,
  headers: Record<string, string>,
  deadlineMs: number,
) {
  const deadline = Date.now() + deadlineMs;
  for (let delay = 250; ; delay = Math.min(delay * 1.5, 2_000)) {
    let answer: Awaited<ReturnType<typeof call>> | null = null;
    try {
      answer = await call(client, method, pathname, body, headers);
    } catch {
      answer = null;
    }
    const retry =
      !answer ||
      answer.status >= 500 ||
      answer.status === 429 ||
      (answer.status === 409 && answer.json?.code === 'idempotency_key_in_use');
    if (!retry || Date.now() + delay > deadline) return { answer, retries: 0 };
    await sleep(delay * (0.75 + Math.random() * 0.5));
  }
}

/** Reads a status stream until an ended status or the stream closes; the last status seen. */
async function followEvents(
  client: Client,
  id: string,
  signal: AbortSignal,
): Promise<{ status?: string; code?: string }> {
  const response = await fetch(`${client.baseUrl()}/api/v1/tts/history/${id}/status/`, {
    headers: { Authorization: `Bearer ${client.token}`, Accept: 'text/event-stream' },
    signal,
  });
  if (response.status !== 200 || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`sse http ${response.status}`);
  }
  const decoder = new TextDecoder();
  let buffer = '';
  let last: { status?: string; code?: string } = {};
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      if (!data) continue;
      const parsed = JSON.parse(data) as { status?: string; error?: { code?: string } | null; code?: string };
      if (/^event: error/m.test(event)) throw new Error(`sse error ${parsed.code}`);
      last = { status: parsed.status, code: parsed.error?.code };
      if (last.status && ENDED.has(last.status)) return last;
    }
  }
  return last;
}

export interface SynthesisOptions {
  text: string;
  voice: string;
  format: string;
  /** Follow by Server-Sent Events (reconnecting when the stream breaks) instead of polling. */
  sse: boolean;
  /** How long to wait for the end. */
  timeoutMs: number;
}

/** Submits with an Idempotency-Key (retried with it), follows to the end, downloads the audio when completed. */
export async function synthesis(
  client: Client,
  options: SynthesisOptions,
  onAccepted?: (id: string) => void,
): Promise<Op> {
  const started = Date.now();
  const done = ended('synthesis', started);
  const { answer } = await callRetrying(
    client,
    'POST',
    '/api/v1/tts/synthesize/',
    { text: options.text, voice_id: options.voice, output_format: options.format },
    { 'Idempotency-Key': `soak-${randomUUID()}` },
    120_000,
  );
  if (!answer) return done(false, 'submit: no answer');
  if (answer.status !== 202) return done(false, `submit: http ${answer.status} ${answer.json?.code ?? ''}`.trim());
  const id = answer.json.id as string;
  onAccepted?.(id);
  return followToEnd(client, id, options, started);
}

/**
 * Follows an accepted synthesis to its end and downloads its audio (also how
 * a speech client whose stream was cut after its X-Synthesis-Id arrived
 * gets the rest: from history, through whichever API answers).
 */
export async function followToEnd(
  client: Client,
  id: string,
  options: Pick<SynthesisOptions, 'sse' | 'timeoutMs'>,
  started = Date.now(),
  kind = 'synthesis',
): Promise<Op> {
  const done = ended(kind, started);
  const deadline = started + options.timeoutMs;
  let final: { status?: string; code?: string } = {};
  let reconnects = 0;
  while (Date.now() < deadline && !(final.status && ENDED.has(final.status))) {
    if (options.sse) {
      try {
        final = await followEvents(client, id, AbortSignal.timeout(Math.max(1_000, deadline - Date.now())));
        if (final.status && ENDED.has(final.status)) break;
      } catch {
        // The stream broke (its API went away, a 429): open it again, as an EventSource would.
      }
      reconnects += 1;
      await sleep(1_000);
    } else {
      try {
        const status = await call(client, 'GET', `/api/v1/tts/history/${id}/status/`);
        if (status.status === 200) final = { status: status.json.status, code: status.json.error?.code };
      } catch {
        // No answer: ask again.
      }
      if (!(final.status && ENDED.has(final.status))) await sleep(1_000);
    }
  }
  const note = reconnects ? `sse reopened ${reconnects}×` : undefined;
  if (!final.status || !ENDED.has(final.status)) return done(false, 'timeout', id, note);
  if (final.status !== 'completed') return done(false, `${final.status}:${final.code ?? ''}`, id, note);
  const { answer: audio } = await callRetrying(
    client,
    'GET',
    `/api/v1/tts/history/${id}/audio/`,
    undefined,
    {},
    60_000,
  );
  if (!audio || audio.status !== 200) return done(false, `audio: http ${audio?.status ?? 'no answer'}`, id, note);
  return done(true, undefined, id, note);
}

/** POST /v1/audio/speech read to its end; `firstByteMs` in the note. Not retried: a cut stream is an error the client sees. */
export async function speech(client: Client, input: string, voice: string, format: string, sse: boolean): Promise<Op> {
  const started = Date.now();
  const done = ended('speech', started);
  try {
    const response = await fetch(`${client.baseUrl()}/v1/audio/speech`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${client.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model: 'tts-1',
        input,
        voice,
        response_format: format,
        ...(sse && { stream_format: 'sse' }),
      }),
      signal: AbortSignal.timeout(180_000),
    });
    const id = response.headers.get('x-synthesis-id') ?? undefined;
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel().catch(() => undefined);
      return done(false, `http ${response.status}`, id);
    }
    let firstByte = 0;
    let bytes = 0;
    let text = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (!firstByte) firstByte = Date.now() - started;
      bytes += chunk.length;
      if (sse) text += Buffer.from(chunk).toString('utf8');
    }
    if (!bytes) return done(false, 'empty body', id);
    if (sse && !text.includes('speech.audio.done')) return done(false, 'sse without speech.audio.done', id);
    return done(true, undefined, id, `first byte ${firstByte} ms`);
  } catch (error) {
    return done(false, error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'cut');
  }
}

export async function historyPage(client: Client, page: number): Promise<Op> {
  const done = ended('history', Date.now());
  try {
    const answer = await call(client, 'GET', `/api/v1/tts/history/?page=${page}&page_size=20`);
    return done(answer.status === 200, answer.status === 200 ? undefined : `http ${answer.status}`);
  } catch {
    return done(false, 'no answer');
  }
}

/** A spoken sample (espeak-ng, as WAV) for cloning. */
export async function makeCloneSample(): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'openvox-soak-sample-'));
  try {
    const file = path.join(dir, 'sample.wav');
    const text =
      'This is my voice. I am reading a few sentences so that the service can learn how I sound. The weather was fine, and we walked along the river until the evening came.';
    await run('espeak-ng', ['-v', 'en-us+m3', '-w', file, text]);
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The consented upload of `sample` (a WAV) as a voice named `name`, as `/voices/upload/` takes it. */
export function cloneUploadForm(sample: Buffer, name: string): FormData {
  const form = new FormData();
  form.append('name', name);
  form.append('consent', 'true');
  form.append('file', new Blob([new Uint8Array(sample)], { type: 'audio/wav' }), 'sample.wav');
  return form;
}

/** Uploads a clone, waits until it is ready, synthesizes once with it (followed by polling), deletes the voice. */
export async function cloneCycle(client: Client, sample: Buffer, text: string, timeoutMs: number): Promise<Op[]> {
  const started = Date.now();
  const op = ended('clone', started);
  let answer;
  try {
    answer = await call(
      client,
      'POST',
      '/api/v1/voices/upload/',
      cloneUploadForm(sample, `Soak ${randomUUID().slice(0, 8)}`),
    );
  } catch {
    return [op(false, 'upload: no answer')];
  }
  if (answer.status !== 202) return [op(false, `upload: http ${answer.status} ${answer.json?.code ?? ''}`.trim())];
  const id = answer.json.id as string;
  let status = 'processing';
  while (Date.now() - started < timeoutMs && status === 'processing') {
    await sleep(1_000);
    try {
      const voice = await call(client, 'GET', `/api/v1/voices/${id}/`);
      if (voice.status === 200) status = voice.json.status;
    } catch {
      // Ask again.
    }
  }
  const ops: Op[] = [op(status === 'ready', status === 'ready' ? undefined : `voice ${status}`, id)];
  if (status === 'ready') ops.push(await synthesis(client, { text, voice: id, format: 'mp3', sse: false, timeoutMs }));
  const { answer: removed } = await callRetrying(client, 'DELETE', `/api/v1/voices/${id}/`, undefined, {}, 60_000);
  if (removed?.status !== 204)
    ops.push({
      kind: 'clone',
      ok: false,
      ms: 0,
      endedAt: Date.now(),
      error: `delete voice: http ${removed?.status ?? 'no answer'}`,
    });
  return ops;
}

/** Registers a webhook endpoint for every synthesis and voice event; returns its secret. */
export async function registerWebhook(client: Client, url: string): Promise<string> {
  const answer = await call(client, 'POST', '/api/v1/webhooks/', {
    url,
    events: ['synthesis.completed', 'synthesis.failed', 'synthesis.canceled', 'voice.ready', 'voice.failed'],
  });
  if (answer.status !== 201)
    throw new Error(`webhook registration: http ${answer.status} ${JSON.stringify(answer.json)}`);
  return answer.json.secret as string;
}

/** DELETE /auth/profile with the password; the op ends at the 202 (the erasure runs in the background). */
export async function deleteAccount(client: Client, password: string): Promise<Op> {
  const started = Date.now();
  const { answer } = await callRetrying(client, 'DELETE', '/api/v1/auth/profile/', { password }, {}, 60_000);
  const ok = answer?.status === 202;
  return ended('account deletion', started)(ok, ok ? undefined : `http ${answer?.status ?? 'no answer'}`);
}
