import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import { defaultModelsDir } from '../lib/config';
import { startIsolatedStack } from '../scripts/isolatedStack';
import { freePorts, stopChild, waitFor } from '../scripts/stack';
import { EVERYDAY_SENTENCES } from './texts';
import { table } from './report';
import WebSocket from 'ws';
import { renderChunk } from '../audio/render';
import { findPremadeVoice } from '../engines/catalog';
import { sharedEngines } from '../engines/registry';

/**
 * The voice-agent protocols' latency, each against a baseline measured in the
 * same run on the same machine.
 *
 * Wyoming (wyomingFigures): Home Assistant's path. One `synthesize` per
 * sentence on a new connection (as Home Assistant makes one per request),
 * sent by the PyPI `wyoming` client to our Wyoming server (in the API process
 * of an isolated stack, WYOMING_PORT) and to `wyoming-piper` (PyPI) serving
 * the same model, en_US-joe-medium, from MODELS_DIR (it downloads nothing):
 * time to the first `audio-chunk` and to `audio-stop`, requests alternating
 * between the two, each sentence once per round. Goal: our first chunk ≤
 * wyoming-piper's + 80 ms.
 *
 * The Python environment is made once, outside the repository
 * (`~/.cache/openvox/wyoming-bench-venv`, WYOMING_BENCH_VENV to move it).
 *
 * Stream-input (streamInputFigures): below.
 *
 * Run: npm run bench:agents   (BENCH_N=2 doubles the rounds; BENCH_ONLY=wyoming or stream-input for one half)
 */

const N = Number(process.env.BENCH_N ?? 1);
const MODEL = 'en_US-joe-medium';
const VOICE = 'en-us-joe';
const WYOMING_VERSION = '1.10.2';
const WYOMING_PIPER_VERSION = '2.5.2';
const VENV =
  process.env.WYOMING_BENCH_VENV ??
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'openvox', 'wyoming-bench-venv');
/** Rounds of every sentence on each side. */
const ROUNDS = 3 * N;
const SENTENCES = EVERYDAY_SENTENCES.slice(0, 6);

const fmt = (value: number, digits = 0) => value.toFixed(digits);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const run = promisify(execFile);

/**
 * Until no synthesis is queued or processing, and every stream-input connection that spoke has its entry recorded
 * (its pieces' audio joined): the next request starts on a quiet service.
 */
function settled(stack: { db: Knex }): Promise<void> {
  const count = async (query: Knex.QueryBuilder) => Number((await query.count({ n: '*' }).first())?.n ?? 0);
  return waitFor(
    'syntheses settled',
    async () =>
      (await count(stack.db('syntheses').whereIn('status', ['queued', 'processing']))) === 0 &&
      (await count(
        stack
          .db('syntheses as p')
          .where('p.status', 'completed')
          .whereNotNull('p.part_of')
          .whereNotExists(stack.db('syntheses as s').whereRaw('s.id = p.part_of')),
      )) === 0,
    60_000,
  );
}

/** The venv with wyoming and wyoming-piper, made once; a marker file says it is complete. */
function ensureWyomingVenv(): string {
  const python = path.join(VENV, 'bin', 'python');
  const marker = path.join(VENV, `.wyoming-${WYOMING_VERSION}-piper-${WYOMING_PIPER_VERSION}`);
  if (existsSync(marker)) return python;
  process.stderr.write(`[agents] creating ${VENV} with wyoming-piper==${WYOMING_PIPER_VERSION} (once)\n`);
  rmSync(VENV, { recursive: true, force: true });
  mkdirSync(path.dirname(VENV), { recursive: true });
  execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
  execFileSync(
    python,
    [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      `wyoming==${WYOMING_VERSION}`,
      `wyoming-piper==${WYOMING_PIPER_VERSION}`,
    ],
    { stdio: 'inherit' },
  );
  writeFileSync(marker, '');
  return python;
}

/** One synthesize on a new connection; prints the times (ms from before the connect) of the first audio-chunk and of audio-stop. */
const CLIENT = String.raw`
import asyncio, json, sys, time
from wyoming.client import AsyncTcpClient
from wyoming.tts import Synthesize, SynthesizeVoice

async def main():
    host, port, voice, text = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    started = time.perf_counter()
    first = None
    audio = 0
    async with AsyncTcpClient(host, port) as client:
        await client.write_event(Synthesize(text=text, voice=SynthesizeVoice(name=voice)).event())
        while True:
            event = await client.read_event()
            if event is None:
                raise SystemExit('connection closed')
            if event.type == 'error':
                raise SystemExit(json.dumps(event.data))
            if event.type == 'audio-chunk':
                if first is None:
                    first = time.perf_counter()
                audio += len(event.payload or b'')
            if event.type == 'audio-stop':
                break
    done = time.perf_counter()
    print(json.dumps({'first_ms': (first - started) * 1000, 'total_ms': (done - started) * 1000, 'audio_bytes': audio}))

asyncio.run(main())
`;

interface Timing {
  first_ms: number;
  total_ms: number;
  audio_bytes: number;
}

async function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Wyoming: our server vs wyoming-piper, one sentence per request. Returns the table's rows. */
export async function wyomingFigures(): Promise<string> {
  const python = ensureWyomingVenv();
  const modelsDir = process.env.MODELS_DIR ?? defaultModelsDir();
  if (!existsSync(path.join(modelsDir, `${MODEL}.onnx`)))
    throw new Error(`${MODEL}.onnx is missing in ${modelsDir} (scripts/install.sh fetches it)`);
  process.env.WORKER_METRICS_PORT ??= '0';
  const stack = await startIsolatedStack({
    name: `agents_${process.pid}`,
    childOutput: 'log',
    env: { VOICE_PREVIEWS: 'false', API_METRICS_PORT: '0' },
  });
  let peer: ChildProcess | undefined;
  try {
    await stack.startWorkers(1);
    await stack.startApi();
    const [account] = await stack.createAccounts(1, { credits: 100_000_000, plan: 'pro' });
    const keyReply = await fetch(`${stack.apiUrl}/api/v1/auth/api-keys/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${account.token}` },
      body: JSON.stringify({ name: 'wyoming bench' }),
    });
    if (keyReply.status !== 201) throw new Error(`API key: ${keyReply.status} ${await keyReply.text()}`);
    const { key } = (await keyReply.json()) as { key: string };
    const [ourPort, peerPort] = await freePorts(2);
    await stack.startApi({
      extraEnv: { WYOMING_PORT: String(ourPort), WYOMING_HOST: '127.0.0.1', WYOMING_API_KEY: key },
    });

    const peerDir = path.join(stack.dataDir, 'wyoming-piper');
    mkdirSync(peerDir, { recursive: true });
    const peerLog = openSync(path.join(stack.logDir, 'wyoming-piper.log'), 'a');
    // The model's directory to read; its own directory to download into (it finds the model and downloads nothing).
    peer = spawn(
      python,
      [
        '-m',
        'wyoming_piper',
        '--uri',
        `tcp://127.0.0.1:${peerPort}`,
        '--voice',
        MODEL,
        '--data-dir',
        modelsDir,
        '--download-dir',
        peerDir,
      ],
      { cwd: peerDir, stdio: ['ignore', peerLog, peerLog] },
    );
    await waitFor('wyoming-piper', () => isListening(peerPort), 120_000, peer);

    const script = path.join(stack.dataDir, 'wyoming-client.py');
    writeFileSync(script, CLIENT);
    const request = async (port: number, voice: string, text: string): Promise<Timing> => {
      const { stdout } = await run(python, [script, '127.0.0.1', String(port), voice, text], { timeout: 120_000 });
      return JSON.parse(stdout) as Timing;
    };
    /** Ours, then until its synthesis has ended (its file is stored after the audio): the next request starts on a quiet service. */
    const ours = async (text: string) => {
      const timing = await request(ourPort, VOICE, text);
      await settled(stack);
      return timing;
    };
    const theirs = (text: string) => request(peerPort, MODEL, text);

    // Warm-up: the model sessions loaded, pools started on both sides.
    for (const text of SENTENCES.slice(0, 3)) {
      await ours(text);
      await theirs(text);
    }
    const a: Timing[] = [];
    const b: Timing[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [index, text] of SENTENCES.entries()) {
        // Alternating, each side first every other time.
        if ((round + index) % 2 === 0) {
          a.push(await ours(text));
          b.push(await theirs(text));
        } else {
          b.push(await theirs(text));
          a.push(await ours(text));
        }
      }
    }
    const row = (what: string, pick: (timing: Timing) => number, goal: string) => {
      const [mine, peers] = [median(a.map(pick)), median(b.map(pick))];
      return [
        what,
        `${fmt(mine)} ms`,
        `${fmt(peers)} ms`,
        `${mine >= peers ? '+' : '−'}${fmt(Math.abs(mine - peers))} ms (${fmt(mine / peers, 2)}×)`,
        goal,
      ];
    };
    const seconds = (timings: Timing[]) => median(timings.map((timing) => timing.audio_bytes)) / 2;
    return [
      `Wyoming, one sentence per request (${SENTENCES.length} sentences × ${ROUNDS} rounds each side, p50; audio: ours ${fmt(seconds(a) / 24_000, 2)} s at 24 kHz, wyoming-piper's ${fmt(seconds(b) / 22_050, 2)} s at 22.05 kHz)`,
      '',
      table(
        ['', 'OpenVox', `wyoming-piper ${WYOMING_PIPER_VERSION}`, 'difference', 'goal'],
        [
          row('to the first audio-chunk', (timing) => timing.first_ms, '≤ +80 ms'),
          row('to audio-stop (the whole sentence)', (timing) => timing.total_ms, '—'),
        ],
      ),
    ].join('\n');
  } finally {
    if (peer) await stopChild(peer).catch(() => undefined);
    await stack.close();
  }
}

/**
 * ElevenLabs' stream-input, as a voice agent uses it: a sentence's words sent
 * one by one at about an LLM's pace (50 ms apart, ~20 tokens/s) over the
 * WebSocket, `pcm_24000`. Measured: from the message carrying the sentence's
 * last word to the first audio message. Baseline, alternating with it: the
 * engine's own time for that sentence (renderChunk in this process, the same
 * Piper model). Goal: first audio ≤ the engine's time + 100 ms.
 */
export async function streamInputFigures(): Promise<string> {
  process.env.WORKER_METRICS_PORT ??= '0';
  const modelsDir = process.env.MODELS_DIR ?? defaultModelsDir();
  const stack = await startIsolatedStack({
    name: `agents_ws_${process.pid}`,
    childOutput: 'log',
    env: { VOICE_PREVIEWS: 'false', API_METRICS_PORT: '0' },
  });
  try {
    await stack.startWorkers(1);
    await stack.startApi();
    const [account] = await stack.createAccounts(1, { credits: 100_000_000, plan: 'pro' });
    const engines = sharedEngines({ modelsDir });
    const voice = findPremadeVoice(VOICE)!;
    const scratch = path.join(stack.dataDir, 'engine-sentence.wav');
    const engine = async (text: string) => {
      const started = performance.now();
      await renderChunk({ voice, text, emotion: 'neutral', outPath: scratch, engines });
      return performance.now() - started;
    };
    const socket = (text: string) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(
          `${stack.apiUrl.replace(/^http/, 'ws')}/v1/text-to-speech/${VOICE}/stream-input?output_format=pcm_24000`,
        );
        let lastWordAt = 0;
        let firstAudio = 0;
        ws.on('message', (data) => {
          const message = JSON.parse(String(data)) as { audio?: string; isFinal?: boolean; error?: string };
          if (message.error) reject(new Error(message.error));
          if (message.audio && !firstAudio) {
            firstAudio = performance.now();
            ws.send(JSON.stringify({ text: '' }));
          }
        });
        ws.on('close', () => (firstAudio ? resolve(firstAudio - lastWordAt) : reject(new Error('no audio'))));
        ws.on('error', reject);
        ws.on('open', async () => {
          ws.send(JSON.stringify({ text: ' ', xi_api_key: account.token }));
          for (const word of text.split(' ')) {
            await new Promise((done) => setTimeout(done, 50));
            ws.send(JSON.stringify({ text: `${word} ` }));
            lastWordAt = performance.now();
          }
        });
      });
    for (const text of SENTENCES.slice(0, 3)) {
      await socket(text);
      await settled(stack);
      await engine(text);
    }
    const ours: number[] = [];
    const engineOnly: number[] = [];
    for (let round = 0; round < ROUNDS; round++)
      for (const [index, text] of SENTENCES.entries()) {
        const pair = [
          async () => {
            ours.push(await socket(text));
            await settled(stack);
          },
          async () => {
            engineOnly.push(await engine(text));
          },
        ];
        if ((round + index) % 2 === 1) pair.reverse();
        for (const step of pair) await step();
      }
    const [mine, base] = [median(ours), median(engineOnly)];
    return [
      `ElevenLabs stream-input, a sentence's words 50 ms apart (${SENTENCES.length} sentences × ${ROUNDS} rounds, p50)`,
      '',
      table(
        ['', 'OpenVox over the WebSocket', "the engine's own render", 'difference', 'goal'],
        [
          [
            "first audio after the sentence's last word",
            `${fmt(mine)} ms`,
            `${fmt(base)} ms`,
            `${mine >= base ? '+' : '−'}${fmt(Math.abs(mine - base))} ms (${fmt(mine / base, 2)}×)`,
            '≤ +100 ms',
          ],
        ],
      ),
    ].join('\n');
  } finally {
    await stack.close();
  }
}

async function main() {
  const only = process.env.BENCH_ONLY;
  const sections = [
    ...(only === 'stream-input' ? [] : [await wyomingFigures()]),
    ...(only === 'wyoming' ? [] : [await streamInputFigures()]),
  ];
  process.stdout.write(`${sections.join('\n\n')}\n`);
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
