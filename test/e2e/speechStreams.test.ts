import OpenAI from 'openai';
import { readdir, readFile } from 'node:fs/promises';
import { TRAIN_SENTENCES } from '../../bench/texts';
import { call, postSpeech } from '../helpers/http';
import { eventually } from '../helpers/eventually';
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
  const { deps, api } = useStack({ worker: true, env: { SPEECH_MAX_STREAMS_PER_ACCOUNT: '20' } });
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

  it('a client that reads slower than the worker finishes gets the whole audio: the chunks outlive the completion until its reader stops', async () => {
    // Minutes of raw audio (over 10 MB), more than the socket buffers hold: the server's reader waits on the client.
    const input = TRAIN_SENTENCES.join(' ').repeat(8).slice(0, 4000);
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
