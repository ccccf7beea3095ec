import { Voice } from '../../../db/models/Voice';
import type { ApiDeps } from '../../deps';
import { notFound } from '../../errors';
import { defineRoute, type Route } from '../../route';
import { holdStreamPlace, submitSpeech, streamSpeech } from './speech';
import { ModelList, ModelParams, Model, MODELS, OpenAiError, SpeechBody, VoiceList } from './schema';
import { OPENAI_VOICES, openAiVoiceChoices } from './voices';
import { jsonResponse } from '../../openapi';
import { elevenLabsModels } from '../elevenlabs';
import { isElevenLabsRequest } from '../elevenlabs/errors';

/**
 * OpenAI's audio API, so any OpenAI client reaches this service by changing
 * its base URL (`<host>/v1` or `<host>/api/v1`) and key (an API key `vk_…`
 * or an access token). Errors on these paths are in OpenAI's shape (errors.ts).
 */

const openAiErrors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: `OpenAI-shaped error`, content: { 'application/json': { schema: OpenAiError } } },
    ]),
  );

/**
 * At most this many warnings and bytes in X-Synthesis-Warnings: a document
 * with a thousand unknown elements made a 60 KB header, and proxies that
 * refuse headers over 16 KiB would drop a stream already charged.
 */
const MAX_HEADER_WARNINGS = 20;
const MAX_HEADER_BYTES = 4096;

/** JSON with non-ASCII escaped (a header is ASCII): one character, one byte. */
const asciiJson = (value: unknown) =>
  JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * The warnings as the header's JSON array, capped: those that fit, then an
 * entry saying how many more there are and where the full list is (no status
 * or history answer carries them; the normalize preview reads the same
 * document the same way and answers them all in its body).
 */
function warningsHeader(warnings: readonly string[]): string {
  const whole = asciiJson(warnings);
  if (warnings.length <= MAX_HEADER_WARNINGS && whole.length <= MAX_HEADER_BYTES) return whole;
  const more = (left: number) => `and ${left} more: POST /api/v1/tts/normalize/ with the same text gives the full list`;
  const kept: string[] = [];
  for (const warning of warnings.slice(0, MAX_HEADER_WARNINGS)) {
    if (asciiJson([...kept, warning, more(warnings.length - kept.length - 1)]).length > MAX_HEADER_BYTES) break;
    kept.push(warning);
  }
  return asciiJson([...kept, more(warnings.length - kept.length)]);
}

/** When the model names were published here (OpenAI's `created`, seconds). */
const MODELS_CREATED = 1_767_225_600;
const presentModel = (id: string) => ({ id, object: 'model' as const, created: MODELS_CREATED, owned_by: 'openvox' });

export function openAiRoutes(deps: ApiDeps): Route[] {
  const { db } = deps;
  return [
    defineRoute({
      method: 'post',
      paths: { v1: '/api/v1/audio/speech/', unversioned: '/v1/audio/speech/' },
      summary: 'OpenAI-compatible speech: the audio streams sentence by sentence as it renders',
      tags: ['OpenAI-compatible'],
      auth: true,
      body: SpeechBody,
      responses: {
        200: {
          description:
            'The audio, chunked, starting when the first sentence is rendered (one encoder over the whole stream). `X-Synthesis-Id` names the history entry; `X-Synthesis-Warnings` (a JSON array of strings, when there are any) says what an SSML document asked that is read differently: at most 20 of them and 4 KiB, then an entry saying how many more (POST /api/v1/tts/normalize/ with the same text lists them all). With `stream_format: "sse"`: `speech.audio.delta` events (base64) and a final `speech.audio.done`.',
          content: {
            'audio/mpeg': {},
            'audio/ogg; codecs=opus': {},
            'audio/aac': {},
            'audio/flac': {},
            'audio/wav': {},
            'audio/pcm': {},
            'text/event-stream': {},
          },
        } as never,
        ...openAiErrors(400, 401, 429, 500, 503),
      },
      async handler(ctx, { account, body }) {
        holdStreamPlace(ctx, deps, account, body);
        const { row, warnings } = await submitSpeech(deps, account, body);
        // An SSML document's warnings (unknown elements read as their text, …): the body is audio.
        if (warnings.length > 0) ctx.set('X-Synthesis-Warnings', warningsHeader(warnings));
        await streamSpeech(ctx, deps, row, body);
      },
    }),
    defineRoute({
      method: 'get',
      paths: { v1: '/api/v1/models/', unversioned: '/v1/models/' },
      summary:
        "The speech models (OpenAI-compatible list; with `xi-api-key` on /v1/models/, ElevenLabs' bare array of its models)",
      tags: ['OpenAI-compatible'],
      auth: true,
      responses: { 200: jsonResponse('Models', ModelList), ...openAiErrors(401) },
      async handler(ctx, { account }) {
        // The one path both APIs share: ElevenLabs' SDKs send their key as xi-api-key.
        if (isElevenLabsRequest(ctx)) ctx.body = await elevenLabsModels(deps, account);
        else ctx.body = { object: 'list', data: MODELS.map((model) => presentModel(model.id)) };
      },
    }),
    defineRoute({
      method: 'get',
      paths: { v1: '/api/v1/models/{id}/', unversioned: '/v1/models/{id}/' },
      summary: 'One speech model',
      tags: ['OpenAI-compatible'],
      auth: true,
      params: ModelParams,
      responses: { 200: jsonResponse('Model', Model), ...openAiErrors(401, 404) },
      async handler(ctx, { params }) {
        if (!MODELS.some((model) => model.id === params.id)) throw notFound(`The model '${params.id}' does not exist.`);
        ctx.body = presentModel(params.id);
      },
    }),
    defineRoute({
      method: 'get',
      paths: { v1: '/api/v1/audio/voices/', unversioned: '/v1/audio/voices/' },
      summary:
        "Voice ids for `voice`: OpenAI's names (with the catalog voice each renders with), the premade voices and the caller's ready cloned voices",
      tags: ['OpenAI-compatible'],
      auth: true,
      responses: { 200: jsonResponse('Voices', VoiceList), ...openAiErrors(401) },
      async handler(ctx, { account }) {
        const rows = await Voice.query(db)
          .modify('live')
          .where((query) =>
            query.modify('catalog').orWhere({ category: 'cloned', account_id: account.id, status: 'ready' }),
          )
          .orderBy([{ column: 'category' }, { column: 'sort_order' }, { column: 'created_at', order: 'desc' }])
          .select('id', 'name', 'language', 'gender', 'category', 'quality');
        const byId = new Map(rows.map((row) => [row.id, row]));
        const aliases = (await openAiVoiceChoices(db)).map((choice) => ({
          id: choice.name,
          name: choice.name,
          language: byId.get(choice.voiceId)?.language ?? OPENAI_VOICES.get(choice.name)!.language,
          gender: choice.gender,
          category: 'openai',
          voice_id: choice.voiceId,
          neural: choice.neural,
          install: choice.install,
        }));
        // Cloned voices first (category 'cloned' sorts before 'premade'), then the catalog in its order.
        const data = [
          ...aliases,
          ...rows.map(({ quality, ...row }) => ({ ...row, voice_id: row.id, neural: quality === 'neural' })),
        ];
        ctx.body = { voices: data.map((voice) => voice.id), data };
      },
    }),
  ];
}
