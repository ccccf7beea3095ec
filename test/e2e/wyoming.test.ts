import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startWyomingServer, type WyomingServer } from '../../api/wyoming/server';
import { EventDecoder, type WyomingEvent } from '../../api/wyoming/framing';
import { call } from '../helpers/http';
import { createAccount, type TestAccount } from '../helpers/factories';
import { useStack } from '../helpers/stack';
import { waitForSynthesis } from '../helpers/synthesis';
import { until } from '../helpers/eventually';

/**
 * The Wyoming server (Home Assistant's TTS protocol) spoken to by the real
 * client: the PyPI `wyoming` package, from a venv made once under
 * ~/.cache/openvox (WYOMING_VENV to move it). Every request is an ordinary
 * synthesis of the key's account: in its history, charged once.
 */

const WYOMING_VERSION = '1.10.2';
const VENV =
  process.env.WYOMING_VENV ??
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'openvox', 'wyoming-venv');

/** The venv with the wyoming package, made once; a marker file says it is complete. */
function ensureVenv(): string {
  const python = path.join(VENV, 'bin', 'python');
  const marker = path.join(VENV, `.wyoming-${WYOMING_VERSION}`);
  if (existsSync(marker)) return python;
  rmSync(VENV, { recursive: true, force: true });
  mkdirSync(path.dirname(VENV), { recursive: true });
  execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
  execFileSync(
    python,
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `wyoming==${WYOMING_VERSION}`],
    {
      stdio: 'inherit',
    },
  );
  writeFileSync(marker, '');
  return python;
}

/**
 * A client session with the wyoming package: sends each step's event (its
 * class's, or with `data` a raw event of that type and data) and,
 * with `until`, reads events until one of those types (or the connection's
 * end, `closed`). Prints what it read as JSON: each event's type and data,
 * with what the package's own classes parse of info, audio-start and
 * audio-chunk, and each payload's size and whether it is all zeros.
 */
const CLIENT = String.raw`
import asyncio, json, sys
from wyoming.client import AsyncTcpClient
from wyoming.event import Event
from wyoming.info import Describe, Info
from wyoming.audio import AudioChunk, AudioStart
from wyoming.error import Error
from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop, SynthesizeVoice

def voice_of(step):
    return SynthesizeVoice(**step['voice']) if 'voice' in step else None

def event_of(step):
    kind = step['send']
    if 'data' in step: return Event(type=kind, data=step['data'])
    if kind == 'describe': return Describe().event()
    if kind == 'synthesize': return Synthesize(text=step['text'], voice=voice_of(step)).event()
    if kind == 'synthesize-start': return SynthesizeStart(voice=voice_of(step)).event()
    if kind == 'synthesize-chunk': return SynthesizeChunk(text=step['text']).event()
    if kind == 'synthesize-stop': return SynthesizeStop().event()
    return Event(type=kind)

def described(event):
    item = {'type': event.type, 'data': event.data}
    if event.payload is not None:
        item['payload_bytes'] = len(event.payload)
        item['silent'] = not any(event.payload)
    if Info.is_type(event.type):
        info = Info.from_event(event)
        item['parsed'] = [{'name': p.name, 'streaming': p.supports_synthesize_streaming, 'voices': [
            {'name': v.name, 'languages': v.languages, 'description': v.description, 'attribution': v.attribution.name,
             'speakers': [s.name for s in v.speakers] if v.speakers else None} for v in p.voices]} for p in info.tts]
    if AudioStart.is_type(event.type) or AudioChunk.is_type(event.type):
        audio = (AudioStart if AudioStart.is_type(event.type) else AudioChunk).from_event(event)
        item['parsed'] = {'rate': audio.rate, 'width': audio.width, 'channels': audio.channels}
    if Error.is_type(event.type):
        error = Error.from_event(event)
        item['parsed'] = {'text': error.text, 'code': error.code}
    return item

async def main():
    host, port, steps = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
    out = []
    async with AsyncTcpClient(host, port) as client:
        for step in steps:
            await client.write_event(event_of(step))
            until = step.get('until')
            while until:
                event = await asyncio.wait_for(client.read_event(), 120)
                if event is None:
                    out.append({'type': 'closed'})
                    break
                out.append(described(event))
                if event.type in until:
                    break
    print(json.dumps(out))

asyncio.run(main())
`;

interface ClientStep {
  send: string;
  text?: string;
  voice?: { name?: string; language?: string; speaker?: string };
  data?: Record<string, unknown>;
  until?: string[];
}
interface ReadEvent {
  type: string;
  data?: Record<string, any>;
  payload_bytes?: number;
  silent?: boolean;
  parsed?: any;
}

const run = promisify(execFile);

describe('Wyoming server with the wyoming client', () => {
  const stack = useStack({ worker: true });
  const { deps, api } = stack;
  let python: string;
  let owner: TestAccount;
  let server: WyomingServer;
  const clientScript = path.join(os.tmpdir(), `wyoming-client-${process.pid}.py`);

  beforeAll(async () => {
    python = ensureVenv();
    writeFileSync(clientScript, CLIENT);
    owner = await createAccount(deps, { credits: 100_000 });
    const key = await call(api.url, 'POST', '/api/v1/auth/api-keys/', { name: 'home assistant' }, owner.access);
    expect(key.status).toBe(201);
    server = await startWyomingServer(deps, { host: '127.0.0.1', port: 0, apiKey: key.body.key });
  }, 300_000);
  afterAll(async () => {
    await server?.close();
    rmSync(clientScript, { force: true });
  });

  const session = async (steps: ClientStep[]): Promise<ReadEvent[]> => {
    const { stdout } = await run(python, [clientScript, '127.0.0.1', String(server.port), JSON.stringify(steps)], {
      timeout: 180_000,
    });
    return JSON.parse(stdout);
  };
  const history = async () => {
    const reply = await call(api.url, 'GET', '/api/v1/tts/history/?page_size=100', undefined, owner.access);
    expect(reply.status).toBe(200);
    return reply.body.results as { id: string; text: string; status: string; voice_id: string }[];
  };
  const balance = async () =>
    Number((await deps.db('accounts').where({ id: owner.id }).first('credit_balance')).credit_balance);
  const settled = async () => {
    const entries = await history();
    return Promise.all(
      entries.map((entry) => waitForSynthesis(api.url, `/api/v1/tts/history/${entry.id}/status/`, owner.access)),
    );
  };
  /** The audio blocks of a session: each audio-start's format and its chunks' sizes, up to its audio-stop. */
  const audioBlocks = (events: ReadEvent[]) => {
    const blocks: { start: any; chunks: ReadEvent[] }[] = [];
    for (const event of events) {
      if (event.type === 'audio-start') blocks.push({ start: event.parsed, chunks: [] });
      if (event.type === 'audio-chunk') blocks[blocks.length - 1].chunks.push(event);
    }
    return blocks;
  };

  it('describe: info lists the installed voices, neural first, with languages and attribution, and says it streams', async () => {
    const [info] = await session([{ send: 'describe', until: ['info'] }]);
    expect(info.type).toBe('info');
    const [program] = info.parsed;
    expect(program).toMatchObject({ name: 'openvox', streaming: true });
    const names = program.voices.map((voice: { name: string }) => voice.name);
    expect(names[0]).toBe('en-us-joe');
    expect(program.voices[0]).toMatchObject({ languages: ['en-US'], attribution: 'Piper', speakers: null });
    expect(program.voices[0].description).toContain('neural');
    // The classic voices follow the neural ones.
    const firstClassic = program.voices.findIndex((voice: { description: string }) =>
      voice.description.includes('classic'),
    );
    expect(firstClassic).toBeGreaterThan(0);
    expect(program.voices.slice(firstClassic).every((voice: any) => !voice.description.includes('neural'))).toBe(true);
    expect(names).toContain('en-us-slt');
  });

  it('synthesize: the audio of the text as 16-bit mono PCM at 24 kHz, one ordinary synthesis in history, charged', async () => {
    const before = await balance();
    const text = 'The kitchen lights are now on.';
    const events = await session([
      { send: 'synthesize', text, voice: { name: 'en-us-joe' }, until: ['audio-stop', 'error'] },
    ]);
    expect(events.map((event) => event.type).filter((type) => type !== 'audio-chunk')).toEqual([
      'audio-start',
      'audio-stop',
    ]);
    const [block] = audioBlocks(events);
    expect(block.start).toEqual({ rate: 24_000, width: 2, channels: 1 });
    for (const chunk of block.chunks) expect(chunk.parsed).toEqual({ rate: 24_000, width: 2, channels: 1 });
    const bytes = block.chunks.reduce((sum, chunk) => sum + chunk.payload_bytes!, 0);
    // Over half a second of speech, not silence.
    expect(bytes).toBeGreaterThan(24_000);
    expect(block.chunks.some((chunk) => !chunk.silent)).toBe(true);

    await settled();
    const [row] = await history();
    expect(row).toMatchObject({ text, status: 'completed', voice_id: 'en-us-joe' });
    expect(before - (await balance())).toBe(text.length);
  });

  it('synthesize by language: the best installed voice of it', async () => {
    const events = await session([
      { send: 'synthesize', text: 'Good evening.', voice: { language: 'en_US' }, until: ['audio-stop', 'error'] },
    ]);
    expect(events[events.length - 1].type).toBe('audio-stop');
    await settled();
    const [newest] = await history();
    expect(newest).toMatchObject({ text: 'Good evening.', status: 'completed', voice_id: 'en-us-joe' });
  });

  it("streaming: audio per sentence, then synthesize-stopped; Home Assistant's repeated synthesize is ignored: nothing spoken or charged twice", async () => {
    const before = await balance();
    const known = new Set((await history()).map((entry) => entry.id));
    const first = 'Turning on the porch light.';
    const second = 'It will switch off at midnight.';
    const events = await session([
      { send: 'synthesize-start', voice: { name: 'en-us-joe' } },
      { send: 'synthesize-chunk', text: 'Turning on the ' },
      { send: 'synthesize-chunk', text: 'porch light. It will' },
      { send: 'synthesize-chunk', text: ' switch off at midnight.' },
      // As Home Assistant does: the whole text again, for servers that do not stream.
      { send: 'synthesize', text: `${first} ${second}`, voice: { name: 'en-us-joe' } },
      { send: 'synthesize-stop', until: ['synthesize-stopped', 'error'] },
    ]);
    expect(events.map((event) => event.type).filter((type) => type !== 'audio-chunk')).toEqual([
      'audio-start',
      'audio-stop',
      'audio-start',
      'audio-stop',
      'synthesize-stopped',
    ]);
    for (const block of audioBlocks(events)) {
      expect(block.start).toEqual({ rate: 24_000, width: 2, channels: 1 });
      expect(block.chunks.reduce((sum, chunk) => sum + chunk.payload_bytes!, 0)).toBeGreaterThan(24_000);
    }

    // One entry in history for the stream (each sentence rendered as a piece of it), the repeated whole text never
    // submitted; charged once for each sentence.
    const added = await until('the stream to be recorded in history', async () => {
      const entries = (await history()).filter((entry) => !known.has(entry.id));
      return entries.length > 0 && entries;
    });
    expect(added.map((entry) => [entry.text, entry.status])).toEqual([[`${first} ${second}`, 'completed']]);
    const pieces = await deps.db('syntheses').where({ part_of: added[0].id }).orderBy('part_index');
    expect(pieces.map((piece) => [piece.text, piece.status])).toEqual([
      [first, 'completed'],
      [second, 'completed'],
    ]);
    expect(before - (await balance())).toBe(first.length + second.length);
  });

  it('a bad request gets an error event and the connection is closed; nothing is charged', async () => {
    const before = await balance();
    const entries = (await history()).length;
    const unknownVoice = await session([
      { send: 'synthesize', text: 'Hello.', voice: { name: 'no-such-voice' }, until: ['audio-stop'] },
    ]);
    expect(unknownVoice).toEqual([
      expect.objectContaining({ type: 'error', parsed: expect.objectContaining({ code: 'unknown_voice' }) }),
      { type: 'closed' },
    ]);
    const badText = await session([{ send: 'synthesize', data: { text: 42 }, until: ['audio-stop'] }]);
    expect(badText[0].parsed).toMatchObject({ code: 'validation_error', text: expect.stringContaining('text') });
    const nothingToSay = await session([{ send: 'synthesize', text: '...', until: ['audio-stop'] }]);
    expect(nothingToSay[0].parsed).toMatchObject({ code: 'validation_error' });
    const chunkOutside = await session([{ send: 'synthesize-chunk', text: 'Hello.', until: ['audio-stop'] }]);
    expect(chunkOutside[0].parsed).toMatchObject({ code: 'invalid_event' });
    expect(await balance()).toBe(before);
    expect((await history()).length).toBe(entries);
  });

  /** Sends raw bytes, ends the connection's sending side, and reads the events until the server closes it. */
  const rawSession = async (bytes: string) => {
    const socket = connect(server.port, '127.0.0.1');
    const decoder = new EventDecoder();
    const events: WyomingEvent[] = [];
    socket.on('data', (piece: Buffer) => events.push(...decoder.push(piece)));
    socket.end(bytes);
    await new Promise((resolve) => socket.once('close', resolve));
    return events;
  };

  it('a client that sends describe and ends its side at once (as `nc` does) still gets the info', async () => {
    const events = await rawSession('{"type":"describe"}\n');
    expect(events.map((event) => event.type)).toEqual(['info']);
  });

  it('bytes that are not Wyoming framing get an error event and the connection is closed', async () => {
    const events = await rawSession('this is not json\n');
    expect(events).toEqual([
      { type: 'error', data: { code: 'invalid_event', text: expect.stringContaining('not valid JSON') } },
    ]);
  });
});
