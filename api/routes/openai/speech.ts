import type { Context } from 'koa';
import { PassThrough } from 'node:stream';
import type { Account } from '../../../db/models/Account';
import type { SynthesisRow } from '../../../db/models/Synthesis';
import type { Emotion } from '../../../audio/prosody';
import type { ApiDeps } from '../../deps';
import { ApiError } from '../../errors';
import { cancelSynthesis, submitSynthesis } from '../tts/commands';
import { emotionOf, HISTORY_FORMAT, mapSpeed, type SpeechBody } from './schema';
import { resolveOpenAiVoice } from './voices';
import { CONTENT_TYPES, createStreamEncoder, joinSentences, oneSentence, renderedSentences, SynthesisEndedError } from './stream';
import { toOpenAiError } from './errors';

/**
 * Submits an OpenAI speech request as a synthesis (the same workflow,
 * reservation, capture and history entry as POST /tts/synthesize/), rendered
 * sentence by sentence.
 */
export async function submitSpeech(deps: ApiDeps, account: Account, body: SpeechBody): Promise<SynthesisRow> {
  const voiceId = await resolveOpenAiVoice(deps.db, body.voice);
  return submitSynthesis(
    deps,
    account,
    { text: body.input, voice_id: voiceId, speed: mapSpeed(body.speed), pitch: 0, emotion: emotionOf(body.instructions), output_format: HISTORY_FORMAT[body.response_format] },
    undefined,
    { streaming: true },
  );
}

const sse = (event: unknown) => `data: ${JSON.stringify(event)}\n\n`;

/**
 * Answers with the synthesis's audio as it renders: headers go out with the
 * first sentence (a failure before it is a proper error answer), then every
 * sentence through one encoder, chunked. A client that goes away before the
 * end cancels the synthesis through the same path as DELETE, which releases
 * its credits. `stream_format: "sse"` wraps the same bytes in OpenAI's
 * `speech.audio.delta` events and ends with `speech.audio.done`.
 */
export async function streamSpeech(ctx: Context, deps: ApiDeps, row: SynthesisRow, body: SpeechBody): Promise<void> {
  const abort = new AbortController();
  ctx.res.once('close', () => {
    if (ctx.res.writableFinished) return;
    abort.abort();
    deps.background.run(
      () => cancelSynthesis(deps, row.id),
      (error) => deps.logger.warn({ err: error, synthesis_id: row.id }, 'cancel after client disconnect failed'),
    );
  });

  const sentences = renderedSentences(deps, row, abort.signal);
  // Started while the first sentence renders: its process start is off the first byte's path.
  const encoder = createStreamEncoder(body.response_format, { whole: oneSentence(row) });
  let first: IteratorResult<Int16Array>;
  try {
    first = await sentences.next();
  } catch (error) {
    encoder.destroy();
    if (error instanceof SynthesisEndedError) {
      const failure = error.failure ?? { code: 'synthesis_failed', message: error.message };
      throw new ApiError(500, failure.code, 'Synthesis failed', failure.message);
    }
    throw error;
  }
  if (abort.signal.aborted || first.done) return encoder.destroy();

  const join = joinSentences(row.emotion as Emotion, row.speed);
  ctx.status = 200;
  ctx.set('X-Synthesis-Id', row.id);
  ctx.req.socket.setNoDelay(true);
  let out: PassThrough | null = null;
  if (body.stream_format === 'sse') {
    const events = new PassThrough();
    out = events;
    ctx.type = 'text/event-stream';
    encoder.output.on('data', (bytes: Buffer) => events.write(sse({ type: 'speech.audio.delta', audio: bytes.toString('base64') })));
    encoder.output.once('end', () => events.end(sse({ type: 'speech.audio.done', usage: { input_tokens: row.characters, output_tokens: 0, total_tokens: row.characters } })));
    ctx.body = events;
  } else {
    ctx.type = CONTENT_TYPES[body.response_format];
    ctx.body = encoder.output;
  }

  const pump = async () => {
    for (const pcm of join(first.value)) await encoder.write(pcm);
    for await (const samples of sentences) for (const pcm of join(samples)) await encoder.write(pcm);
    if (abort.signal.aborted) return encoder.destroy();
    await encoder.end();
  };
  pump().catch((error) => {
    encoder.destroy();
    if (abort.signal.aborted) return;
    deps.logger.warn({ err: error, synthesis_id: row.id }, 'speech stream ended early');
    if (out) {
      // SSE can still say why; raw audio can only stop short (the chunked body never ends cleanly).
      const failure = error instanceof SynthesisEndedError ? (error.failure ?? { code: 'synthesis_failed', message: error.message }) : { code: 'internal_error', message: 'The stream failed.' };
      out.end(sse({ type: 'error', ...toOpenAiError(new ApiError(500, failure.code, 'Synthesis failed', failure.message)).body }));
    } else {
      ctx.res.destroy();
    }
  });
}
