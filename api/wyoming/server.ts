import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Account } from '../../db/models/Account';
import type { SynthesisRow } from '../../db/models/Synthesis';
import type { Emotion } from '../../audio/prosody';
import { CHUNK_SAMPLE_RATE } from '../../audio/wav';
import { speechPlanOf } from '../../synthesis/speechPlan';
import { defaultVoiceOf } from '../../synthesis/defaultVoice';
import type { ApiDeps } from '../deps';
import { ApiError } from '../errors';
import { cancelSynthesis, submitSynthesis } from '../routes/tts/commands';
import { openStreamSession, type StreamSession } from '../routes/tts/streamSession';
import { SynthesizeBody } from '../routes/tts/schema';
import { takeStreamPlace } from '../routes/openai/speech';
import {
  joinSentences,
  renderedSentences,
  speakInOrder,
  type SpokenInOrder,
  SynthesisEndedError,
} from '../routes/openai/stream';
import { accountOfKey, KeyRefusedError } from './account';
import {
  DEFAULT_FRAMING_LIMITS,
  encodeEvent,
  EventDecoder,
  FramingError,
  type FramingLimits,
  type WyomingEvent,
} from './framing';
import { SentenceBuffer } from './sentences';
import {
  resolveWyomingVoice,
  UnknownVoiceError,
  type WyomingVoiceRequest,
  wyomingVoiceRows,
  wyomingVoices,
} from './voices';

/**
 * A Wyoming server (Home Assistant's voice protocol, TCP) in the API process:
 * Home Assistant's Wyoming integration reaches the service's voices as it
 * reaches wyoming-piper. It acts for the account of one API key
 * (WYOMING_API_KEY): every request is an ordinary synthesis of that account
 * (charged, in its history, a workflow in the Temporal UI), streamed to the
 * client sentence by sentence as the worker renders it.
 *
 * Events taken: `describe` (→ `info`), `synthesize` (one synthesis: one
 * `audio-start`, `audio-chunk`s of 16-bit mono PCM, one `audio-stop`), the
 * streaming form `synthesize-start`, `synthesize-chunk`s, `synthesize-stop`
 * (each sentence is a synthesis of its own, submitted as soon as it is
 * complete, its audio framed by its own `audio-start` and `audio-stop`, then
 * `synthesize-stopped`; the sentences are pieces of a stream session, so
 * history shows the stream as one entry), and `ping` (→ `pong`). A
 * `synthesize` while a stream is open is ignored: Home Assistant sends the
 * stream's whole text that way before `synthesize-stop`, for servers that do
 * not stream. A bad request gets an `error` event (its `code` the API's error
 * code) and the connection is closed, as wyoming-piper does (a client waiting
 * for audio learns at once).
 *
 * A client that leaves before a synthesis's first audio reached it cancels
 * that synthesis (its credits are released); one whose audio had begun
 * completes and is charged, as the API's streams are.
 */

export interface WyomingServerOptions {
  host: string;
  /** 0: any free port (tests). */
  port: number;
  apiKey: string;
  /** Connections at once (more are closed as they are accepted). */
  maxConnections?: number;
  /** A connection with no request running and nothing received for this long is closed; so is one that takes no audio for this long. */
  idleSeconds?: number;
  limits?: FramingLimits;
}

export interface WyomingServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

export const WYOMING_MAX_CONNECTIONS = 32;
export const WYOMING_IDLE_SECONDS = 60;
/** Samples per `audio-chunk` (wyoming-piper's default). */
const SAMPLES_PER_CHUNK = 1024;
/** Events read ahead of the one being handled before the socket stops reading. */
const MAX_QUEUED_EVENTS = 64;
const AUDIO_FORMAT = { rate: CHUNK_SAMPLE_RATE, width: 2, channels: 1 } as const;

export async function startWyomingServer(deps: ApiDeps, options: WyomingServerOptions): Promise<WyomingServer> {
  const sockets = new Set<Socket>();
  // Half-open: a client that sends its request and then ends its side (`nc`) still gets the answer.
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    new Session(deps, options, socket).start();
  });
  server.maxConnections = options.maxConnections ?? WYOMING_MAX_CONNECTIONS;
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const { address, port } = server.address() as AddressInfo;
  // A key that does not work is said at start, not first at Home Assistant's first request.
  accountOfKey(deps.db, options.apiKey).catch((error) =>
    deps.logger.warn({ err: error }, 'WYOMING_API_KEY does not work: every Wyoming request gets an error event'),
  );
  return {
    host: address,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** A failure the client is told about in an `error` event. */
class RequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const textOf = (data: Record<string, unknown>, field: string): string => {
  const value = data[field];
  if (typeof value !== 'string') throw new RequestError('validation_error', `${field}: must be a string.`);
  return value;
};

function voiceRequestOf(data: Record<string, unknown>): WyomingVoiceRequest {
  const voice = data.voice;
  if (voice === undefined || voice === null) return {};
  if (typeof voice !== 'object' || Array.isArray(voice))
    throw new RequestError('validation_error', 'voice: must be an object (name and speaker, or language).');
  const request: WyomingVoiceRequest = {};
  for (const field of ['name', 'language', 'speaker'] as const) {
    const value = (voice as Record<string, unknown>)[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw new RequestError('validation_error', `voice.${field}: must be a string.`);
    request[field] = value;
  }
  return request;
}

function textTypeOf(data: Record<string, unknown>): 'ssml' | 'text' | undefined {
  const format = data.text_format;
  if (format === undefined || format === null) return undefined;
  if (format === 'ssml' || format === 'text') return format;
  throw new RequestError('validation_error', 'text_format: must be text or ssml.');
}

/** What the client is told of a failure: the API's error code and message where there is one. */
function describeFailure(error: unknown): { code: string; text: string } | null {
  if (error instanceof RequestError) return { code: error.code, text: error.message };
  if (error instanceof ApiError) {
    const fields = error.errors ? Object.entries(error.errors).map(([field, [first]]) => `${field}: ${first}`) : [];
    return { code: error.code, text: fields.length > 0 ? fields.join(' ') : error.message };
  }
  if (error instanceof UnknownVoiceError) return { code: 'unknown_voice', text: error.message };
  if (error instanceof KeyRefusedError) return { code: 'authentication_failed', text: error.message };
  if (error instanceof SynthesisEndedError) {
    const failure = error.failure ?? { code: 'synthesis_failed', message: error.message };
    return { code: failure.code, text: failure.message };
  }
  return null;
}

/** The connection is gone (or cut): whatever was waiting on it stops. */
class ClosedError extends Error {}

interface Speaking {
  account: Account;
  voiceId: string;
  textType: 'ssml' | 'text' | undefined;
}

/** An open stream (synthesize-start until synthesize-stop): its sentences, submitted in order and played in order. */
interface OpenStream {
  sentences: SentenceBuffer;
  /** Each sentence a synthesis, submitted in order and played in order; a failure ends the connection (fail). */
  spoken: SpokenInOrder;
  release: () => void;
}

type Join = (samples: Int16Array) => Buffer[];

/** `release` once, however many ways lead to it. */
function onlyOnce(release: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}

class Session {
  private readonly decoder: EventDecoder;
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  private stream: OpenStream | null = null;
  /** Requests running (their audio may wait on the worker: not idle). */
  private running = 0;
  /** A write waits for the client to take what was sent. */
  private waitingOnClient = false;
  private readonly closed = new AbortController();
  /** An error event went out: nothing more is read or answered. */
  private failed = false;
  private readonly log;

  constructor(
    private readonly deps: ApiDeps,
    private readonly options: WyomingServerOptions,
    private readonly socket: Socket,
  ) {
    this.decoder = new EventDecoder(options.limits ?? DEFAULT_FRAMING_LIMITS);
    this.log = deps.logger.child({ wyoming_client: `${socket.remoteAddress}:${socket.remotePort}` });
  }

  start() {
    const { socket } = this;
    socket.setNoDelay(true);
    socket.setTimeout((this.options.idleSeconds ?? WYOMING_IDLE_SECONDS) * 1000);
    socket.on('timeout', () => {
      // Waiting for the worker's audio is not idleness; waiting on a client that takes nothing is.
      if (this.running > 0 && !this.waitingOnClient) return;
      this.log.info('wyoming connection closed: idle');
      socket.destroy();
    });
    socket.on('data', (bytes: Buffer) => this.receive(bytes));
    // The client has sent all it will: answer what it asked, then end this side too.
    socket.once('end', () => void this.queue.finally(() => socket.end()));
    socket.on('error', (error) => this.log.debug({ err: error }, 'wyoming connection error'));
    socket.once('close', () => this.closed.abort(new ClosedError('connection closed')));
  }

  private receive(bytes: Buffer) {
    if (this.failed) return;
    let events: WyomingEvent[];
    try {
      events = this.decoder.push(bytes);
    } catch (error) {
      if (!(error instanceof FramingError)) throw error;
      this.socket.removeAllListeners('data');
      void this.fail(new RequestError('invalid_event', error.message));
      return;
    }
    for (const event of events) {
      this.queued += 1;
      if (this.queued >= MAX_QUEUED_EVENTS) this.socket.pause();
      this.queue = this.queue
        .then(() => (this.closed.signal.aborted || this.failed ? undefined : this.handle(event)))
        .catch((error) => this.fail(error))
        .finally(() => {
          this.queued -= 1;
          if (this.queued < MAX_QUEUED_EVENTS / 2) this.socket.resume();
        });
    }
  }

  /** Tells the client what failed (unexpected failures as internal_error) and closes the connection. */
  private async fail(error: unknown) {
    if (this.closed.signal.aborted || this.failed) return;
    this.failed = true;
    const described = describeFailure(error);
    if (!described) this.log.error({ err: error }, 'wyoming request failed');
    const { code, text } = described ?? { code: 'internal_error', text: 'The request failed.' };
    this.socket.end(encodeEvent({ type: 'error', data: { text, code } }));
    // Everything after the failure is dropped; the 'close' aborts what still runs.
    this.socket.pause();
  }

  private async send(event: WyomingEvent) {
    const { signal } = this.closed;
    if (signal.aborted) throw signal.reason;
    if (this.socket.write(encodeEvent(event))) return;
    this.waitingOnClient = true;
    try {
      await once(this.socket, 'drain', { signal });
    } catch {
      throw signal.reason instanceof Error ? signal.reason : new ClosedError('connection closed');
    } finally {
      this.waitingOnClient = false;
    }
  }

  private async handle(event: WyomingEvent) {
    const { data } = event;
    switch (event.type) {
      case 'describe':
        return this.describe();
      case 'ping':
        return this.send({ type: 'pong', data: typeof data.text === 'string' ? { text: data.text } : {} });
      case 'synthesize':
        // Home Assistant repeats a stream's whole text as a plain synthesize before synthesize-stop: never spoken twice.
        if (this.stream) return this.log.debug('synthesize inside a stream ignored');
        return this.whileRunning(this.synthesize(data));
      case 'synthesize-start':
        if (this.stream) throw new RequestError('invalid_event', 'A stream is already open (synthesize-stop ends it).');
        return this.startStream(data);
      case 'synthesize-chunk':
        if (!this.stream)
          throw new RequestError('invalid_event', 'synthesize-chunk outside a stream (synthesize-start opens one).');
        for (const sentence of this.stream.sentences.add(textOf(data, 'text'))) this.stream.spoken.speak(sentence);
        return;
      case 'synthesize-stop':
        if (!this.stream)
          throw new RequestError('invalid_event', 'synthesize-stop outside a stream (synthesize-start opens one).');
        return this.stopStream(this.stream);
      default:
        // Other services' events (audio from a satellite, transcripts...): not for a TTS server.
        this.log.debug({ type: event.type }, 'wyoming event ignored');
    }
  }

  /** A request's work: while it runs, a connection that only waits for the worker's audio is not idle. */
  private async whileRunning<T>(work: Promise<T>): Promise<T> {
    this.running += 1;
    try {
      return await work;
    } finally {
      this.running -= 1;
    }
  }

  private async describe() {
    const account = await accountOfKey(this.deps.db, this.options.apiKey);
    const voices = wyomingVoices(await wyomingVoiceRows(this.deps.db, account), this.deps.config.PUBLIC_URL);
    await this.send({
      type: 'info',
      data: {
        asr: [],
        tts: [
          {
            name: 'openvox',
            attribution: { name: 'OpenVox', url: this.deps.config.PUBLIC_URL },
            installed: true,
            description: 'OpenVox text to speech: neural and classic voices, your cloned voices',
            version: null,
            voices,
            supports_synthesize_streaming: true,
          },
        ],
        handle: [],
        intent: [],
        wake: [],
        mic: [],
        snd: [],
      },
    });
  }

  /** The account and the voice a synthesize or synthesize-start asks for (the account's default voice when it names none). */
  private async speaking(data: Record<string, unknown>): Promise<Speaking> {
    const voiceRequest = voiceRequestOf(data);
    const textType = textTypeOf(data);
    const account = await accountOfKey(this.deps.db, this.options.apiKey);
    const rows = await wyomingVoiceRows(this.deps.db, account);
    // No voice asked for: the account's default voice, as the API's requests without one.
    const asked =
      voiceRequest.name || voiceRequest.language
        ? voiceRequest
        : { name: (await defaultVoiceOf(this.deps.db, account.id)).id };
    const voice = resolveWyomingVoice(rows, asked);
    return { account, voiceId: voice.id, textType };
  }

  /** `session`: a stream's sentence, a piece of the stream's one history entry. */
  private async submit(
    { account, voiceId, textType }: Speaking,
    text: string,
    session?: StreamSession,
  ): Promise<SynthesisRow> {
    if (this.closed.signal.aborted) throw this.closed.signal.reason;
    const body = SynthesizeBody.safeParse({ text, voice_id: voiceId, ...(textType && { text_type: textType }) });
    if (!body.success) throw new RequestError('validation_error', body.error.issues[0]?.message ?? 'Invalid request.');
    if (session) await session.started;
    const { row } = await submitSynthesis(this.deps, account, body.data, undefined, {
      streaming: true,
      ...(session && { partOf: session.nextPart() }),
    });
    this.log.info({ synthesis_id: row.id, voice_id: voiceId, characters: row.characters }, 'wyoming synthesis');
    return row;
  }

  private async synthesize(data: Record<string, unknown>) {
    const text = textOf(data, 'text');
    const speaking = await this.speaking(data);
    const release = takeStreamPlace(this.deps, speaking.account, false);
    try {
      await this.play(await this.submit(speaking, text));
    } finally {
      release();
    }
  }

  private async startStream(data: Record<string, unknown>) {
    if (textTypeOf(data) === 'ssml')
      throw new RequestError(
        'validation_error',
        'text_format: an SSML document is taken by synthesize, not in a stream.',
      );
    const speaking = await this.speaking(data);
    const releasePlace = takeStreamPlace(this.deps, speaking.account, false);
    // The stream is one entry in history: its sentences are its pieces (as a stream-input connection's).
    const session = openStreamSession(this.deps, speaking.account);
    // One join over the stream: the pause between two sentences goes before the second one's audio.
    const join = joinSentences('neutral', 1);
    const spoken = speakInOrder({
      submit: (sentence) => this.submit(speaking, sentence, session),
      play: (row) => this.play(row, join),
      cancel: (row) => this.cancelInBackground(row),
      fail: (error) => void this.fail(error),
      track: (work) => this.whileRunning(work),
    });
    const release = onlyOnce(() => {
      releasePlace();
      // Once every sentence has played or been canceled (a closed connection stops them), the entry is recorded.
      void spoken
        .played()
        .catch(() => undefined)
        .then(() => session.close());
    });
    this.stream = { sentences: new SentenceBuffer(), spoken, release };
    this.closed.signal.addEventListener('abort', release, { once: true });
  }

  private cancelInBackground(row: SynthesisRow) {
    this.deps.background.run(
      () => cancelSynthesis(this.deps, row.id),
      (error) => this.log.warn({ err: error, synthesis_id: row.id }, 'cancel of an unheard synthesis failed'),
    );
  }

  private async stopStream(stream: OpenStream) {
    const rest = stream.sentences.finish();
    if (rest) stream.spoken.speak(rest);
    try {
      await stream.spoken.played();
    } catch {
      // Already told (speak).
      return;
    } finally {
      this.stream = null;
      stream.release();
    }
    await this.send({ type: 'synthesize-stopped', data: {} });
  }

  /**
   * A synthesis's audio as it renders: `audio-start`, its sentences as
   * `audio-chunk`s (joined as the API's streams join them), `audio-stop`. A
   * connection gone before any of its audio went out cancels the synthesis.
   */
  private async play(row: SynthesisRow, streamJoin?: Join) {
    const { signal } = this.closed;
    let started = false;
    try {
      if (signal.aborted) throw signal.reason;
      // The chunks the worker renders: the plan it stored (a stream's sentence is usually one).
      const plan = await speechPlanOf(this.deps.db, row);
      const join = streamJoin ?? joinSentences(row.emotion as Emotion, row.speed, plan.pauseSeconds);
      for await (const samples of renderedSentences(this.deps, row, plan.chunks.length, signal)) {
        if (!started) {
          await this.send({ type: 'audio-start', data: { ...AUDIO_FORMAT, timestamp: 0 } });
          started = true;
        }
        for (const pcm of join(samples))
          for (let at = 0; at < pcm.length; at += SAMPLES_PER_CHUNK * 2)
            await this.send({
              type: 'audio-chunk',
              data: { ...AUDIO_FORMAT },
              payload: pcm.subarray(at, at + SAMPLES_PER_CHUNK * 2),
            });
      }
      if (signal.aborted) throw signal.reason;
      await this.send({ type: 'audio-stop', data: {} });
    } finally {
      if (signal.aborted && !started) this.cancelInBackground(row);
    }
  }
}
