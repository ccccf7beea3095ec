import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeAudio } from '../../audio/analysis';
import { timestampsKey } from '../../synthesis/objects';
import { call } from '../helpers/accounts';
import { createAccount } from '../helpers/factories';
import { useAccount, useStack } from '../helpers/stack';
import { waitForSynthesis } from '../helpers/synthesis';

/**
 * Word timestamps through the whole service: a text long enough for several
 * chunks (numbers and abbreviations the engines expand, a word joined by an
 * apostrophe), on the neural voice (Piper's phoneme durations) and a Festival
 * voice (its word relation), at speed 1 and 1.5, in both path families; the
 * captions; the answers without timing.
 */

const SENTENCES = [
  'Speech synthesis turns written words into sound for every listener, and it reads them at the pace you ask for.',
  "A neural voice learns its timing and tone from hours of recordings, so it pauses where a reader would pause; it doesn't rush.",
  'On 12 March the team paid $42 for 1,234 printed pages, which Dr. Smith of the U.S. office signed.',
  'Does it always get it right? Not quite, but it sounds far less robotic than the classic engines did.',
];
const TEXT = SENTENCES.join(' ');
const WORD = /[\p{L}\p{M}\p{N}]+(?:['’.,-][\p{L}\p{M}\p{N}]+)*/gu;

const { deps, api } = useStack({ worker: true });
const owner = useAccount(deps, { credits: 20_000 });
const stranger = useAccount(deps);

const get = (url: string, token = owner.access) =>
  fetch(`${api.url}${url}`, { headers: { Authorization: `Bearer ${token}` } });

async function synthesize(family: '/api/v1' | '/api', body: Record<string, unknown>, account = owner) {
  let accepted = await call(api.url, 'POST', `${family}/tts/synthesize/`, { text: TEXT, ...body }, account.access);
  // A loaded machine may answer 503 with Retry-After (the workflow did not answer the reservation in time): a client retries.
  for (let attempt = 0; accepted.status === 503 && attempt < 3; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, Number(accepted.headers.get('retry-after') ?? 1) * 1000));
    accepted = await call(api.url, 'POST', `${family}/tts/synthesize/`, { text: TEXT, ...body }, account.access);
  }
  expect(accepted.status).toBe(202);
  const id: string = accepted.body.id ?? accepted.body.task_id;
  const statusUrl = family === '/api/v1' ? `/api/v1/tts/history/${id}/status/` : `/api/tts/status/${id}/`;
  const done = await waitForSynthesis(api.url, statusUrl, account.access, 540_000);
  expect(done.status).toBe('completed');
  const timestampsUrl = family === '/api/v1' ? `/api/v1/tts/history/${id}/timestamps/` : `/api/tts/timestamps/${id}/`;
  return { id, done, timestampsUrl, account };
}

/** Mean level (dBFS) of the delivered audio between two times. */
async function levels(audioUrl: string, token: string) {
  const bytes = Buffer.from(await (await get(audioUrl, token)).arrayBuffer());
  const dir = await mkdtemp(path.join(tmpdir(), 'openvox-ts-'));
  try {
    await writeFile(path.join(dir, 'audio'), bytes);
    const { samples, sampleRate } = await decodeAudio(path.join(dir, 'audio'));
    return (start: number, end: number) => {
      const from = Math.floor(start * sampleRate);
      const to = Math.max(from + 1, Math.ceil(end * sampleRate));
      let sum = 0;
      for (let i = from; i < to; i++) sum += (samples[i] ?? 0) ** 2;
      return 10 * Math.log10(sum / (to - from) + 1e-12);
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const cases = [
  ['en-us-joe', '/api/v1', 1, 'wav'],
  ['en-us-joe', '/api', 1.5, 'mp3'],
  ['en-us-slt', '/api/v1', 1.5, 'ogg'],
] as const;

// Submitted together, each by its own account (a free plan runs two at once): the worker renders them side by side.
const jobs = new Map<string, Promise<Awaited<ReturnType<typeof synthesize>>>>();
beforeAll(async () => {
  for (const [voice, family, speed, format] of cases) {
    const account = await createAccount(deps, { credits: 10_000 });
    const job = synthesize(family, { voice_id: voice, speed, output_format: format }, account);
    job.catch(() => undefined);
    jobs.set(`${voice}${family}${speed}`, job);
  }
});

describe.each(cases)('%s in the %s family at speed %s (%s)', (voice, family, speed, _format) => {
  let job: Promise<Awaited<ReturnType<typeof synthesize>>>;
  beforeAll(() => {
    job = jobs.get(`${voice}${family}${speed}`)!;
  });

  it('gives every word of the text, in order, mapped to its characters, timed within the audio', async () => {
    const { done, timestampsUrl, account } = await job;
    expect(done.duration_seconds).toBeGreaterThan(10 / speed);
    const response = await get(timestampsUrl, account.access);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const { words } = (await response.json()) as {
      words: Array<{ word: string; start: number; end: number; char_start: number; char_end: number }>;
    };
    const chars = Array.from(TEXT);
    expect(words.map((word) => word.word)).toEqual(TEXT.match(WORD));
    let previous = 0;
    for (const word of words) {
      expect(chars.slice(word.char_start, word.char_end).join('')).toBe(word.word);
      expect(word.start).toBeGreaterThanOrEqual(previous - 1e-9);
      expect(word.end).toBeGreaterThanOrEqual(word.start);
      previous = word.end;
    }
    expect(words[0].start).toBeLessThan(0.5);
    expect(Math.abs(words.at(-1)!.end - done.duration_seconds)).toBeLessThan(0.1);
    // Each sentence starts after the previous one's last word, across chunk joins and their pauses.
    const firsts = SENTENCES.map((sentence) =>
      words.find((word) => word.char_start === Array.from(TEXT.slice(0, TEXT.indexOf(sentence))).length)!,
    );
    expect(firsts.every(Boolean)).toBe(true);
    for (let i = 1; i < firsts.length; i++) expect(firsts[i].start).toBeGreaterThan(firsts[i - 1].end);

    // The times say where the speech is: the words are loud, the gaps between sentences are quiet.
    const level = await levels(done.audio_url, account.access);
    const spoken = words.filter((word) => word.end - word.start > 0.08);
    const loud = spoken.filter((word) => level(word.start, word.end) > -45);
    expect(loud.length / spoken.length).toBeGreaterThan(0.95);
    const speechLevel = level(words[0].start, words.at(-1)!.end);
    for (let i = 1; i < firsts.length; i++) {
      const before = words[words.indexOf(firsts[i]) - 1];
      if (firsts[i].start - before.end > 0.15)
        expect(level(before.end + 0.03, firsts[i].start - 0.03)).toBeLessThan(speechLevel - 15);
    }
  }, 600_000);

  it('gives SRT and WebVTT captions whose cues cover the words in order', async () => {
    const { done, timestampsUrl, account } = await job;
    const time = (clock: string) => {
      const [h, m, s] = clock.replace(',', '.').split(':');
      return Number(h) * 3600 + Number(m) * 60 + Number(s);
    };
    for (const [format, contentType, separator] of [
      ['srt', 'application/x-subrip', ','],
      ['vtt', 'text/vtt', '.'],
    ] as const) {
      const response = await get(`${timestampsUrl}?format=${format}`, account.access);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain(contentType);
      let body = await response.text();
      if (format === 'vtt') {
        expect(body.startsWith('WEBVTT\n\n')).toBe(true);
        body = body.slice('WEBVTT\n\n'.length);
      }
      const blocks = body.trim().split(/\n\n/);
      expect(blocks.length).toBeGreaterThan(4);
      const sep = separator === ',' ? ',' : '\\.';
      const cue = new RegExp(`^(\\d\\d:\\d\\d:\\d\\d${sep}\\d{3}) --> (\\d\\d:\\d\\d:\\d\\d${sep}\\d{3})\\n(.+)$`);
      let previous = 0;
      const texts: string[] = [];
      blocks.forEach((block, index) => {
        const lines = block.split('\n');
        if (format === 'srt') expect(lines.shift()).toBe(String(index + 1));
        const match = cue.exec(lines.join('\n'));
        expect(match).not.toBeNull();
        const [start, end] = [time(match![1]), time(match![2])];
        expect(start).toBeGreaterThanOrEqual(previous - 0.0011);
        expect(end).toBeGreaterThan(start);
        previous = end;
        texts.push(match![3]);
      });
      expect(previous).toBeLessThanOrEqual(done.duration_seconds + 0.01);
      expect(texts.join(' ').match(WORD)).toEqual(TEXT.match(WORD));
    }
  }, 600_000);
});

describe('without timestamps', () => {
  it('answers 409 timestamps_unavailable for an engine that gives no timing (Flite), 404 to another account, 400 for an unknown format', async () => {
    const { id, timestampsUrl } = await synthesize('/api/v1', {
      voice_id: 'en-us-flite-slt',
      text: 'Hello there, this voice has no timing.',
    });
    const response = await call(api.url, 'GET', timestampsUrl, undefined, owner.access);
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'timestamps_unavailable', status: 409 });
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(
      (await call(api.url, 'GET', `/api/tts/timestamps/${id}/?format=srt`, undefined, owner.access)).body.code,
    ).toBe('timestamps_unavailable');
    expect((await call(api.url, 'GET', timestampsUrl, undefined, stranger.access)).status).toBe(404);
    const badFormat = await call(api.url, 'GET', `${timestampsUrl}?format=txt`, undefined, owner.access);
    expect(badFormat.status).toBe(400);
    expect(badFormat.body.errors).toHaveProperty('format');
  }, 120_000);

  it('keeps the timestamps beside the audio in storage, and removes them with it', async () => {
    const { id, timestampsUrl } = await synthesize('/api/v1', { voice_id: 'en-us-joe', text: 'Short and timed.' });
    const key = timestampsKey(owner.id, id);
    expect(await deps.storage.size(key)).not.toBeNull();
    expect(((await (await get(timestampsUrl)).json()) as any).words.map((word: { word: string }) => word.word)).toEqual(
      ['Short', 'and', 'timed'],
    );
    expect((await call(api.url, 'DELETE', `/api/v1/tts/history/${id}/`, undefined, owner.access)).status).toBe(204);
    const deadline = Date.now() + 30_000;
    while ((await deps.storage.size(key)) !== null && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await deps.storage.size(key)).toBeNull();
  }, 120_000);

  it('answers 409 not_ready while the synthesis runs, and 404 once it is deleted', async () => {
    const long = Array.from({ length: 12 }, () => SENTENCES.join(' '))
      .join(' ')
      .slice(0, 4900);
    const accepted = await call(
      api.url,
      'POST',
      '/api/v1/tts/synthesize/',
      { text: long, voice_id: 'en-us-slt' },
      owner.access,
    );
    expect(accepted.status).toBe(202);
    const id = accepted.body.id;
    const running = await call(api.url, 'GET', `/api/v1/tts/history/${id}/timestamps/`, undefined, owner.access);
    expect(running.status).toBe(409);
    expect(running.body.code).toBe('not_ready');
    expect((await call(api.url, 'DELETE', `/api/v1/tts/history/${id}/`, undefined, owner.access)).status).toBe(204);
    expect((await call(api.url, 'GET', `/api/v1/tts/history/${id}/timestamps/`, undefined, owner.access)).status).toBe(
      404,
    );
  }, 120_000);
});
