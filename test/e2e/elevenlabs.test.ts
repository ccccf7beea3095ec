import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeAudio } from '../../audio/analysis';
import { speech } from '../helpers/cloningInput';
import { call } from '../helpers/http';
import { createAccount, type TestAccount } from '../helpers/factories';
import { useStack } from '../helpers/stack';
import { waitForSynthesis } from '../helpers/synthesis';

/** The official ElevenLabs SDK is the client: only its base URL and key point here. */

/** A fast catalog voice (Flite, no word timing) and the installed neural one (Piper, word timing). */
const FAST_VOICE = 'en-us-flite-slt';
const TIMED_VOICE = 'en-us-joe';
const TEXT = 'The river was calm that morning. We walked along it until noon.';

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) parts.push(Buffer.from(part));
  return Buffer.concat(parts);
}

async function secondsOf(bytes: Buffer): Promise<number> {
  const dir = await mkdtemp(path.join(tmpdir(), 'openvox-elevenlabs-'));
  try {
    const file = path.join(dir, 'audio');
    await writeFile(file, bytes);
    const decoded = await decodeAudio(file, { strict: true });
    return decoded.samples.length / decoded.sampleRate;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The SDK's error for a call that fails: its status and ElevenLabs' detail. */
async function failure(promise: Promise<unknown>): Promise<{ status: number; detail: { status: string } }> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof ElevenLabsError)) throw error;
    return { status: error.statusCode!, detail: (error.body as { detail: { status: string } }).detail };
  }
  throw new Error('the call succeeded');
}

describe('ElevenLabs-compatible API, through the official @elevenlabs/elevenlabs-js SDK', () => {
  const { deps, api } = useStack({ worker: true });
  let owner: TestAccount;
  let key: string;
  let client: ElevenLabsClient;
  beforeAll(async () => {
    owner = await createAccount(deps, { credits: 30_000 });
    key = (await call(api.url, 'POST', '/api/v1/auth/api-keys/', { name: 'elevenlabs sdk' }, owner.access)).body.key;
    client = new ElevenLabsClient({ apiKey: key, baseUrl: api.url, maxRetries: 0 });
  });

  const balance = async () =>
    Number((await call(api.url, 'GET', '/api/v1/auth/profile/', undefined, owner.access)).body.credit_balance);
  const entry = (id: string) => waitForSynthesis(api.url, `/api/v1/tts/history/${id}/status/`, owner.access);

  it('convert: the audio as MP3, an ordinary synthesis charged its characters and kept in history', async () => {
    const before = await balance();
    const { data, rawResponse } = await client.textToSpeech
      .convert(FAST_VOICE, { text: TEXT, modelId: 'eleven_multilingual_v2', outputFormat: 'mp3_44100_128' })
      .withRawResponse();
    expect(rawResponse.headers.get('content-type')).toBe('audio/mpeg');
    const seconds = await secondsOf(await readAll(data));
    const id = rawResponse.headers.get('x-synthesis-id')!;
    const status = await entry(id);
    expect(status).toMatchObject({ status: 'completed', characters: TEXT.length, credits_charged: TEXT.length });
    expect(Math.abs(seconds - status.duration_seconds)).toBeLessThan(0.3);
    expect(await balance()).toBe(before - TEXT.length);
  });

  it.each([
    ['pcm_16000', 2 * 16_000],
    ['pcm_24000', 2 * 24_000],
    ['ulaw_8000', 8_000],
    ['alaw_8000', 8_000],
  ] as const)('stream %s: headerless samples at that rate, as long as the entry', async (format, bytesPerSecond) => {
    const { data, rawResponse } = await client.textToSpeech
      .stream(FAST_VOICE, { text: TEXT, outputFormat: format })
      .withRawResponse();
    const bytes = await readAll(data);
    // No RIFF header: the first bytes are audio.
    expect(bytes.subarray(0, 4).toString('latin1')).not.toBe('RIFF');
    const status = await entry(rawResponse.headers.get('x-synthesis-id')!);
    expect(Math.abs(bytes.length / bytesPerSecond - status.duration_seconds)).toBeLessThan(0.3);
  });

  it('convert opus_48000_64 decodes; wav_16000 is a WAV header at 16 kHz before the samples', async () => {
    const opus = await client.textToSpeech.convert(FAST_VOICE, { text: TEXT, outputFormat: 'opus_48000_64' });
    expect(await secondsOf(await readAll(opus))).toBeGreaterThan(1);
    const wav = await readAll(await client.textToSpeech.convert(FAST_VOICE, { text: TEXT, outputFormat: 'wav_16000' }));
    expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(wav.readUInt32LE(24)).toBe(16_000);
    expect((wav.length - 44) / 32_000).toBeGreaterThan(1);
  });

  it('convertWithTimestamps: the whole text’s characters with times inside the audio', async () => {
    const answer = await client.textToSpeech.convertWithTimestamps(TIMED_VOICE, {
      text: TEXT,
      outputFormat: 'mp3_22050_32',
    });
    const seconds = await secondsOf(Buffer.from(answer.audioBase64, 'base64'));
    const alignment = answer.alignment!;
    expect(alignment.characters.join('')).toBe(TEXT);
    const starts = alignment.characterStartTimesSeconds;
    const ends = alignment.characterEndTimesSeconds;
    expect(starts).toHaveLength(TEXT.length);
    for (let index = 1; index < starts.length; index++) expect(starts[index]).toBeGreaterThanOrEqual(starts[index - 1]);
    expect(ends[ends.length - 1]).toBeLessThanOrEqual(seconds + 0.05);
    expect(answer.normalizedAlignment!.characters.join('')).toBe(TEXT);
  });

  it('streamWithTimestamps: newline-delimited pieces whose audio and characters add up to the whole', async () => {
    const stream = await client.textToSpeech.streamWithTimestamps(TIMED_VOICE, {
      text: TEXT,
      outputFormat: 'pcm_24000',
    });
    const audio: Buffer[] = [];
    const characters: string[] = [];
    for await (const piece of stream) {
      audio.push(Buffer.from(piece.audioBase64, 'base64'));
      characters.push(...(piece.alignment?.characters ?? []));
    }
    expect(characters.join('')).toBe(TEXT);
    expect(Buffer.concat(audio).length / 48_000).toBeGreaterThan(2);
  });

  it('bad input gets ElevenLabs’ error shape and costs nothing', async () => {
    const before = await balance();
    expect(
      await failure(client.textToSpeech.convert('no-such-voice', { text: TEXT, outputFormat: 'mp3_44100_128' })),
    ).toEqual({ status: 400, detail: expect.objectContaining({ status: 'voice_not_found' }) });
    const unknownFormat = await fetch(`${api.url}/v1/text-to-speech/${FAST_VOICE}?output_format=mp3_96000_999`, {
      method: 'POST',
      headers: { 'xi-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ text: TEXT }),
    });
    expect(unknownFormat.status).toBe(422);
    expect(await unknownFormat.json()).toEqual({
      detail: { status: 'invalid_output_format', message: expect.stringContaining('output_format') },
    });
    expect(await failure(client.textToSpeech.convert(FAST_VOICE, { text: TEXT, modelId: 'gpt-9' }))).toMatchObject({
      status: 400,
      detail: { status: 'model_not_found' },
    });
    const stranger = new ElevenLabsClient({ apiKey: 'vk_wrong', baseUrl: api.url, maxRetries: 0 });
    expect(await failure(stranger.user.get())).toMatchObject({ status: 401, detail: { status: 'invalid_api_key' } });
    expect(await balance()).toBe(before);
  });

  it('voices: search with pages, list, one voice', async () => {
    const all = await client.voices.getAll();
    expect(all.voices.map((voice) => voice.voiceId)).toEqual(expect.arrayContaining([FAST_VOICE, TIMED_VOICE]));
    const first = await client.voices.search({ pageSize: 2 });
    expect(first.voices).toHaveLength(2);
    expect(first.totalCount).toBe(all.voices.length);
    expect(first.hasMore).toBe(true);
    const second = await client.voices.search({ pageSize: 2, nextPageToken: first.nextPageToken });
    expect(second.voices[0].voiceId).not.toBe(first.voices[0].voiceId);
    const joe = await client.voices.get(TIMED_VOICE);
    expect(joe).toMatchObject({ voiceId: TIMED_VOICE, category: 'premade' });
    for (const value of Object.values(joe.labels!)) expect(typeof value).toBe('string');
    if (joe.previewUrl) expect(joe.previewUrl).toMatch(/^https?:\/\//);
    expect(await failure(client.voices.get('no-such-voice'))).toMatchObject({ status: 404 });
  });

  it('instant cloning: 403 naming the fix without an attestation; with one, a clone to speak with and delete', async () => {
    const sample = await speech('wav');
    const refused = await failure(client.voices.ivc.create({ name: 'Narrator', files: [sample] }));
    expect(refused).toMatchObject({ status: 403, detail: { status: 'attestation_required' } });
    const attested = await call(api.url, 'POST', '/api/v1/voices/attestation/', { attest: true }, owner.access);
    expect(attested.status).toBe(201);
    const { voiceId, requiresVerification } = await client.voices.ivc.create({
      name: 'Narrator',
      files: [sample, sample],
      description: 'Read in a quiet room',
      labels: { language: 'en-US', accent: 'american' },
    });
    expect(requiresVerification).toBe(false);
    // Spoken with at once: the request waits up to 30 s while the clone is processing, then answers 409
    // voice_not_ready, which a client retries (a loaded machine clones slower than that).
    const convert = () =>
      client.textToSpeech.convert(voiceId, { text: 'Hello there.', outputFormat: 'mp3_44100_64' }).withRawResponse();
    let answer: Awaited<ReturnType<typeof convert>> | undefined;
    for (let attempt = 0; answer === undefined; attempt++) {
      try {
        answer = await convert();
      } catch (error) {
        const notReady = (error as { statusCode?: number }).statusCode === 409 && attempt < 4;
        if (!notReady) throw error;
      }
    }
    const { data, rawResponse } = answer;
    expect(await secondsOf(await readAll(data))).toBeGreaterThan(0.3);
    expect((await entry(rawResponse.headers.get('x-synthesis-id')!)).status).toBe('completed');
    expect(await client.voices.get(voiceId)).toMatchObject({ category: 'cloned', isOwner: true });
    expect(await client.voices.delete(voiceId)).toEqual({ status: 'ok' });
    expect(await failure(client.voices.get(voiceId))).toMatchObject({ status: 404 });
  }, 300_000);

  it('models: ElevenLabs’ array with xi-api-key, OpenAI’s list with a Bearer token', async () => {
    const models = await client.models.list();
    expect(models.map((model) => model.modelId)).toEqual(expect.arrayContaining(['eleven_multilingual_v2', 'piper']));
    expect(models.find((model) => model.modelId === 'piper')!.languages).toEqual(
      expect.arrayContaining([{ languageId: 'en-US', name: 'American English' }]),
    );
    const openAi = await call(api.url, 'GET', '/v1/models/', undefined, key);
    expect(openAi.body.object).toBe('list');
  });

  it('user and subscription: characters left are the balance', async () => {
    const user = await client.user.get();
    expect(user.userId).toBe(owner.id);
    const subscription = await client.user.subscription.get();
    expect(subscription.characterLimit - subscription.characterCount).toBe(await balance());
    expect(subscription.hasOpenInvoices).toBe(false);
    expect(user.subscription.characterCount).toBe(subscription.characterCount);
  });

  it('history: list, one item, its audio, delete', async () => {
    const list = await client.history.list({ pageSize: 3 });
    expect(list.history).toHaveLength(3);
    expect(list.hasMore).toBe(true);
    const newest = list.history[0];
    const item = await client.history.get(newest.historyItemId);
    expect(item).toMatchObject({ historyItemId: newest.historyItemId, characterCountChangeTo: expect.any(Number) });
    const next = await client.history.list({ pageSize: 3, startAfterHistoryItemId: list.lastHistoryItemId });
    expect(next.history[0].historyItemId).not.toBe(newest.historyItemId);
    const audio = await readAll(await client.history.getAudio(newest.historyItemId));
    expect(audio.length).toBeGreaterThan(1000);
    expect(await client.history.delete(newest.historyItemId)).toEqual({ status: 'ok' });
    expect(await failure(client.history.get(newest.historyItemId))).toMatchObject({ status: 404 });
  });
});
