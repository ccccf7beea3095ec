import type { Context } from 'koa';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Account } from '../../../db/models/Account';
import type { SynthesisRow } from '../../../db/models/Synthesis';
import { Voice } from '../../../db/models/Voice';
import { ENGINES, WORD_TIMING_ENGINES } from '../../../engines/registry';
import { chunkWordsKey } from '../../../synthesis/objects';
import { speechPlanOf } from '../../../synthesis/speechPlan';
import { readJsonObject } from '../../../synthesis/timestamps';
import type { TimedWord } from '../../../audio/timestamps';
import { CHUNK_SAMPLE_RATE } from '../../../audio/wav';
import type { ApiDeps } from '../../deps';
import { validationError } from '../../errors';
import { countedAudio, type StreamShape } from '../openai/speech';
import { submitSynthesis } from '../tts/commands';
import { alignSentence, appendAlignment, type CharacterAlignment, emptyAlignment } from './alignment';
import type { Encoding } from './formats';
import type { SpeechBody } from './schema';

/** How long a request for a clone still processing waits for it (a fresh clone takes a few seconds). */
export const CLONE_WAIT_SECONDS = 30;
const CLONE_POLL_MS = 500;

/** ElevenLabs' model ids (any `eleven_…`), this service's engines and its own name: all run the same pipeline. */
export const isKnownModel = (id: string): boolean =>
  /^eleven_[a-z0-9_]{1,48}$/.test(id) || id === 'openvox' || ENGINES.some((engine) => engine.name === id);

/**
 * Waits while the voice is a clone of the caller's still processing, up to
 * CLONE_WAIT_SECONDS: a client that adds a voice and speaks with it at once
 * gets its audio a few seconds later instead of an error. Past the wait the
 * submit answers 409 voice_not_ready as usual.
 */
async function awaitClone(deps: ApiDeps, account: Account, voiceId: string, signal: AbortSignal): Promise<void> {
  const until = Date.now() + CLONE_WAIT_SECONDS * 1000;
  while (Date.now() < until && !signal.aborted) {
    const voice = await Voice.query(deps.db).modify('visibleTo', account).findById(voiceId).select('status');
    if (voice?.status !== 'processing') return;
    await sleep(CLONE_POLL_MS, undefined, { signal }).catch(() => undefined);
  }
}

/**
 * Submits an ElevenLabs text-to-speech request as an ordinary synthesis (the
 * same checks, reservation, workflow and history entry as POST
 * /api/v1/tts/synthesize/), rendered sentence by sentence for streaming.
 */
export async function submitElevenLabsSpeech(
  ctx: Context,
  deps: ApiDeps,
  account: Account,
  voiceId: string,
  body: SpeechBody,
  encoding: Encoding,
): Promise<SynthesisRow> {
  if (body.model_id !== undefined && !isKnownModel(body.model_id))
    throw validationError({ model_id: [`Unknown model '${body.model_id}'; see GET /v1/models.`] });
  const gone = new AbortController();
  ctx.req.once('close', () => gone.abort());
  await awaitClone(deps, account, voiceId, gone.signal);
  const { row } = await submitSynthesis(
    deps,
    account,
    {
      text: body.text,
      voice_id: voiceId,
      speed: body.voice_settings?.speed ?? 1,
      pitch: 0,
      emotion: 'neutral',
      output_format: encoding.history,
      text_normalization: body.apply_text_normalization,
      pronunciation_dictionary_ids: body.pronunciation_dictionary_locators?.map(
        (locator) => locator.pronunciation_dictionary_id,
      ),
    },
    undefined,
    { streaming: true },
  );
  return row;
}

/** The audio as it renders, in the asked format (convert and stream answer the same). */
export function audioShape(encoding: Encoding): StreamShape {
  return {
    encoder: encoding.encoder,
    respond(ctx, output, sent) {
      ctx.type = encoding.contentType;
      ctx.body = countedAudio(output, sent);
      return null;
    },
  };
}

/** The engine a voice renders with: its own, or a clone's base voice's. */
export async function engineOf(deps: ApiDeps, voiceId: string): Promise<string> {
  const voice = await Voice.query(deps.db).findById(voiceId).select('engine', 'profile');
  if (voice?.engine) return voice.engine;
  const base = voice?.profile?.baseVoiceId;
  return (base && (await Voice.query(deps.db).findById(base).select('engine'))?.engine) || 'openvox';
}

/**
 * Each sentence's character alignment in stream time, as its audio goes to
 * the encoder. Plain text only (an SSML document's words index the document),
 * and only for voices whose engine gives word timing: otherwise none. Whether
 * the synthesis is timed is looked up at once, while its first sentence
 * renders; `prefetch(index)` starts reading a sentence's words as soon as its
 * audio is there, beside the audio's own work (the listener waits for both).
 */
export function sentenceAligner(deps: ApiDeps, row: SynthesisRow) {
  const timing = (async () => {
    const plan = await speechPlanOf(deps.db, row);
    const timed =
      plan.chunks.every((chunk) => !chunk.read) && WORD_TIMING_ENGINES.has(await engineOf(deps, row.voice_id));
    return timed ? plan : null;
  })();
  // Awaited by the first align; until then a failure must not go unhandled.
  timing.catch(() => undefined);
  const fetched = new Map<number, Promise<TimedWord[] | null>>();
  const fetchWords = async (index: number): Promise<TimedWord[] | null> => {
    if (!(await timing)) return null;
    // The worker stores a sentence's words beside its audio, side by side: a moment's grace for the words.
    for (let attempt = 0; attempt < 10; attempt++) {
      const words = await readJsonObject<TimedWord[]>(deps.storage, chunkWordsKey(row.id, index));
      if (words) return words;
      await sleep(50);
    }
    return null;
  };
  const wordsOf = (index: number) => {
    let words = fetched.get(index);
    if (!words) {
      words = fetchWords(index);
      words.catch(() => undefined);
      fetched.set(index, words);
    }
    return words;
  };
  let cursor = 0;
  let previousEnd = 0;
  const align = async (index: number, start: number, samples: Int16Array): Promise<CharacterAlignment | null> => {
    const plan = await timing;
    if (!plan) return null;
    const chunk = plan.chunks[index];
    const words = await wordsOf(index);
    fetched.delete(index);
    if (!chunk || !words) return null;
    const base = row.text.indexOf(chunk.text, cursor);
    if (base < 0) return null;
    const lead = { text: row.text.slice(cursor, base), from: previousEnd };
    cursor = base + chunk.text.length;
    const seconds = samples.length / CHUNK_SAMPLE_RATE;
    previousEnd = start + seconds;
    return alignSentence(chunk.text, words, start, seconds, lead);
  };
  return Object.assign(align, { prefetch: (index: number) => void wordsOf(index) });
}

/**
 * `/stream/with-timestamps`: newline-delimited JSON, one object per piece of
 * encoded audio (`audio_base64`), each sentence's alignment on the first
 * piece after its audio went in (a last piece with empty audio carries what
 * is left).
 */
export function timestampedLinesShape(deps: ApiDeps, row: SynthesisRow, encoding: Encoding): StreamShape {
  const align = sentenceAligner(deps, row);
  const pending: CharacterAlignment[] = [];
  const takePending = () => {
    if (pending.length === 0) return {};
    const merged = emptyAlignment();
    for (const piece of pending.splice(0)) appendAlignment(merged, piece);
    return { alignment: merged, normalized_alignment: merged };
  };
  return {
    encoder: encoding.encoder,
    ahead: align.prefetch,
    async sentence(index, start, samples) {
      const alignment = await align(index, start, samples);
      if (alignment) pending.push(alignment);
    },
    respond(ctx, output, sent) {
      const lines = new PassThrough();
      ctx.type = 'application/x-ndjson';
      output.on('data', (bytes: Buffer) => {
        sent(bytes.length);
        lines.write(`${JSON.stringify({ audio_base64: bytes.toString('base64'), ...takePending() })}\n`);
      });
      output.once('end', () => {
        if (pending.length > 0) lines.write(`${JSON.stringify({ audio_base64: '', ...takePending() })}\n`);
        lines.end();
      });
      output.once('error', (error) => lines.destroy(error));
      ctx.body = lines;
      return null;
    },
  };
}

/** `/with-timestamps`: one JSON object with the whole audio (base64) and the whole text's alignment. */
export function timestampedWholeShape(deps: ApiDeps, row: SynthesisRow, encoding: Encoding): StreamShape {
  const align = sentenceAligner(deps, row);
  let alignment: CharacterAlignment | null = null;
  return {
    encoder: encoding.encoder,
    ahead: align.prefetch,
    async sentence(index, start, samples) {
      const piece = await align(index, start, samples);
      if (!piece) return;
      alignment ??= emptyAlignment();
      appendAlignment(alignment, piece);
    },
    respond(ctx, output, sent) {
      const body = new PassThrough();
      const parts: Buffer[] = [];
      ctx.type = 'application/json';
      output.on('data', (bytes: Buffer) => parts.push(bytes));
      output.once('end', () => {
        const audio = Buffer.concat(parts);
        sent(audio.length);
        const aligned = alignment ? { alignment, normalized_alignment: alignment } : {};
        body.end(JSON.stringify({ audio_base64: audio.toString('base64'), ...aligned }));
      });
      output.once('error', (error) => body.destroy(error));
      ctx.body = body;
      return null;
    },
  };
}
