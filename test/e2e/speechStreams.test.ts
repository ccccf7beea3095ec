import OpenAI from 'openai';
import { readdir, readFile } from 'node:fs/promises';
import { type IncomingMessage, request } from 'node:http';
import { TRAIN_SENTENCES } from '../../bench/texts';
import { call, postSpeech } from '../helpers/http';
import { eventually, until } from '../helpers/eventually';
import { createAccount, type TestAccount } from '../helpers/factories';
import { useStack } from '../helpers/stack';
import { streamReadAfterCompletion, waitForSynthesis } from '../helpers/synthesis';
import { chunkPrefix } from '../../synthesis/objects';
import { synthesisWorkflowId } from '../../synthesis/contracts';

/**
 * What a streamed speech request may cost and hold: audio that reached the
 * client is paid for (a stream cut near its end was free), a stream waiting
 * for a render slot holds no encoder process, and one account cannot open
 * streams without bound.
 */

const TWELVE = TRAIN_SENTENCES.join(' ');
/** Long enough to keep a render slot busy while the test looks. */
const LONG = TRAIN_SENTENCES.join(' ').repeat(4);
/** Minutes of audio (over 10 MB as pcm), far more than the socket buffers hold. */
const MINUTES_OF_AUDIO = TRAIN_SENTENCES.join(' ').repeat(8).slice(0, 4000);

/** ffmpeg processes that are children of this process (the API runs in it). */
async function ffmpegChildren(): Promise<number> {
  let count = 0;
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid …
    const match = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
    if (match && match[1] === 'ffmpeg' && Number(match[2]) === process.pid) count += 1;
  }
  return count;
}

describe('OpenAI speech streams: what they cost and hold', () => {
  const stack = useStack({ worker: true, env: { SPEECH_MAX_STREAMS_PER_ACCOUNT: '20' } });
  const { deps, api } = stack;
  let owner: TestAccount;
  let client: OpenAI;
  beforeAll(async () => {
    owner = await createAccount(deps, { credits: 200_000 });
    client = new OpenAI({ apiKey: owner.access, baseURL: `${api.url}/v1`, maxRetries: 0 });
  });
  const ledgerOf = async (id: string) =>
    (await deps.db('credit_ledger').where({ reference: id }).orderBy('id').select('kind', 'amount')).map((row) => [
      row.kind,
      Number(row.amount),
    ]);

  it('a client that hangs up after audio reached it: the synthesis completes and is charged in full, its whole audio in history', async () => {
    const abort = new AbortController();
    const response = await client.audio.speech.create(
      { model: 'tts-1', voice: 'alloy', input: TWELVE, response_format: 'pcm' },
      { signal: abort.signal },
    );
    const id = response.headers.get('x-synthesis-id')!;
    const reader = response.body!.getReader();
    let received = 0;
    while (received === 0) received += (await reader.read()).value?.length ?? 0;
    abort.abort();
    await reader.cancel().catch(() => undefined);
    const done = await waitForSynthesis(api.url, `/api/v1/tts/history/${id}/status/`, owner.access);
    expect(done.status).toBe('completed');
    expect(await ledgerOf(id)).toEqual([
      ['reserve', TWELVE.length],
      ['capture', TWELVE.length],
    ]);
    // The stored audio is the whole text, far more than what the client read.
    expect(done.duration_seconds * 24_000 * 2).toBeGreaterThan(received * 3);
  }, 120_000);

  it('a client that hangs up before any audio: canceled, nothing charged', async () => {
    // The plan's two render slots busy: the stream waits for one, with no audio yet.
    const busy = await Promise.all(
      [1, 2].map(
        async () =>
          (await call(api.url, 'POST', '/api/v1/tts/synthesize/', { text: LONG, voice_id: 'en-us-slt' }, owner.access))
            .body.id as string,
      ),
    );
    const abort = new AbortController();
    const pending = client.audio.speech
      .create(
        { model: 'tts-1', voice: 'alloy', input: 'Nobody will hear this sentence.', response_format: 'mp3' },
        { signal: abort.signal },
      )
      .catch((error) => error);
    let id: string | undefined;
    await eventually('the stream’s synthesis to be queued', async () => {
      const row = await deps
        .db('syntheses')
        .where({ account_id: owner.id, text: 'Nobody will hear this sentence.' })
        .first('id', 'status');
      id = row?.id;
      return row?.status === 'queued';
    });
    abort.abort();
    await pending;
    expect((await waitForSynthesis(api.url, `/api/v1/tts/history/${id}/status/`, owner.access)).status).toBe(
      'canceled',
    );
    expect(await ledgerOf(id!)).toEqual([
      ['reserve', 'Nobody will hear this sentence.'.length],
      ['release', 'Nobody will hear this sentence.'.length],
    ]);
    for (const busyId of busy) await call(api.url, 'DELETE', `/api/v1/tts/history/${busyId}/`, undefined, owner.access);
  }, 120_000);

  it('a client that stops reading, then hangs up: its reader lets go at once (not after SPEECH_STALL_SECONDS), and the synthesis workflow ends with its chunks removed', async () => {
    const { id, req } = await openStream(stack, owner, MINUTES_OF_AUDIO);
    // By the completion the server has long been waiting on a write: the socket's buffers hold far less than the audio.
    expect((await waitForSynthesis(api.url, `/api/v1/tts/history/${id}/status/`, owner.access)).status).toBe(
      'completed',
    );
    const leftAt = Date.now();
    req.destroy();
    const stoppedAfterMs =
      (await within(SLACK_SECONDS * 1000, 'the reader’s stop', readerStoppedAt(stack, id))) - leftAt;
    console.log(`client gone: its reader stopped ${stoppedAfterMs} ms after the client hung up`);
    await expectWorkflowEnds(stack, id, SLACK_SECONDS);
    await call(api.url, 'DELETE', `/api/v1/tts/history/${id}/`, undefined, owner.access);
  }, 180_000);

  it('a client that reads slower than the worker finishes gets the whole audio: the chunks outlive the completion until its reader stops', async () => {
    // The server's reader waits on the client.
    const input = MINUTES_OF_AUDIO;
    // The client stops reading after its first bytes; the worker finishes, stores and records the whole audio meanwhile.
    const { id, done, readRest } = await streamReadAfterCompletion(api.url, owner.access, 'en-us-espeak-m', input);
    expect(done.status).toBe('completed');
    const total = Math.round(done.duration_seconds * 24_000) * 2;
    // Time enough for the cleanup that, before, removed the chunks this reader had still to read.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    // The API's reader has not read them all (the client holds it back), so the chunks are still there.
    expect((await deps.storage.list(chunkPrefix(id))).length).toBeGreaterThan(0);
    const received = await readRest();
    // Every sample of the stored audio (its duration is rounded to the millisecond).
    expect(Math.abs(received - total)).toBeLessThanOrEqual(48);
    // The reader stopped: the workflow removes the chunks and ends.
    await deps.temporal.workflow.getHandle(synthesisWorkflowId(id)).result();
    expect(await deps.storage.list(chunkPrefix(id))).toEqual([]);
    await call(api.url, 'DELETE', `/api/v1/tts/history/${id}/`, undefined, owner.access);
  }, 180_000);

  it('streams waiting for a render slot hold no encoder process', async () => {
    const before = await ffmpegChildren();
    const streams = Array.from({ length: 12 }, (_, index) =>
      postSpeech(api.url, owner.access, {
        model: 'tts-1',
        voice: 'en-us-flite-slt',
        input: `Stream number ${index + 1}. ${TRAIN_SENTENCES.slice(0, 3).join(' ')}`,
        response_format: 'mp3',
      }),
    );
    // While they run (two at a time, the plan's slots), count the encoders now and then.
    let most = 0;
    let running = true;
    const watching = (async () => {
      while (running) {
        most = Math.max(most, (await ffmpegChildren()) - before);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const responses = await Promise.all(streams);
    await Promise.all(responses.map((response) => response.arrayBuffer()));
    running = false;
    await watching;
    // The plan's two rendering streams with their encoders, one more still flushing as the next stream takes the spare,
    // and the spare started ahead: never one per waiting stream (12 here, each with its encoder, before).
    expect(most).toBeLessThanOrEqual(4);
    for (const response of responses) {
      const id = response.headers.get('x-synthesis-id');
      if (id) await call(api.url, 'DELETE', `/api/v1/tts/history/${id}/`, undefined, owner.access);
    }
  }, 120_000);
});

describe('OpenAI speech streams per account', () => {
  const { deps, api } = useStack({
    worker: false,
    env: { SPEECH_MAX_STREAMS_PER_ACCOUNT: '2', SUBMIT_TIMEOUT_SECONDS: '5' },
  });

  it('answers 429 rate_limit_exceeded past SPEECH_MAX_STREAMS_PER_ACCOUNT, before reserving anything', async () => {
    const owner = await createAccount(deps, { credits: 10_000 });
    const client = new OpenAI({ apiKey: owner.access, baseURL: `${api.url}/v1`, maxRetries: 0, timeout: 60_000 });
    // No worker: the first two wait for their reservation to be answered (503 after SUBMIT_TIMEOUT_SECONDS).
    const waiting = [1, 2].map(() =>
      client.audio.speech
        .create({ model: 'tts-1', voice: 'alloy', input: 'Waiting.', response_format: 'mp3' })
        .catch((error) => error),
    );
    // Both requests have reached the API (each takes its place as it arrives).
    await new Promise((resolve) => setTimeout(resolve, 500));
    const refused = await client.audio.speech
      .create({ model: 'tts-1', voice: 'alloy', input: 'One too many.', response_format: 'mp3' })
      .catch((error) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused.code).toBe('rate_limit_exceeded');
    expect(await deps.db('syntheses').where({ account_id: owner.id, text: 'One too many.' })).toEqual([]);
    await Promise.all(waiting);
  }, 90_000);
});

/** The stall bound the stall test runs with, and what the tests allow beyond it (a status poll, the workflow's last steps). */
const STALL_SECONDS = 2;
const SLACK_SECONDS = 6;

/** Settles as `promise` does, or fails naming `what` once `ms` have passed. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

type Stack = ReturnType<typeof useStack>;

/**
 * A streamed request of `input` over node:http (its socket under the test's control), answered once its first bytes
 * came; from then on the test reads nothing unless it says so: the socket's buffers fill and the server waits on it.
 */
async function openStream({ api }: Stack, owner: TestAccount, input: string) {
  const body = JSON.stringify({ model: 'tts-1', voice: 'en-us-espeak-m', input, response_format: 'pcm' });
  const req = request(`${api.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${owner.access}`, 'Content-Type': 'application/json' },
  });
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve).once('error', reject);
    req.end(body);
  });
  expect(res.statusCode).toBe(200);
  const first = await new Promise<Buffer>((resolve) => res.once('data', resolve));
  res.pause();
  return { id: String(res.headers['x-synthesis-id']), req, res, first, pausedAt: Date.now() };
}

/** When the API's reader told the synthesis's workflow it stopped (the streamReader signal's time in its history). */
function readerStoppedAt({ deps }: Stack, id: string): Promise<number> {
  const handle = deps.temporal.workflow.getHandle(synthesisWorkflowId(id));
  return until(
    'the reader’s stop in the workflow’s history',
    async () => {
      for (const event of (await handle.fetchHistory()).events ?? []) {
        const signal = event.workflowExecutionSignaledEventAttributes;
        if (signal?.signalName !== 'streamReader') continue;
        const [payload] = signal.input?.payloads ?? [];
        if (JSON.parse(Buffer.from(payload!.data!).toString()).reading === false)
          return Number(event.eventTime!.seconds) * 1000 + Math.round((event.eventTime!.nanos ?? 0) / 1e6);
      }
      return null;
    },
    120_000,
    200,
  );
}

/** The synthesis's workflow ends within `seconds` (its reader let go), its chunks removed. */
async function expectWorkflowEnds({ deps }: Stack, id: string, seconds: number) {
  const handle = deps.temporal.workflow.getHandle(synthesisWorkflowId(id));
  await within(seconds * 1000, 'the synthesis workflow’s end', handle.result());
  expect(await deps.storage.list(chunkPrefix(id))).toEqual([]);
}

describe('OpenAI speech streams whose client stops reading or hangs up', () => {
  const stack = useStack({ worker: true, env: { SPEECH_STALL_SECONDS: String(STALL_SECONDS) } });
  const { deps, api } = stack;
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await createAccount(deps, { credits: 200_000 });
  });

  it('a client that stops reading: its stream is cut after SPEECH_STALL_SECONDS, its reader lets go, and the synthesis workflow ends with its chunks removed', async () => {
    const { id, res, first, pausedAt } = await openStream(stack, owner, MINUTES_OF_AUDIO);
    const done = await waitForSynthesis(api.url, `/api/v1/tts/history/${id}/status/`, owner.access);
    expect(done.status).toBe('completed');
    // By the completion the server waits on the client (or has cut it already): the socket's buffers hold far less.
    const completedAt = Date.now();
    const stoppedAt = await within(
      (STALL_SECONDS + SLACK_SECONDS) * 1000,
      'the reader’s stop',
      readerStoppedAt(stack, id),
    );
    console.log(
      `stalled client: its reader stopped ${stoppedAt - pausedAt} ms after the client stopped reading, ` +
        `${stoppedAt - completedAt} ms after the completion was seen`,
    );
    // Not before the bound: the socket's buffers filled first, then the bound ran.
    expect(stoppedAt - pausedAt).toBeGreaterThanOrEqual(STALL_SECONDS * 1000);
    await expectWorkflowEnds(stack, id, SLACK_SECONDS);
    // The server cut the connection: what the socket's buffers held comes in, then the response ends unfinished.
    let received = first.length;
    res.on('data', (bytes: Buffer) => (received += bytes.length));
    res.resume();
    await within(10_000, 'the cut response’s close', new Promise((resolve) => res.once('close', resolve)));
    expect(res.complete).toBe(false);
    expect(received).toBeLessThan(Math.round(done.duration_seconds * 24_000) * 2);
    await call(api.url, 'DELETE', `/api/v1/tts/history/${id}/`, undefined, owner.access);
  }, 180_000);
});
