import type { Context } from 'koa';
import { PassThrough, type Readable, Transform } from 'node:stream';
import type { Account } from '../../../db/models/Account';
import type { SynthesisRow } from '../../../db/models/Synthesis';
import type { Emotion } from '../../../audio/prosody';
import type { ApiDeps } from '../../deps';
import { ApiError, rateLimited, serviceUnavailable } from '../../errors';
import { createOpenCounts } from '../../openCounts';
import { cancelSynthesis, submitSynthesis } from '../tts/commands';
import { emotionOf, HISTORY_FORMAT, mapSpeed, type ResponseFormat, type SpeechBody } from './schema';
import { resolveOpenAiVoice } from './voices';
import {
  CONTENT_TYPES,
  createStreamEncoder,
  type FfmpegEncoding,
  joinSentences,
  renderedSentences,
  SynthesisEndedError,
} from './stream';
import { CHUNK_SAMPLE_RATE } from '../../../audio/wav';
import { speechPlanOf } from '../../../synthesis/speechPlan';
import { defaultVoiceOf } from '../../../synthesis/defaultVoice';
import { toOpenAiError } from './errors';

/**
 * Open speech streams in this process: per account (each holds a render
 * slot's wait, a connection and, once audio flows, an encoder) and the
 * encoder processes of all of them (mp3, opus, aac, flac: an ffmpeg child
 * each; wav and pcm need none). Checked before anything is reserved.
 */
const openStreams = createOpenCounts();
/** The key every stream with an encoder process (mp3, opus, aac, flac) counts under. */
const ENCODERS = 'encoders';

/** Takes a place for one more stream of the account (429 beyond SPEECH_MAX_STREAMS_PER_ACCOUNT, 503 when every encoder is busy), given back when the response closes. */
export function holdStreamPlace(ctx: Context, deps: ApiDeps, account: Account, body: SpeechBody): void {
  const usesEncoder = body.response_format !== 'wav' && body.response_format !== 'pcm';
  ctx.res.once('close', takeStreamPlace(deps, account, usesEncoder));
}

/**
 * Takes a place for one more stream of the account (any protocol's: the
 * ElevenLabs-compatible routes and WebSocket count here too) and, with
 * `usesEncoder`, an encoder process's; returns the function that gives them back.
 */
export function takeStreamPlace({ config }: ApiDeps, account: Account, usesEncoder: boolean): () => void {
  const accountKey = `account:${account.id}`;
  if (openStreams.atLimit(accountKey, config.SPEECH_MAX_STREAMS_PER_ACCOUNT)) throw rateLimited(1);
  if (usesEncoder && openStreams.atLimit(ENCODERS, config.SPEECH_MAX_ENCODERS))
    throw serviceUnavailable('stream encoders (all busy; wav and pcm need none)');
  return openStreams.hold(usesEncoder ? [accountKey, ENCODERS] : [accountKey]);
}

/**
 * Submits an OpenAI speech request as a synthesis (the same workflow,
 * reservation, capture and history entry as POST /tts/synthesize/), rendered
 * sentence by sentence.
 */
export async function submitSpeech(
  deps: ApiDeps,
  account: Account,
  body: SpeechBody,
): Promise<{ row: SynthesisRow; warnings: string[] }> {
  // No voice named: the account's default voice (the service default when it has none, or its own cannot speak).
  const voiceId =
    body.voice === undefined
      ? (await defaultVoiceOf(deps.db, account.id)).id
      : await resolveOpenAiVoice(deps.db, body.voice);
  return submitSynthesis(
    deps,
    account,
    {
      text: body.input,
      voice_id: voiceId,
      speed: mapSpeed(body.speed),
      pitch: 0,
      emotion: emotionOf(body.instructions),
      output_format: HISTORY_FORMAT[body.response_format],
      text_normalization: body.text_normalization,
      pronunciation_dictionary_ids: body.pronunciation_dictionary_ids,
      text_type: body.text_type,
    },
    undefined,
    { streaming: true },
  );
}

const sse = (event: unknown) => `data: ${JSON.stringify(event)}\n\n`;

/** How a speech stream is encoded and answered (the OpenAI-compatible endpoint's shape, or another protocol's). */
export interface StreamShape {
  encoder: ResponseFormat | FfmpegEncoding;
  /**
   * Sets the response's type and body from the encoder's output; `sent` is
   * told every byte of audio handed to the client. Returns how to end the body
   * with a failure once it has started (null: raw audio can only stop short).
   */
  respond(ctx: Context, output: Readable, sent: (bytes: number) => void): ((failure: Failure) => void) | null;
  /** Told each sentence before its audio goes to the encoder: its index and its start in the stream (seconds). */
  sentence?(index: number, startSeconds: number, samples: Int16Array): Promise<void>;
  /** Told a sentence's index as soon as its audio is there, before it is leveled (to start reading what `sentence` needs). */
  ahead?(index: number): void;
}
type Failure = { code: string; message: string };

/** OpenAI's shape: the encoded bytes, or `speech.audio.delta` events ending with `speech.audio.done`. */
function openAiShape(row: SynthesisRow, body: SpeechBody): StreamShape {
  return {
    encoder: body.response_format,
    respond(ctx, output, sent) {
      if (body.stream_format === 'sse') {
        const events = new PassThrough();
        ctx.type = 'text/event-stream';
        output.on('data', (bytes: Buffer) => {
          sent(bytes.length);
          events.write(sse({ type: 'speech.audio.delta', audio: bytes.toString('base64') }));
        });
        output.once('end', () =>
          events.end(
            sse({
              type: 'speech.audio.done',
              usage: { input_tokens: row.characters, output_tokens: 0, total_tokens: row.characters },
            }),
          ),
        );
        ctx.body = events;
        // SSE can still say why; raw audio can only stop short (the chunked body never ends cleanly).
        return (failure) =>
          events.end(
            sse({
              type: 'error',
              ...toOpenAiError(new ApiError(500, failure.code, 'Synthesis failed', failure.message)).body,
            }),
          );
      }
      ctx.type = CONTENT_TYPES[body.response_format];
      ctx.body = countedAudio(output, sent);
      return null;
    },
  };
}

/** The encoder's output as the body, each byte counted as Koa hands it to the socket. */
export function countedAudio(output: Readable, sent: (bytes: number) => void): Readable {
  // (A 'data' listener on the encoder would start it flowing before Koa reads it.)
  const counted = new Transform({
    transform(bytes: Buffer, _encoding, done) {
      sent(bytes.length);
      done(null, bytes);
    },
  });
  output.on('error', (error) => counted.destroy(error));
  return output.pipe(counted);
}

/**
 * Answers with the synthesis's audio as it renders: headers go out with the
 * first sentence (a failure before it is a proper error answer), then every
 * sentence through one encoder, chunked. The encoder is taken once the first
 * sentence is there, so a stream waiting for a render slot holds no encoder
 * process. `stream_format: "sse"` wraps the same bytes in OpenAI's
 * `speech.audio.delta` events and ends with `speech.audio.done`.
 *
 * A client that goes away before any audio reached it cancels the synthesis
 * through the same path as DELETE: its credits are released. Once audio went
 * out, the synthesis completes and is charged in full, as OpenAI charges a
 * request; the complete audio stays in the history. (Charging only the
 * delivered sentences would turn a read-most-then-hang-up into a discount,
 * and a stored entry would hold audio nobody paid for.)
 */
export async function streamSpeech(ctx: Context, deps: ApiDeps, row: SynthesisRow, body: SpeechBody): Promise<void> {
  await streamSynthesis(ctx, deps, row, openAiShape(row, body));
}

/** streamSpeech in any shape (the ElevenLabs-compatible routes use it with theirs). */
export async function streamSynthesis(
  ctx: Context,
  deps: ApiDeps,
  row: SynthesisRow,
  shape: StreamShape,
): Promise<void> {
  const abort = new AbortController();
  /** Audio bytes handed to the socket so far. */
  let audioSent = 0;
  let left = false;
  const onClose = () => {
    if (left || ctx.res.writableFinished) return;
    left = true;
    abort.abort();
    if (audioSent > 0) {
      deps.logger.info(
        { synthesis_id: row.id, audio_bytes_sent: audioSent },
        'client left after audio went out: the synthesis completes and is charged',
      );
      return;
    }
    deps.background.run(
      () => cancelSynthesis(deps, row.id),
      (error) => deps.logger.warn({ err: error, synthesis_id: row.id }, 'cancel after client disconnect failed'),
    );
  };
  ctx.res.once('close', onClose);
  // The client may have gone while the reservation was being answered, before this listener existed.
  if (ctx.req.socket.destroyed) onClose();

  // The chunks the worker renders (one per sentence; an SSML document's by its segments): the plan it stored.
  const plan = await speechPlanOf(deps.db, row);
  const sentences = renderedSentences(deps, row, plan.chunks.length, abort.signal);
  let first: IteratorResult<Int16Array>;
  try {
    first = await sentences.next();
  } catch (error) {
    if (error instanceof SynthesisEndedError) {
      const failure = error.failure ?? { code: 'synthesis_failed', message: error.message };
      throw new ApiError(500, failure.code, 'Synthesis failed', failure.message);
    }
    throw error;
  }
  if (abort.signal.aborted || first.done) {
    // Its `finally` runs: the progress watch closes and the workflow hears that the reader stopped.
    await sentences.return(undefined);
    return;
  }
  // The encoder process (spares are started ahead) only once there is audio for it.
  // A text of one sentence: its whole audio is known before the first byte goes out.
  // Ended with the stream: a write waiting on a client that is gone gives up instead of holding the reader forever.
  const encoder = createStreamEncoder(shape.encoder, { whole: plan.chunks.length === 1, signal: abort.signal });

  const join = joinSentences(row.emotion as Emotion, row.speed, plan.pauseSeconds);
  ctx.status = 200;
  ctx.set('X-Synthesis-Id', row.id);
  ctx.req.socket.setNoDelay(true);
  const fail = shape.respond(ctx, encoder.output, (bytes) => {
    audioSent += bytes;
  });
  /** Samples handed to the encoder so far: where the next sentence starts. */
  let samplesIn = 0;
  let index = 0;
  const feed = async (samples: Int16Array) => {
    shape.ahead?.(index);
    const pieces = join(samples);
    if (shape.sentence) {
      // The pause before the sentence (all but the first) comes first.
      const before = pieces.slice(0, -1).reduce((sum, piece) => sum + piece.length / 2, 0);
      await shape.sentence(index, (samplesIn + before) / CHUNK_SAMPLE_RATE, samples);
    }
    index += 1;
    for (const pcm of pieces) {
      samplesIn += pcm.length / 2;
      await onClient(encoder.write(pcm));
    }
  };

  // A client that takes nothing more while its connection stays open holds the pump on a write, and with it the
  // reader and the synthesis's workflow (which keeps the chunks for it): cut after SPEECH_STALL_SECONDS in which the
  // pump waited on the client and no byte went out. Time spent waiting for the worker's next sentence does not count.
  const stallMs = deps.config.SPEECH_STALL_SECONDS * 1000;
  let waitingOnClient = false;
  let sentBefore = audioSent;
  let quietSince = Date.now();
  const watchdog = setInterval(
    () => {
      if (!waitingOnClient || audioSent !== sentBefore) {
        sentBefore = audioSent;
        quietSince = Date.now();
      } else if (Date.now() - quietSince >= stallMs) {
        clearInterval(watchdog);
        deps.logger.warn(
          { synthesis_id: row.id, audio_bytes_sent: audioSent, stall_seconds: deps.config.SPEECH_STALL_SECONDS },
          'speech stream cut: the client took nothing for SPEECH_STALL_SECONDS',
        );
        // Its 'close' ends the stream as a client that left does (onClose).
        ctx.res.destroy();
      }
    },
    Math.min(1_000, stallMs / 4),
  ).unref();
  const onClient = async (step: Promise<void>) => {
    waitingOnClient = true;
    try {
      await step;
    } finally {
      waitingOnClient = false;
    }
  };
  const pump = async () => {
    try {
      await feed(first.value);
      for await (const samples of sentences) await feed(samples);
    } finally {
      // A write that failed before the loop took the generator over leaves it suspended: its `finally` runs here.
      await sentences.return(undefined);
    }
    if (abort.signal.aborted) return encoder.destroy();
    await onClient(encoder.end());
  };
  pump()
    .finally(() => clearInterval(watchdog))
    .catch((error) => {
      encoder.destroy();
      if (abort.signal.aborted) return;
      deps.logger.warn({ err: error, synthesis_id: row.id }, 'speech stream ended early');
      if (fail) {
        fail(
          error instanceof SynthesisEndedError
            ? (error.failure ?? { code: 'synthesis_failed', message: error.message })
            : { code: 'internal_error', message: 'The stream failed.' },
        );
      } else {
        ctx.res.destroy();
      }
    });
}
