import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { call, postSpeech } from '../helpers/http';
import { createAccount, type TestAccount } from '../helpers/factories';
import { useStack } from '../helpers/stack';
import { fetchAndMeasure, waitForSynthesis } from '../helpers/synthesis';
import { Synthesis } from '../../db/models/Synthesis';
import { Account } from '../../db/models/Account';
import { createVoice } from '../helpers/factories';
import { decodeAudio, measureSamples } from '../../audio/analysis';

type Word = { word: string; start: number; end: number; char_start: number; char_end: number };

/** Where the hostile markup below would write if any engine ran it. */
const PWNED = '/tmp/openvox-ssml-pwned';

/** Markup aimed at each engine, inside an SSML document: all of it must be spoken as text (or not at all), never run. */
const HOSTILE = [
  '<speak>Scheme: "); (system "touch /tmp/openvox-ssml-pwned") (SayText "',
  ' and ) (system "touch /tmp/openvox-ssml-pwned")',
  ' eSpeak: [[h@l\'oU]] and &lt;break time="10s"/&gt; and <![CDATA[<break time="10s"/> <voice name="x">]]>',
  ' <sub alias="[[ ]] (system &quot;touch /tmp/openvox-ssml-pwned&quot;)">alias</sub>',
  ' done.</speak>',
].join('');

describe.each([['/api/v1'], ['/api']])('SSML in the %s family', (family) => {
  const { deps, api } = useStack({ worker: true });
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await createAccount(deps, { credits: 50_000 });
  });
  const submit = (body: Record<string, unknown>) =>
    call(api.url, 'POST', `${family}/tts/synthesize/`, body, owner.access);
  const idOf = (body: { id?: string; task_id?: string }) => (body.id ?? body.task_id)!;
  const statusPath = (id: string) =>
    family === '/api/v1' ? `/api/v1/tts/history/${id}/status/` : `/api/tts/status/${id}/`;
  const render = async (body: Record<string, unknown>) => {
    const accepted = await submit(body);
    expect(accepted.status).toBe(202);
    const id = idOf(accepted.body);
    const done = await waitForSynthesis(api.url, statusPath(id), owner.access, 400_000);
    expect(done.status).toBe('completed');
    const audio = await fetchAndMeasure(api.url, `/api/v1/tts/history/${id}/audio/`, owner.access);
    const timestamps = await call(api.url, 'GET', `/api/v1/tts/history/${id}/timestamps/`, undefined, owner.access);
    return {
      id,
      accepted: accepted.body,
      done,
      seconds: audio.analysis.durationSeconds,
      words: (timestamps.body.words ?? []) as Word[],
    };
  };

  it('refuses an invalid document with a 400 naming its line and column, and reserves nothing', async () => {
    const before = await Synthesis.query(deps.db).where({ account_id: owner.id }).resultSize();
    for (const [text, where] of [
      ['<speak>Hello\n<break time="abc"/></speak>', /line 2, column \d+/],
      ['<speak>Hello <emphasis>world</speak>', /line 1, column \d+/],
      ['<speak><!DOCTYPE x [<!ENTITY a "b">]>&a;</speak>', /line 1, column \d+/],
      ['<speak><break time="2s"/></speak>', /nothing to say/],
    ] as const) {
      const reply = await submit({ text, voice_id: 'en-us-slt' });
      expect([text, reply.status, reply.body.code]).toEqual([text, 400, 'validation_error']);
      expect(reply.body.errors.text[0]).toMatch(where);
    }
    // text_type "text" reads the same markup as written (no parse, no error).
    expect(
      (await submit({ text: '<speak>Hello <emphasis>world</speak>', voice_id: 'en-us-slt', text_type: 'text' })).status,
    ).toBe(202);
    expect((await submit({ text: 'Hi', voice_id: 'en-us-slt', text_type: 'xml' })).status).toBe(400);
    expect(await Synthesis.query(deps.db).where({ account_id: owner.id }).resultSize()).toBe(before + 1);
  });

  it.each([['en-us-joe'], ['en-us-slt']])(
    'speaks a document with %s: breaks are silence, unknown tags are read and warned about, timestamps point into the document',
    async (voice) => {
      const text =
        '<speak><p><s>It costs <say-as interpret-as="cardinal">12</say-as> dollars.</s> <break time="1500ms"/> <s><prosody rate="slow">Call <say-as interpret-as="telephone">555 0100</say-as></prosody> <foo>now</foo>.</s></p></speak>';
      const withBreak = await render({ text, voice_id: voice });
      expect(withBreak.accepted.warnings).toEqual([
        expect.stringMatching(/unknown element <foo> read as its text at line 1, column \d+/),
      ]);
      // Credits: the characters sent, markup included.
      expect(withBreak.done).toMatchObject({
        characters: Array.from(text).length,
        credits_charged: Array.from(text).length,
      });
      const withoutBreak = await render({ text: text.replace('<break time="1500ms"/>', ''), voice_id: voice });
      // The break adds its 1.5 s, less the sentence pause it replaces (0.3 s) and the render-to-render spread of the speech.
      expect(withBreak.seconds - withoutBreak.seconds).toBeGreaterThan(0.8);
      expect(withBreak.seconds - withoutBreak.seconds).toBeLessThan(1.8);
      const chars = Array.from(text);
      if (withBreak.words.length > 0) {
        for (const word of withBreak.words)
          expect(chars.slice(word.char_start, word.char_end).join('')).toBe(word.word);
        expect(withBreak.words.map((word) => word.word)).toEqual(
          expect.arrayContaining(['It', '12', '555 0100', 'now']),
        );
        const call = withBreak.words.find((word) => word.word === 'Call')!;
        const costs = withBreak.words.find((word) => word.word === 'costs')!;
        expect(call.start - costs.end).toBeGreaterThan(1.4);
      }
      const row = await Synthesis.query(deps.db).findById(withBreak.id).select('text_type');
      expect(row!.text_type).toBe('ssml');
      const entry = await call(api.url, 'GET', `${family}/tts/history/${withBreak.id}/`, undefined, owner.access);
      expect(entry.body).toMatchObject({
        text,
        text_type: 'ssml',
        text_normalization: 'auto',
        pronunciation_dictionary_ids: [],
      });
    },
    900_000,
  );

  it.each([['en-us-slt'], ['en-us-joe']])(
    'speaks hostile markup with %s as text: nothing is run, no markup is obeyed',
    async (voice) => {
      await rm(PWNED, { force: true });
      const hostile = await render({ text: HOSTILE, voice_id: voice });
      expect(existsSync(PWNED)).toBe(false);
      // The escaped and CDATA breaks of 10 s each are words, not silence: as "1s" they take as long (not 18 s less).
      const shorter = await render({ text: HOSTILE.replaceAll('10s', '1s'), voice_id: voice });
      expect(Math.abs(hostile.seconds - shorter.seconds)).toBeLessThan(3);
      const preview = await call(
        api.url,
        'POST',
        `${family}/tts/normalize/`,
        { text: HOSTILE, voice_id: voice },
        owner.access,
      );
      expect(preview.body).toMatchObject({ text_type: 'ssml', applied: true });
      expect(preview.body.spoken).toContain('system');
      // The escaped tag is text (its "10s" read by the normalizer), not a break.
      expect(preview.body.spoken).toMatch(/<break time="[^"]+"\/>/);
    },
    900_000,
  );

  it('previews a document through the normalize endpoint: the spoken text, spans into the document and the warnings', async () => {
    const text = '<speak>Pay <sub alias="five million dollars">$5m</sub> <bar>today</bar>.</speak>';
    const reply = await call(api.url, 'POST', `${family}/tts/normalize/`, { text, language: 'en-US' }, owner.access);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ spoken: 'Pay five million dollars today.', text_type: 'ssml' });
    const start = text.indexOf('$5m');
    expect(reply.body.words[1]).toEqual({ word: 'five', source_start: start, source_end: start + 3 });
    expect(reply.body.warnings).toEqual([expect.stringMatching(/unknown element <bar>/)]);
    const asText = await call(
      api.url,
      'POST',
      `${family}/tts/normalize/`,
      { text, language: 'en-US', text_type: 'text' },
      owner.access,
    );
    expect(asText.body).toMatchObject({ text_type: 'text', warnings: [] });
    const bad = await call(api.url, 'POST', `${family}/tts/normalize/`, { text: '<speak>a <b></speak>' }, owner.access);
    expect([bad.status, bad.body.code]).toEqual([400, 'validation_error']);
    expect(bad.body.errors.text[0]).toMatch(/line 1, column \d+/);
  });
});

describe('SSML <voice>: one request, several voices', () => {
  const { deps, api } = useStack({ worker: true });

  /** The median F0 of the audio under the given words (their timestamps), from the decoded file. */
  async function f0Under(id: string, token: string, words: Word[]): Promise<number> {
    const response = await fetch(`${api.url}/api/v1/tts/history/${id}/audio/`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const file = `/tmp/openvox-ssml-voices-${id}.wav`;
    await writeFile(file, Buffer.from(await response.arrayBuffer()));
    try {
      const { samples, sampleRate } = await decodeAudio(file);
      const start = Math.floor(Math.min(...words.map((word) => word.start)) * sampleRate);
      const end = Math.ceil(Math.max(...words.map((word) => word.end)) * sampleRate);
      return measureSamples(samples.subarray(start, end), sampleRate).f0MedianHz!;
    } finally {
      await rm(file, { force: true });
    }
  }

  it('speaks each stretch in its voice (premade and own clone), timestamps into the document, credits as sent', async () => {
    const owner = await createAccount(deps, { credits: 20_000 });
    // The account's own clone, on slt's voice raised 4 semitones, as the cloning workflow would leave one.
    const clone = await createVoice(deps, owner, {
      profile: JSON.stringify({
        baseVoiceId: 'en-us-slt',
        semitones: 4,
        eq: [],
        rate: 1,
        similarity: 0.6,
        closestPremade: null,
        bestPremade: { voiceId: 'en-us-slt', similarity: 0.5 },
        f0MedianHz: 220,
      }),
    });
    const text = `<speak>The narrator opens the story with a calm and steady voice. <voice name="en-us-slt">Then she answers him in a voice of her own, clearly.</voice> <voice name="${clone}">And the clone says the last line.</voice></speak>`;
    const accepted = await call(
      api.url,
      'POST',
      '/api/v1/tts/synthesize/',
      { text, voice_id: 'en-us-joe' },
      owner.access,
    );
    expect(accepted.status).toBe(202);
    expect(accepted.body.warnings).toEqual([]);
    const done = await waitForSynthesis(
      api.url,
      `/api/v1/tts/history/${accepted.body.id}/status/`,
      owner.access,
      400_000,
    );
    expect(done.status).toBe('completed');
    expect(done).toMatchObject({ credits_charged: Array.from(text).length });
    const timestamps = await call(
      api.url,
      'GET',
      `/api/v1/tts/history/${accepted.body.id}/timestamps/`,
      undefined,
      owner.access,
    );
    const words = timestamps.body.words as Word[];
    const chars = Array.from(text);
    for (const word of words) expect(chars.slice(word.char_start, word.char_end).join('')).toBe(word.word);
    const sheStarts = chars.indexOf('T', text.indexOf('<voice'));
    const cloneStarts = Array.from(text.slice(0, text.lastIndexOf('And the clone'))).length;
    const narrator = words.filter((word) => word.char_end <= sheStarts);
    const she = words.filter((word) => word.char_start >= sheStarts && word.char_end <= cloneStarts);
    const cloned = words.filter((word) => word.char_start >= cloneStarts);
    expect([narrator.length, she.length, cloned.length].every((count) => count >= 5)).toBe(true);
    // In order, each after the one before.
    expect(she[0].start).toBeGreaterThan(narrator.at(-1)!.end);
    expect(cloned[0].start).toBeGreaterThan(she.at(-1)!.end);
    // Joe (a man, ~90 Hz) and slt (a woman, ~170 Hz) are an octave apart; the clone is slt 4 semitones up.
    const [joeF0, sltF0, cloneF0] = await Promise.all(
      [narrator, she, cloned].map((part) => f0Under(accepted.body.id, owner.access, part)),
    );
    expect(sltF0 / joeF0).toBeGreaterThan(1.4);
    expect(12 * Math.log2(cloneF0 / sltF0)).toBeGreaterThan(2);
  }, 600_000);

  it('refuses a voice the account cannot use, naming it, and reserves nothing', async () => {
    const owner = await createAccount(deps, { credits: 5_000 });
    const stranger = await createAccount(deps);
    const theirs = await createVoice(deps, stranger, {
      profile: JSON.stringify({ baseVoiceId: 'en-us-slt', semitones: 0, eq: [], rate: 1 }),
    });
    const revoked = await createVoice(deps, owner, { status: 'revoked' });
    const before = {
      rows: await Synthesis.query(deps.db).where({ account_id: owner.id }).resultSize(),
      account: await Account.query(deps.db).findById(owner.id),
    };
    for (const [name, message] of [
      ['no-such-voice', /<voice name="no-such-voice">: unknown voice/],
      [theirs, /unknown voice/],
      [revoked, /consent was revoked/],
    ] as const) {
      const reply = await call(
        api.url,
        'POST',
        '/api/v1/tts/synthesize/',
        { text: `<speak>Hello <voice name="${name}">there</voice>.</speak>`, voice_id: 'en-us-slt' },
        owner.access,
      );
      expect([reply.status, reply.body.code]).toEqual([400, 'validation_error']);
      expect(reply.body.errors.text.join(' ')).toMatch(message);
    }
    expect(await Synthesis.query(deps.db).where({ account_id: owner.id }).resultSize()).toBe(before.rows);
    expect(await Account.query(deps.db).findById(owner.id)).toEqual(before.account);
  });
});

describe('SSML on the OpenAI-compatible speech endpoint', () => {
  const { deps, api } = useStack({ worker: true });
  it('streams a document, warns in a header, refuses an invalid one', async () => {
    const owner = await createAccount(deps, { credits: 10_000 });
    const speech = (input: string) =>
      postSpeech(api.url, owner.access, { model: 'tts-1', voice: 'en-us-slt', input, response_format: 'pcm' });
    const short = await speech('<speak>One. <baz>Two.</baz></speak>');
    expect(short.status).toBe(200);
    expect(JSON.parse(short.headers.get('x-synthesis-warnings')!)).toEqual([
      expect.stringMatching(/unknown element <baz>/),
    ]);
    const shortSeconds = (await short.arrayBuffer()).byteLength / 2 / 24_000;
    const long = await speech('<speak>One. <break time="2s"/> <baz>Two.</baz></speak>');
    const longSeconds = (await long.arrayBuffer()).byteLength / 2 / 24_000;
    expect(longSeconds - shortSeconds).toBeGreaterThan(1.5);
    const bad = await speech('<speak>One <prosody rate="fastest">two</prosody></speak>');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/line 1, column \d+/);
  }, 180_000);
});
