import WebSocket from 'ws';
import { call } from '../helpers/http';
import { createAccount, type TestAccount } from '../helpers/factories';
import { useStack } from '../helpers/stack';
import { Synthesis } from '../../db/models/Synthesis';
import { eventually } from '../helpers/eventually';

/**
 * ElevenLabs' stream-input WebSocket as its docs describe it, spoken by a
 * plain `ws` client: a first message with the key and settings, text as an
 * LLM writes it (word by word), a flush, `{"text": ""}` to end.
 */

const TIMED_VOICE = 'en-us-joe';
const FAST_VOICE = 'en-us-flite-slt';
const TEXT = 'The lighthouse keeper climbed the stairs at dusk. He lit the lamp and watched the ships go by';

interface Received {
  messages: Array<Record<string, any>>;
  close: { code: number; reason: string };
}

/** Opens a stream-input socket, sends `send(ws)`'s messages, and collects every message until the close. */
function converse(
  url: string,
  path: string,
  send: (ws: WebSocket) => Promise<void>,
  headers: Record<string, string> = {},
): Promise<Received> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, { headers });
    const messages: Array<Record<string, any>> = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    ws.on('close', (code, reason) => resolve({ messages, close: { code, reason: String(reason) } }));
    ws.on('error', reject);
    ws.on('open', () => send(ws).catch(reject));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ElevenLabs stream-input over a WebSocket', () => {
  const { deps, api } = useStack({ worker: true });
  let owner: TestAccount;
  let key: string;
  beforeAll(async () => {
    owner = await createAccount(deps, { credits: 20_000 });
    key = (await call(api.url, 'POST', '/api/v1/auth/api-keys/', { name: 'stream-input' }, owner.access)).body.key;
  });
  const balance = async () =>
    Number((await call(api.url, 'GET', '/api/v1/auth/profile/', undefined, owner.access)).body.credit_balance);

  it('speaks text sent word by word: audio with alignment as sentences complete, isFinal, history and credits per piece', async () => {
    const before = await balance();
    const rowsBefore = await Synthesis.query(deps.db).where({ account_id: owner.id }).resultSize();
    const { messages, close } = await converse(
      api.url,
      `/v1/text-to-speech/${TIMED_VOICE}/stream-input?model_id=eleven_flash_v2_5&output_format=pcm_16000`,
      async (ws) => {
        ws.send(JSON.stringify({ text: ' ', voice_settings: { speed: 1 }, xi_api_key: key }));
        for (const word of TEXT.split(' ')) {
          ws.send(JSON.stringify({ text: `${word} ` }));
          await sleep(50); // about an LLM's pace
        }
        ws.send(JSON.stringify({ text: ' ', flush: true }));
        ws.send(JSON.stringify({ text: '' }));
      },
    );
    expect(close.code).toBe(1000);
    expect(messages.at(-1)).toEqual({ isFinal: true });
    const audioMessages = messages.slice(0, -1);
    expect(audioMessages.length).toBeGreaterThan(0);
    expect(audioMessages.every((message) => typeof message.audio === 'string')).toBe(true);
    // Headerless 16-bit PCM at 16 kHz: both sentences take seconds.
    const pcm = Buffer.concat(audioMessages.map((message) => Buffer.from(message.audio, 'base64')));
    expect(pcm.length % 2).toBe(0);
    const seconds = pcm.length / 2 / 16_000;
    expect(seconds).toBeGreaterThan(3);
    expect(seconds).toBeLessThan(20);
    // Alignment: the characters said, in order, each with a start and a duration in ms.
    const aligned = audioMessages.filter((message) => message.alignment);
    expect(aligned.length).toBeGreaterThan(0);
    for (const { alignment } of aligned) {
      expect(alignment.chars.length).toBe(alignment.charStartTimesMs.length);
      expect(alignment.chars.length).toBe(alignment.charDurationsMs.length);
      expect(alignment.charDurationsMs.every((ms: number) => ms >= 0)).toBe(true);
    }
    const said = aligned.map(({ alignment }) => alignment.chars.join('')).join(' ');
    expect(said.replace(/\s+/g, ' ')).toContain('The lighthouse keeper climbed the stairs at dusk.');
    expect(said).toContain('watched the ships go by');

    // Each piece is a synthesis in the history, completed and charged for its characters.
    const rows = await Synthesis.query(deps.db)
      .where({ account_id: owner.id })
      .orderBy('created_at')
      .offset(rowsBefore);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.map((row) => row.text).join(' ')).toBe(TEXT);
    await eventually(
      'every piece to settle',
      async () =>
        (
          await Synthesis.query(deps.db).whereIn(
            'id',
            rows.map((row) => row.id),
          )
        ).every((row) => row.status === 'completed'),
      60_000,
    );
    const charged = rows.reduce((sum, row) => sum + row.characters, 0);
    await eventually('the charge to settle', async () => (await balance()) === before - charged, 30_000);
  }, 300_000);

  it('takes the key from the upgrade header; a chunk schedule of 50 speaks an unfinished clause; one MP3 stream', async () => {
    const rowsBefore = await Synthesis.query(deps.db).where({ account_id: owner.id }).resultSize();
    const { messages, close } = await converse(
      api.url,
      `/v1/text-to-speech/${FAST_VOICE}/stream-input?output_format=mp3_22050_32`,
      async (ws) => {
        ws.send(JSON.stringify({ text: ' ', generation_config: { chunk_length_schedule: [50] } }));
        ws.send(JSON.stringify({ text: 'Here is a clause with no end yet but plenty of words in it, ' }));
        ws.send(JSON.stringify({ text: 'and more', try_trigger_generation: true }));
        ws.send(JSON.stringify({ text: '' }));
      },
      { 'xi-api-key': key },
    );
    expect(close.code).toBe(1000);
    expect(messages.at(-1)).toEqual({ isFinal: true });
    const mp3 = Buffer.concat(messages.slice(0, -1).map((message) => Buffer.from(message.audio, 'base64')));
    // One MP3 stream: an MPEG audio frame sync (or an ID3 tag) at the start.
    expect(mp3.length).toBeGreaterThan(1000);
    expect(mp3[0] === 0xff || mp3.subarray(0, 3).toString() === 'ID3').toBe(true);
    // The clause went out as soon as it passed 50 characters, before the end; the rest at the end.
    const rows = await Synthesis.query(deps.db)
      .where({ account_id: owner.id })
      .orderBy('created_at')
      .offset(rowsBefore);
    expect(rows.map((row) => row.text)).toEqual([
      'Here is a clause with no end yet but plenty of words in it,',
      'and more',
    ]);
  }, 300_000);

  it.each([
    [
      'a bad key',
      `/v1/text-to-speech/${FAST_VOICE}/stream-input`,
      { text: ' ', xi_api_key: 'vk_nope' },
      'invalid_api_key',
      1008,
    ],
    ['no key', `/v1/text-to-speech/${FAST_VOICE}/stream-input`, { text: ' ' }, 'needs_authorization', 1008],
    [
      'an unknown voice',
      '/v1/text-to-speech/no-such-voice/stream-input',
      { text: ' ', xi_api_key: 'KEY' },
      'voice_not_found',
      1008,
    ],
    [
      'an unknown output format',
      `/v1/text-to-speech/${FAST_VOICE}/stream-input?output_format=mp3_1_1`,
      { text: ' ', xi_api_key: 'KEY' },
      'invalid_output_format',
      1008,
    ],
  ])('answers %s with its error and closes', async (_name, path, first, error, code) => {
    const rowsBefore = await Synthesis.query(deps.db).where({ account_id: owner.id }).resultSize();
    const { messages, close } = await converse(api.url, path, async (ws) => {
      // `KEY` stands for the account's key (the cases are listed before it exists).
      ws.send(JSON.stringify(first, (_field, value) => (value === 'KEY' ? key : value)));
      ws.send(JSON.stringify({ text: 'Never spoken. ' }));
    });
    expect(messages[0]).toMatchObject({ error });
    expect(close.code).toBe(code);
    expect(await Synthesis.query(deps.db).where({ account_id: owner.id }).resultSize()).toBe(rowsBefore);
  });

  it('closes on a message that is not JSON (1007) and after inactivity_timeout (1008), speaking nothing', async () => {
    const path = `/v1/text-to-speech/${FAST_VOICE}/stream-input`;
    const rowsBefore = await Synthesis.query(deps.db).where({ account_id: owner.id }).resultSize();
    const garbled = await converse(api.url, path, async (ws) => {
      ws.send(JSON.stringify({ text: ' ', xi_api_key: key }));
      ws.send('this is not json');
    });
    expect(garbled.messages[0]).toMatchObject({ error: 'invalid_message' });
    expect(garbled.close.code).toBe(1007);
    const idle = await converse(api.url, `${path}?inactivity_timeout=1`, async (ws) => {
      ws.send(JSON.stringify({ text: ' ', xi_api_key: key }));
      ws.send(JSON.stringify({ text: 'Waiting for the rest' }));
    });
    expect(idle.messages[0]).toMatchObject({ error: 'input_timeout_exceeded' });
    expect(idle.close.code).toBe(1008);
    expect(await Synthesis.query(deps.db).where({ account_id: owner.id }).resultSize()).toBe(rowsBefore);
  });

  it('refuses an upgrade on any other path', async () => {
    const refused = await new Promise<string>((resolve) => {
      const ws = new WebSocket(`${api.url.replace(/^http/, 'ws')}/v1/voices`);
      ws.on('error', (error) => resolve(error.message));
      ws.on('open', () => resolve('opened'));
    });
    expect(refused).not.toBe('opened');
  });
});
