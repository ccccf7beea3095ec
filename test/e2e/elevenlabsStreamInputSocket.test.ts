import WebSocket from 'ws';
import { call } from '../helpers/http';
import { createAccount, type TestAccount } from '../helpers/factories';
import { useStack } from '../helpers/stack';
import { Synthesis } from '../../db/models/Synthesis';
import { eventually, until } from '../helpers/eventually';
import { streamSessionWorkflowId } from '../../synthesis/contracts';

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
  const historyIds = async (): Promise<string[]> =>
    (await call(api.url, 'GET', '/v1/history?page_size=100', undefined, key)).body.history.map(
      (item: { history_item_id: string }) => item.history_item_id,
    );
  /** The one entry a connection made in history, once its session has recorded it, and its pieces. */
  const entryOfConnection = async (before: string[]) => {
    let added: string[] = [];
    await eventually(
      'the connection to be recorded in history',
      async () => {
        added = (await historyIds()).filter((id) => !before.includes(id));
        return added.length > 0;
      },
      60_000,
    );
    expect(added).toHaveLength(1);
    const entry = await Synthesis.query(deps.db).findById(added[0]).throwIfNotFound();
    const pieces = await Synthesis.query(deps.db).where({ part_of: entry.id }).orderBy('part_index');
    return { entry, pieces };
  };

  it('speaks text sent word by word: audio with alignment as sentences complete, isFinal, one history entry charged per piece', async () => {
    const before = await balance();
    const historyBefore = await historyIds();
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

    // The connection is one entry in history: its pieces' text and charge, their audio joined into one file.
    const { entry, pieces } = await entryOfConnection(historyBefore);
    expect(pieces.length).toBeGreaterThanOrEqual(2);
    expect(pieces.map((piece) => piece.text).join(' ')).toBe(TEXT);
    expect(pieces.every((piece) => piece.status === 'completed' && piece.audio_key === null)).toBe(true);
    const charged = pieces.reduce((sum, piece) => sum + piece.characters, 0);
    expect(entry).toMatchObject({ status: 'completed', text: TEXT, characters: charged, credits_charged: charged });
    await eventually('the charge to settle', async () => (await balance()) === before - charged, 30_000);
    const item = await call(api.url, 'GET', `/v1/history/${entry.id}`, undefined, key);
    expect(item.body).toMatchObject({ text: TEXT, character_count_change_to: charged, state: 'completed' });
    // Its audio plays the whole connection (a pause between pieces); its words are in its time and text.
    const audio = await call(api.url, 'GET', `/v1/history/${entry.id}/audio`, undefined, key);
    expect(audio.status).toBe(200);
    expect(entry.duration_seconds).toBeGreaterThan(seconds - 1);
    expect(entry.duration_seconds).toBeLessThan(seconds + 2);
    const { words } = (
      await call(api.url, 'GET', `/api/v1/tts/history/${entry.id}/timestamps/`, undefined, owner.access)
    ).body;
    const codePoints = [...TEXT];
    expect(words.map((word: { word: string }) => word.word).join(' ')).toContain('watched the ships go by');
    for (const word of words) expect(codePoints.slice(word.char_start, word.char_end).join('')).toBe(word.word);
    expect(words.at(-1).end).toBeLessThanOrEqual(entry.duration_seconds! + 0.01);
    expect(words.at(-1).end).toBeGreaterThan(entry.duration_seconds! - 2);
  }, 300_000);

  it('takes the key from the upgrade header; a chunk schedule of 50 speaks an unfinished clause; one MP3 stream', async () => {
    const historyBefore = await historyIds();
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
    const { entry, pieces } = await entryOfConnection(historyBefore);
    expect(entry).toMatchObject({ status: 'completed', output_format: 'mp3' });
    expect(pieces.map((row) => row.text)).toEqual([
      'Here is a clause with no end yet but plenty of words in it,',
      'and more',
    ]);
  }, 300_000);

  it('leaves no entry and charges nothing when the client leaves before any audio', async () => {
    const before = await balance();
    const historyBefore = await historyIds();
    const pieces = await Synthesis.query(deps.db).where({ account_id: owner.id }).whereNotNull('part_of');
    const newPiece = async () =>
      (await Synthesis.query(deps.db).where({ account_id: owner.id }).whereNotNull('part_of')).find(
        (row) => !pieces.some((known) => known.id === row.id),
      );
    const ws = new WebSocket(`${api.url.replace(/^http/, 'ws')}/v1/text-to-speech/${TIMED_VOICE}/stream-input`);
    const closed = new Promise((resolve) => ws.on('close', resolve));
    await new Promise((resolve, reject) => ws.on('open', resolve).on('error', reject));
    ws.send(JSON.stringify({ text: ' ', xi_api_key: key }));
    // A long sentence (seconds to render): the client leaves as soon as it is submitted, before its first audio.
    ws.send(
      JSON.stringify({
        text: `${'This long sentence is never heard, since the client leaves at once, '.repeat(3)}and so it ends. `,
      }),
    );
    const piece = await until('the piece to be submitted', newPiece, 30_000, 20);
    ws.terminate();
    await closed;
    const session = deps.temporal.workflow.getHandle(streamSessionWorkflowId(piece.part_of!));
    expect(await session.result()).toBe('nothing');
    expect((await Synthesis.query(deps.db).findById(piece.id))?.status).toBe('canceled');
    expect(await Synthesis.query(deps.db).findById(piece.part_of!)).toBeUndefined();
    expect(await historyIds()).toEqual(historyBefore);
    expect(await balance()).toBe(before);
  }, 120_000);

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
