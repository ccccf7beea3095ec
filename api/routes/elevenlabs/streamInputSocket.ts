import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { Account } from '../../../db/models/Account';
import type { SynthesisRow } from '../../../db/models/Synthesis';
import { Voice } from '../../../db/models/Voice';
import { speechPlanOf } from '../../../synthesis/speechPlan';
import { accountOfCredential, bearerCredential } from '../../auth/authenticate';
import type { ApiDeps } from '../../deps';
import { toApiError } from '../../failures';
import {
  createStreamEncoder,
  joinSentences,
  renderedSentences,
  speakInOrder,
  type StreamEncoder,
} from '../openai/stream';
import { takeStreamPlace } from '../openai/speech';
import { cancelSynthesis, submitSynthesis } from '../tts/commands';
import { openStreamSession, type StreamSession } from '../tts/streamSession';
import { appendAlignment, type CharacterAlignment } from './alignment';
import { toElevenLabsError } from './errors';
import { encodingOf, type Encoding, OUTPUT_FORMATS, type OutputFormatCode, DEFAULT_OUTPUT_FORMAT } from './formats';
import { isKnownModel, sentenceAligner } from './speech';
import {
  CLOSE,
  inactivitySecondsOf,
  keyOfMessage,
  parseStreamInputMessage,
  StreamInputError,
  type StreamInputMessage,
  TextBuffer,
} from './streamInput';
import { CHUNK_SAMPLE_RATE } from '../../../audio/wav';

/**
 * The serving half of ElevenLabs' stream-input WebSocket: the upgrade, the
 * key, and a connection's text turned into speech as it arrives. Each piece
 * of text TextBuffer declares ready is one streamed synthesis of the account
 * (submitted in order, its audio sent in order through one encoder per
 * connection), charged like any stream; a piece whose audio never reached
 * the client is canceled, uncharged. The pieces are parts of the
 * connection's stream session (tts/streamSession.ts): history shows the
 * connection as one synthesis, recorded from them once it has closed. The
 * protocol's messages and rules are in streamInput.ts.
 */

const PATH = /^\/v1\/text-to-speech\/([^/]{1,200})\/stream-input\/?$/;
/** A client message larger than this is refused by the WebSocket itself (ElevenLabs' text messages are small). */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** A connection's unread messages beyond this pause reading (a client cannot queue unbounded work). */
const MAX_QUEUED_MESSAGES = 64;

export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => boolean;

/** The API server's upgrade hook for stream-input: true when the request was stream-input's (answered here). */
export function streamInputUpgrade(deps: ApiDeps): UpgradeHandler {
  const server = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  return (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const match = PATH.exec(url.pathname);
    if (!match) return false;
    server.handleUpgrade(request, socket, head, (ws) => {
      new StreamInputSession(deps, ws, request, decodeURIComponent(match[1]), url.searchParams).start();
    });
    return true;
  };
}

/** ElevenLabs' WebSocket alignment: characters, their starts and durations in milliseconds from the message's audio. */
interface SocketAlignment {
  chars: string[];
  charStartTimesMs: number[];
  charDurationsMs: number[];
}

function socketAlignment(alignment: CharacterAlignment, fromSeconds: number): SocketAlignment {
  const ms = (seconds: number) => Math.max(0, Math.round((seconds - fromSeconds) * 1000));
  return {
    chars: alignment.characters,
    charStartTimesMs: alignment.character_start_times_seconds.map(ms),
    charDurationsMs: alignment.character_end_times_seconds.map(
      (end, i) => ms(end) - ms(alignment.character_start_times_seconds[i]),
    ),
  };
}

class StreamInputSession {
  private account: Account | null = null;
  private session: StreamSession | null = null;
  private buffer: TextBuffer | null = null;
  private speed = 1;
  private encoding: Encoding | null = null;
  private encoder: StreamEncoder | null = null;
  private readonly join = joinSentences('neutral', 1);
  /** Samples handed to the encoder so far (where the next sentence starts in the connection's audio). */
  private samplesIn = 0;
  /** Alignments of sentences whose audio went into the encoder, sent with its next output. */
  private pendingAlignment: { alignment: CharacterAlignment; from: number } | null = null;
  /** Each piece a synthesis, submitted in order and played in order; a failure ends the connection (fail). */
  private readonly spoken = speakInOrder<SynthesisRow>({
    submit: (text) => this.submit(text),
    play: (row) => this.play(row),
    cancel: (row) => this.cancelInBackground(row),
    fail: (error) => void this.fail(error),
  });
  private release: (() => void) | null = null;
  private readonly closed = new AbortController();
  private messages: Promise<void> = Promise.resolve();
  private queued = 0;
  private failed = false;
  private inactivity: NodeJS.Timeout | undefined;
  private inactivitySeconds = 0;
  private readonly log;

  constructor(
    private readonly deps: ApiDeps,
    private readonly ws: WebSocket,
    private readonly request: IncomingMessage,
    private readonly voiceId: string,
    private readonly query: URLSearchParams,
  ) {
    this.log = deps.logger.child({ stream_input: voiceId });
  }

  start() {
    this.ws.on('message', (data: RawData, isBinary: boolean) => this.receive(data, isBinary));
    this.ws.once('close', () => {
      clearTimeout(this.inactivity);
      this.closed.abort(new Error('connection closed'));
      this.encoder?.destroy();
      this.release?.();
      // Once every piece submitted has played or been canceled (the abort above stops them), the entry is recorded.
      const session = this.session;
      if (session) void Promise.allSettled([this.messages, this.spoken.played()]).then(() => session.close());
    });
    this.ws.on('error', (error) => this.log.debug({ err: error }, 'stream-input connection error'));
    try {
      this.inactivitySeconds = inactivitySecondsOf(this.query.get('inactivity_timeout') ?? undefined);
      const model = this.query.get('model_id');
      if (model && !isKnownModel(model))
        throw new StreamInputError('model_not_found', `Unknown model '${model}'; see GET /v1/models.`, CLOSE.policy);
      const format = this.query.get('output_format') ?? DEFAULT_OUTPUT_FORMAT;
      if (!(OUTPUT_FORMATS as readonly string[]).includes(format))
        throw new StreamInputError(
          'invalid_output_format',
          `Unknown output_format; one of: ${OUTPUT_FORMATS.join(', ')}.`,
          CLOSE.policy,
        );
      this.encoding = encodingOf(format as OutputFormatCode);
    } catch (error) {
      void this.fail(error);
      return;
    }
    this.armInactivity();
  }

  /** Messages are handled one at a time, in order; a client far ahead of the handling is paused. */
  private receive(data: RawData, isBinary: boolean) {
    if (this.failed) return;
    this.armInactivity();
    this.queued += 1;
    if (this.queued >= MAX_QUEUED_MESSAGES) this.ws.pause();
    this.messages = this.messages
      .then(() => (this.failed || this.closed.signal.aborted ? undefined : this.handle(data, isBinary)))
      .catch((error) => this.fail(error))
      .finally(() => {
        this.queued -= 1;
        if (this.queued < MAX_QUEUED_MESSAGES / 2) this.ws.resume();
      });
  }

  private armInactivity() {
    clearTimeout(this.inactivity);
    if (this.inactivitySeconds === 0) return;
    this.inactivity = setTimeout(() => {
      void this.fail(
        new StreamInputError(
          'input_timeout_exceeded',
          `No text received within the timeout of ${this.inactivitySeconds} seconds; the connection is closed.`,
          CLOSE.policy,
        ),
      );
    }, this.inactivitySeconds * 1000);
    this.inactivity.unref();
  }

  private async handle(data: RawData, isBinary: boolean) {
    if (isBinary)
      throw new StreamInputError('invalid_message', 'Messages are JSON text, not binary.', CLOSE.invalidData);
    const message = parseStreamInputMessage(Buffer.isBuffer(data) ? data.toString('utf8') : String(data));
    if (!this.account) return this.open(message);
    if (message.text === '') return this.end();
    for (const piece of this.buffer!.add(message.text, {
      flush: message.flush,
      tryTrigger: message.try_trigger_generation,
    }))
      this.spoken.speak(piece);
  }

  /** The first message: the key (or the upgrade's headers), the settings, and the stream's place. */
  private async open(message: StreamInputMessage) {
    const header = this.request.headers['xi-api-key'];
    const bearer = bearerCredential(this.request.headers.authorization);
    const key = keyOfMessage(message) ?? (typeof header === 'string' && header ? header : bearer);
    if (!key)
      throw new StreamInputError(
        'needs_authorization',
        'Send your API key as xi-api-key (a header of the upgrade, or a field of the first message).',
        CLOSE.policy,
      );
    let account: Account;
    try {
      account = await accountOfCredential(this.deps, key);
    } catch {
      throw new StreamInputError('invalid_api_key', 'Invalid API key.', CLOSE.policy);
    }
    const voice = await Voice.query(this.deps.db)
      .modify('visibleTo', account)
      .findById(this.voiceId)
      .select('id', 'status');
    if (!voice) throw new StreamInputError('voice_not_found', `Unknown voice '${this.voiceId}'.`, CLOSE.policy);
    this.release = takeStreamPlace(this.deps, account, this.encoding!.usesProcess);
    this.account = account;
    this.session = openStreamSession(this.deps, account);
    this.speed = message.voice_settings?.speed ?? 1;
    this.buffer = new TextBuffer(message.generation_config?.chunk_length_schedule);
    // The first message's text is usually " " (nothing to say); anything more is the start of the text.
    for (const piece of this.buffer.add(message.text, { flush: message.flush })) this.spoken.speak(piece);
  }

  /** `{"text": ""}`: what is left is spoken, then the last audio, `isFinal`, and a normal close. */
  private async end() {
    // The client has said all it will: the wait for the last audio is not inactivity.
    this.inactivitySeconds = 0;
    clearTimeout(this.inactivity);
    for (const piece of this.buffer!.end()) this.spoken.speak(piece);
    await this.spoken.played();
    if (this.encoder) {
      const finished = new Promise<void>((resolve) => this.encoder!.output.once('end', () => resolve()));
      await this.encoder.end();
      await finished;
    }
    if (this.pendingAlignment) this.sendAudio(Buffer.alloc(0));
    await this.send({ isFinal: true });
    this.ws.close(CLOSE.normal);
  }

  private async submit(text: string): Promise<SynthesisRow> {
    if (this.closed.signal.aborted) throw this.closed.signal.reason;
    await this.session!.started;
    if (this.closed.signal.aborted) throw this.closed.signal.reason;
    const { row } = await submitSynthesis(
      this.deps,
      this.account!,
      {
        text,
        voice_id: this.voiceId,
        speed: this.speed,
        pitch: 0,
        emotion: 'neutral',
        output_format: this.encoding!.history,
        text_normalization: 'auto',
      },
      undefined,
      { streaming: true, partOf: this.session!.nextPart() },
    );
    this.log.info({ synthesis_id: row.id, characters: row.characters }, 'stream-input synthesis');
    return row;
  }

  /** A piece's sentences as they render, through the connection's encoder; its alignment goes with the next audio. */
  private async play(row: SynthesisRow) {
    const { signal } = this.closed;
    const plan = await speechPlanOf(this.deps.db, row);
    const align = sentenceAligner(this.deps, row);
    let index = 0;
    let started = false;
    try {
      for await (const samples of renderedSentences(this.deps, row, plan.chunks.length, signal)) {
        // The words are read while the sentence is leveled.
        align.prefetch(index);
        const pieces = this.join(samples);
        const before = pieces.slice(0, -1).reduce((sum, piece) => sum + piece.length / 2, 0);
        const from = (this.samplesIn + before) / CHUNK_SAMPLE_RATE;
        const alignment = await align(index, from, samples);
        index += 1;
        if (alignment) {
          if (this.pendingAlignment) appendAlignment(this.pendingAlignment.alignment, alignment);
          else this.pendingAlignment = { alignment, from };
        }
        const encoder = this.encoderOnce();
        for (const pcm of pieces) {
          this.samplesIn += pcm.length / 2;
          await encoder.write(pcm);
          started = true;
        }
      }
    } finally {
      if (signal.aborted && !started) this.cancelInBackground(row);
    }
  }

  /** The connection's one encoder (one header and one codec state for all its audio), taken at its first audio. */
  private encoderOnce(): StreamEncoder {
    if (this.encoder) return this.encoder;
    const encoder = createStreamEncoder(this.encoding!.encoder, { signal: this.closed.signal });
    encoder.output.on('data', (bytes: Buffer) => this.sendAudio(bytes));
    encoder.output.on('error', (error) => void this.fail(error));
    this.encoder = encoder;
    return encoder;
  }

  private sendAudio(bytes: Buffer) {
    const pending = this.pendingAlignment;
    this.pendingAlignment = null;
    const alignment = pending ? socketAlignment(pending.alignment, pending.from) : null;
    void this.send({
      audio: bytes.toString('base64'),
      ...(alignment ? { alignment, normalizedAlignment: alignment } : { alignment: null, normalizedAlignment: null }),
    }).catch(() => undefined);
  }

  private send(message: object): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.ws.readyState !== this.ws.OPEN) return reject(new Error('connection closed'));
      this.ws.send(JSON.stringify(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  private cancelInBackground(row: SynthesisRow) {
    this.deps.background.run(
      () => cancelSynthesis(this.deps, row.id),
      (error) => this.log.warn({ err: error, synthesis_id: row.id }, 'cancel of an unheard synthesis failed'),
    );
  }

  /** Tells the client what failed, in ElevenLabs' shape, and closes with the protocol's code. */
  private async fail(error: unknown) {
    if (this.failed || this.closed.signal.aborted) return;
    this.failed = true;
    clearTimeout(this.inactivity);
    let failure: StreamInputError;
    if (error instanceof StreamInputError) failure = error;
    else {
      const { error: apiError, unexpected } = toApiError(error);
      if (unexpected) this.log.error({ err: error }, 'stream-input failed');
      const { status, body } = toElevenLabsError(apiError, `/v1/text-to-speech/${this.voiceId}/stream-input`);
      failure = new StreamInputError(
        body.detail.status,
        body.detail.message,
        status >= 500 ? CLOSE.internal : CLOSE.policy,
      );
    }
    await this.send(failure.toMessage()).catch(() => undefined);
    this.ws.close(failure.closeCode, failure.error.slice(0, 120));
  }
}
