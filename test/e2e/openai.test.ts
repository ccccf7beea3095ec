import OpenAI from 'openai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type IncomingMessage, request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeAudio, probeFormat } from '../../audio/analysis';
import { run } from '../../lib/process';
import { call } from '../helpers/http';
import { createAccount, type TestAccount } from '../helpers/factories';
import { useStack } from '../helpers/stack';
import { waitForSynthesis } from '../helpers/synthesis';
import { TRAIN_SENTENCES } from '../../bench/texts';

/** The official OpenAI SDK is the client: a client this service did not write. */

const SENTENCES = TRAIN_SENTENCES;
const TWELVE = SENTENCES.join(' ');
const THREE = SENTENCES.slice(0, 3).join(' ');
/** A fast catalog voice (Flite) for the format matrix; the male OpenAI names below speak the installed neural voice (en-us-joe). */
const FAST_VOICE = 'en-us-flite-slt';

async function decodeBytes(bytes: Buffer, { strict = true } = {}) {
  const dir = await mkdtemp(path.join(tmpdir(), 'openvox-openai-'));
  try {
    const file = path.join(dir, 'audio');
    await writeFile(file, bytes);
    const format = await probeFormat(file);
    // Strict: the first decoding error fails (ffmpeg -xerror).
    const decoded = await decodeAudio(file, { strict });
    return { format, decoded, seconds: decoded.samples.length / decoded.sampleRate };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Reads a streamed body, noting when its first byte came. */
async function readTimed(response: Response, started: number) {
  const reader = response.body!.getReader();
  const parts: Buffer[] = [];
  let firstByteMs: number | null = null;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.length && firstByteMs === null) firstByteMs = performance.now() - started;
    parts.push(Buffer.from(value));
  }
  return { bytes: Buffer.concat(parts), firstByteMs: firstByteMs!, totalMs: performance.now() - started };
}

describe('OpenAI-compatible speech, through the official openai SDK', () => {
  const { deps, api } = useStack({ worker: true });
  let owner: TestAccount;
  let client: OpenAI;
  beforeAll(async () => {
    owner = await createAccount(deps, { credits: 30_000 });
    const key = await call(api.url, 'POST', '/api/v1/auth/api-keys/', { name: 'openai sdk' }, owner.access);
    client = new OpenAI({ apiKey: key.body.key, baseURL: `${api.url}/v1`, maxRetries: 0 });
  });

  const ledgerOf = async (id: string) =>
    (await deps.db('credit_ledger').where({ reference: id }).orderBy('id').select('kind', 'amount')).map((row) => [
      row.kind,
      Number(row.amount),
    ]);
  const historyOf = (id: string) => waitForSynthesis(api.url, `/api/v1/tts/history/${id}/status/`, owner.access);

  const FORMATS: Array<[OpenAI.Audio.SpeechCreateParams['response_format'], string | null, string]> = [
    ['mp3', 'mp3', 'audio/mpeg'],
    ['opus', 'opus', 'audio/ogg; codecs=opus'],
    ['aac', 'aac', 'audio/aac'],
    ['flac', 'flac', 'audio/flac'],
    ['wav', 'pcm_s16le', 'audio/wav'],
    ['pcm', null, 'audio/pcm'],
  ];
  it.each(FORMATS)(
    'response_format %s decodes to the duration of the history entry, charged once',
    async (format, codec, contentType) => {
      const response = await client.audio.speech.create({
        model: 'tts-1',
        voice: FAST_VOICE,
        input: THREE,
        response_format: format,
      });
      expect(response.headers.get('content-type')).toBe(contentType);
      const id = response.headers.get('x-synthesis-id')!;
      const bytes = Buffer.from(await response.arrayBuffer());
      // Raw PCM has no container to probe: 24 kHz, 16-bit, mono, so its length is its duration. A streamed
      // WAV's header cannot know its size (0xFFFFFFFF, read to the end): ffmpeg -xerror calls its short last
      // packet corrupt, so it is decoded leniently (the duration check below still counts every sample).
      const { format: probed, seconds } =
        format === 'pcm'
          ? { format: null, seconds: bytes.length / 2 / 24_000 }
          : await decodeBytes(bytes, { strict: format !== 'wav' });
      if (codec) expect(probed?.codec).toBe(codec);
      const done = await historyOf(id);
      expect(done).toMatchObject({ status: 'completed', credits_charged: THREE.length });
      // The stream joins the same sentences with the same pauses as the stored file; codecs add or trim a few ms.
      expect(Math.abs(seconds - done.duration_seconds)).toBeLessThan(0.12);
      expect(await ledgerOf(id)).toEqual([
        ['reserve', THREE.length],
        ['capture', THREE.length],
      ]);
    },
  );

  it.each([['flac'], ['wav']] as const)(
    'a one-sentence %s answer says its length in its header (the whole audio is known before its first byte)',
    async (format) => {
      const response = await client.audio.speech.create({
        model: 'tts-1',
        voice: FAST_VOICE,
        input: SENTENCES[0],
        response_format: format,
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      const dir = await mkdtemp(path.join(tmpdir(), 'openvox-openai-'));
      try {
        const file = path.join(dir, `audio.${format}`);
        await writeFile(file, bytes);
        const { stdout } = await run('ffprobe', [
          '-v',
          'error',
          '-show_entries',
          'stream=duration',
          '-of',
          'json',
          file,
        ]);
        const [stream] = (JSON.parse(stdout.toString()) as { streams: Array<{ duration?: string }> }).streams;
        // Strict decoding: FLAC's MD5 and WAV's sizes agree with the samples.
        const { seconds } = await decodeBytes(bytes);
        expect(Number(stream.duration)).toBeCloseTo(seconds, 2);
        const done = await historyOf(response.headers.get('x-synthesis-id')!);
        expect(Math.abs(seconds - done.duration_seconds)).toBeLessThan(0.12);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('sentence joins are no harder than the speech itself (no clicks): sample-to-sample jumps on the decoded PCM', async () => {
    const response = await client.audio.speech.create({
      model: 'tts-1',
      voice: FAST_VOICE,
      input: THREE,
      response_format: 'pcm',
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const samples = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.length & ~1)));
    // The joins: the edges of the inserted pauses (runs of exact zeros ≥ 0.2 s).
    const joins: number[] = [];
    for (let i = 0; i < samples.length;) {
      if (samples[i] !== 0) {
        i++;
        continue;
      }
      let end = i;
      while (end < samples.length && samples[end] === 0) end++;
      if (end - i >= 0.2 * 24_000 && i > 0 && end < samples.length) joins.push(i, end);
      i = end;
    }
    expect(joins.length).toBe(4); // two pauses, each with two edges
    const jump = (from: number, to: number) => {
      let max = 0;
      for (let i = Math.max(1, from); i < Math.min(samples.length, to); i++)
        max = Math.max(max, Math.abs(samples[i] - samples[i - 1]));
      return max;
    };
    const window = 240; // 10 ms each side of a join
    const atJoins = Math.max(...joins.map((at) => jump(at - window, at + window)));
    const insideSpeech = jump(0, joins[0] - window);
    expect(insideSpeech).toBeGreaterThan(1000);
    expect(atJoins).toBeLessThanOrEqual(insideSpeech);
  });

  it('streams a 12-sentence text: the first byte comes before 40 % of the total time, and the stream decodes cleanly', async () => {
    // The engine warm, as in steady use: a Piper process keeps its model loaded (a cold one takes ~0.5 s).
    await (
      await client.audio.speech.create({ model: 'tts-1', voice: 'echo', input: THREE, response_format: 'pcm' })
    ).arrayBuffer();
    const started = performance.now();
    const response = await client.audio.speech.create({
      model: 'tts-1',
      voice: 'echo',
      input: TWELVE,
      response_format: 'mp3',
    });
    const { bytes, firstByteMs, totalMs } = await readTimed(response, started);
    const { seconds } = await decodeBytes(bytes);
    const id = response.headers.get('x-synthesis-id')!;
    const done = await historyOf(id);
    expect(done.status).toBe('completed');
    expect(Math.abs(seconds - done.duration_seconds)).toBeLessThan(0.12);
    expect(firstByteMs).toBeLessThan(0.4 * totalMs);
    const entry = await call(api.url, 'GET', `/api/v1/tts/history/${id}/`, undefined, owner.access);
    expect(entry.body).toMatchObject({ voice_id: 'en-us-joe', text: TWELVE, output_format: 'mp3' });
    expect(await ledgerOf(id)).toEqual([
      ['reserve', TWELVE.length],
      ['capture', TWELVE.length],
    ]);
  });

  it('sends speech.audio.delta events and a final speech.audio.done with usage when stream_format is sse', async () => {
    const response = await client.audio.speech.create({
      model: 'gpt-4o-mini-tts',
      voice: 'onyx',
      input: THREE,
      response_format: 'pcm',
      stream_format: 'sse',
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    const events = text
      .split('\n\n')
      .filter((block) => block.startsWith('data: '))
      .map((block) => JSON.parse(block.slice('data: '.length)));
    const deltas = events.filter((event) => event.type === 'speech.audio.delta');
    expect(deltas.length).toBeGreaterThan(0);
    expect(events.at(-1)).toEqual({
      type: 'speech.audio.done',
      usage: { input_tokens: THREE.length, output_tokens: 0, total_tokens: THREE.length },
    });
    const pcm = Buffer.concat(deltas.map((event) => Buffer.from(event.audio, 'base64')));
    const done = await historyOf(response.headers.get('x-synthesis-id')!);
    expect(Math.abs(pcm.length / 2 / 24_000 - done.duration_seconds)).toBeLessThan(0.05);
  });

  it('maps OpenAI voice names to catalog voices, and reaches the same endpoint under /api/v1', async () => {
    const apiV1 = new OpenAI({ apiKey: owner.access, baseURL: `${api.url}/api/v1`, maxRetries: 0 });
    const response = await apiV1.audio.speech.create({
      model: 'openvox',
      voice: 'echo',
      input: 'Hello there.',
      response_format: 'wav',
      speed: 4,
    });
    await response.arrayBuffer();
    const entry = await call(
      api.url,
      'GET',
      `/api/v1/tts/history/${response.headers.get('x-synthesis-id')}/`,
      undefined,
      owner.access,
    );
    // The one neural English voice installed here (male) speaks echo, the first male name; speed 4 is clamped to 2.
    expect(entry.body).toMatchObject({ voice_id: 'en-us-joe', speed: 2, output_format: 'wav' });
  });

  it('answers errors in OpenAI shape, so the SDK raises its own classes', async () => {
    const badKey = new OpenAI({ apiKey: 'vk_not-a-key', baseURL: `${api.url}/v1`, maxRetries: 0 });
    await expect(badKey.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hi.' })).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );

    const empty = await client.audio.speech
      .create({ model: 'tts-1', voice: 'alloy', input: '   ' })
      .catch((error) => error);
    expect(empty).toBeInstanceOf(OpenAI.BadRequestError);
    expect(empty.param).toBe('input');

    const model = await client.audio.speech
      .create({ model: 'tts-9' as never, voice: 'alloy', input: 'Hi.' })
      .catch((error) => error);
    expect(model).toBeInstanceOf(OpenAI.BadRequestError);
    expect(model.param).toBe('model');

    const voice = await client.audio.speech
      .create({ model: 'tts-1', voice: 'nobody' as never, input: 'Hi.' })
      .catch((error) => error);
    expect(voice).toBeInstanceOf(OpenAI.BadRequestError);
    expect(voice.param).toBe('voice');
    // Names an object literal would inherit find no voice either.
    for (const inherited of ['constructor', '__proto__', 'CONSTRUCTOR', 'toString', 'hasOwnProperty']) {
      const failure = await client.audio.speech
        .create({ model: 'tts-1', voice: inherited as never, input: 'Hi.' })
        .catch((error) => error);
      expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
      expect(failure.param).toBe('voice');
    }

    const poor = await createAccount(deps, { credits: 5 });
    const poorClient = new OpenAI({ apiKey: poor.access, baseURL: `${api.url}/v1`, maxRetries: 0 });
    const quota = await poorClient.audio.speech
      .create({ model: 'tts-1', voice: 'alloy', input: 'This costs more than five credits.' })
      .catch((error) => error);
    expect(quota).toBeInstanceOf(OpenAI.RateLimitError);
    expect(quota.code).toBe('insufficient_quota');
    expect(quota.type).toBe('insufficient_quota');
    expect(await deps.db('credit_ledger').where({ account_id: poor.id })).toEqual([]);
  });

  it('caps X-Synthesis-Warnings at 20 warnings and 4 KiB, its last entry saying how many more and where the full list is', async () => {
    /** The header of a streamed request, read by a client that takes headers of any size (fetch refuses over 16 KiB). */
    const warningsOf = async (input: string) => {
      const response = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = request(`${api.url}/v1/audio/speech`, {
          method: 'POST',
          maxHeaderSize: 1 << 20,
          headers: { Authorization: `Bearer ${owner.access}`, 'Content-Type': 'application/json' },
        });
        req.once('response', resolve).once('error', reject);
        req.end(JSON.stringify({ model: 'tts-1', voice: FAST_VOICE, input, response_format: 'pcm' }));
      });
      expect(response.statusCode).toBe(200);
      let audio = 0;
      for await (const bytes of response) audio += (bytes as Buffer).length;
      expect(audio).toBeGreaterThan(0);
      return String(response.headers['x-synthesis-warnings']);
    };
    const fullList = async (input: string): Promise<string[]> =>
      (await call(api.url, 'POST', '/api/v1/tts/normalize/', { text: input, voice_id: FAST_VOICE }, owner.access)).body
        .warnings;
    const more = (count: number) =>
      `and ${count} more: POST /api/v1/tts/normalize/ with the same text gives the full list`;

    // A thousand unknown elements, a warning each.
    const many = `<speak>Hello. ${'<a/>'.repeat(1000)}</speak>`;
    const header = await warningsOf(many);
    console.log(`X-Synthesis-Warnings for 1,000 unknown elements: ${header.length} bytes`);
    expect(header.length).toBeLessThanOrEqual(4096);
    const all = await fullList(many);
    expect(all.length).toBeGreaterThan(20);
    expect(JSON.parse(header)).toEqual([...all.slice(0, 20), more(all.length - 20)]);

    // Fewer, longer warnings: the bytes bind first.
    const long = `<speak>Hello. ${Array.from({ length: 12 }, (_, index) => `<${'x'.repeat(300)}${index}/>`).join('')}</speak>`;
    const longHeader = await warningsOf(long);
    expect(longHeader.length).toBeLessThanOrEqual(4096);
    const longAll = await fullList(long);
    const listed: string[] = JSON.parse(longHeader);
    // Fewer than all of them, and the last entry says how many more.
    expect(listed.length - 1).toBeLessThan(longAll.length);
    expect(listed).toEqual([...longAll.slice(0, listed.length - 1), more(longAll.length - listed.length + 1)]);
  }, 120_000);

  it('lists the models and the voices', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models).toEqual(['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'openvox']);
    expect(await client.models.retrieve('tts-1-hd')).toMatchObject({ id: 'tts-1-hd', object: 'model' });
    await expect(client.models.retrieve('whisper-1')).rejects.toBeInstanceOf(OpenAI.NotFoundError);

    const voices = await call(api.url, 'GET', '/v1/audio/voices', undefined, owner.access);
    expect(voices.status).toBe(200);
    expect(voices.body.voices).toEqual(expect.arrayContaining(['alloy', 'nova', 'onyx', 'en-us-slt', FAST_VOICE]));
    expect(voices.body.data.find((voice: { id: string }) => voice.id === 'echo')).toMatchObject({
      voice_id: 'en-us-joe',
      category: 'openai',
      gender: 'male',
      neural: true,
    });
  });
});
