import type { Context } from 'koa';
import type { Account } from '../../../db/models/Account';
import { SubscriptionPlan } from '../../../db/models/SubscriptionPlan';
import { Voice as VoiceModel } from '../../../db/models/Voice';
import { CREDITS_PER_CHARACTER } from '../../../synthesis/cost';
import type { ApiDeps } from '../../deps';
import { notFound, notReady } from '../../errors';
import { jsonResponse, problemResponses } from '../../openapi';
import { defineRoute, inBothFamilies, type Route } from '../../route';
import { type StreamShape, streamSynthesis, takeStreamPlace } from '../openai/speech';
import { sendAudio } from '../tts/audio';
import { deleteSynthesis, findSynthesis } from '../tts/commands';
import { deleteVoice, findVoice } from '../voices/commands';
import {
  addVoice,
  enginesWithLanguages,
  historyOf,
  isNewUser,
  languageEntry,
  recordAttestation,
  searchVoices,
  standingAttestation,
  subscriptionOf,
  voicesOf,
  withdrawAttestation,
} from './commands';
import { encodingOf, type Encoding } from './formats';
import { presentAttestation, presentHistoryItem, presentVoice } from './presenter';
import {
  AddVoiceAnswer,
  AddVoiceForm,
  Attestation,
  AttestationBody,
  AudioWithTimestamps,
  ElevenLabsError,
  HistoryItem,
  HistoryPage,
  HistoryParams,
  HistoryQuery,
  SpeechBody,
  SpeechQuery,
  StatusOk,
  User,
  UserSubscription,
  Voice,
  VoiceIdParams,
  VoiceQuery,
  VoicesV1,
  VoicesV1Query,
  VoicesV2,
  VoicesV2Query,
} from './schema';
import { audioShape, engineOf, submitElevenLabsSpeech, timestampedLinesShape, timestampedWholeShape } from './speech';
import type { SynthesisRow } from '../../../db/models/Synthesis';

/**
 * ElevenLabs' API, so its SDKs and the tools built on them reach this service
 * by changing the base URL to the service's root and the key (`xi-api-key`:
 * an API key `vk_…` or an access token). Every call is an ordinary synthesis
 * or cloning of this service. Errors on these paths are in ElevenLabs' shape
 * (errors.ts); what each field does here is in docs/elevenlabs.md.
 */

const TAG = 'ElevenLabs-compatible';
const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: 'ElevenLabs-shaped error', content: { 'application/json': { schema: ElevenLabsError } } },
    ]),
  );

/** ElevenLabs' model ids listed (any `eleven_…` id is accepted). */
const ELEVEN_MODELS = ['eleven_multilingual_v2', 'eleven_flash_v2_5', 'eleven_turbo_v2_5', 'eleven_v3'];

/** GET /v1/models for a request carrying `xi-api-key`: ElevenLabs' bare array (the OpenAI route answers it). */
export async function elevenLabsModels(deps: ApiDeps, account: Account) {
  const [engines, plan] = await Promise.all([
    enginesWithLanguages(deps),
    SubscriptionPlan.query(deps.db).findById(account.subscription_tier).select('max_text_length'),
  ]);
  const model = (id: string, name: string, description: string, languages: string[]) => ({
    model_id: id,
    name,
    description,
    can_do_text_to_speech: true,
    can_do_voice_conversion: false,
    can_be_finetuned: false,
    can_use_style: false,
    can_use_speaker_boost: false,
    token_cost_factor: CREDITS_PER_CHARACTER,
    maximum_text_length_per_request: plan?.max_text_length ?? 0,
    languages: languages.map(languageEntry),
  });
  const all = [...new Set(engines.flatMap((engine) => engine.languages))];
  return [
    ...engines.map(({ engine, languages }) =>
      model(engine, `OpenVox ${engine}`, `The ${engine} engine's voices (the voice decides the engine).`, languages),
    ),
    ...ELEVEN_MODELS.map((id) =>
      model(id, id, "ElevenLabs' id, accepted: every installed engine, the voice decides which.", all),
    ),
  ];
}

export function elevenLabsRoutes(deps: ApiDeps): Route[] {
  const { db, config, storage } = deps;
  const publicUrl = config.PUBLIC_URL.replace(/\/$/, '');
  const speech = (
    suffix: string,
    summary: string,
    shape: (row: SynthesisRow, encoding: Encoding) => StreamShape,
    content: Record<string, object>,
  ) =>
    defineRoute({
      method: 'post',
      paths: { unversioned: `/v1/text-to-speech/{voice_id}/${suffix}` },
      summary,
      tags: [TAG],
      auth: true,
      params: VoiceIdParams,
      query: SpeechQuery,
      body: SpeechBody,
      responses: {
        200: { description: 'Streamed as it renders, sentence by sentence', content } as never,
        ...errors(400, 401, 404, 409, 422, 429, 500, 503),
      },
      async handler(ctx: Context, { account, params, query, body }) {
        const encoding = encodingOf(query.output_format);
        ctx.res.once('close', takeStreamPlace(deps, account, encoding.usesProcess));
        const row = await submitElevenLabsSpeech(ctx, deps, account, params.voice_id, body, encoding);
        await streamSynthesis(ctx, deps, row, shape(row, encoding));
      },
    });
  const audio = { 'audio/mpeg': {}, 'audio/ogg; codecs=opus': {}, 'audio/wav': {}, 'audio/pcm': {}, 'audio/basic': {} };
  return [
    speech('', 'ElevenLabs-compatible text to speech: the audio', (_row, encoding) => audioShape(encoding), audio),
    speech(
      'stream/',
      'ElevenLabs-compatible text to speech, streamed',
      (_row, encoding) => audioShape(encoding),
      audio,
    ),
    speech(
      'with-timestamps/',
      'ElevenLabs-compatible text to speech with character timestamps (one JSON object)',
      (row, encoding) => timestampedWholeShape(deps, row, encoding),
      { 'application/json': { schema: AudioWithTimestamps } },
    ),
    speech(
      'stream/with-timestamps/',
      'ElevenLabs-compatible text to speech with character timestamps, streamed as newline-delimited JSON',
      (row, encoding) => timestampedLinesShape(deps, row, encoding),
      { 'application/x-ndjson': { schema: AudioWithTimestamps } },
    ),
    defineRoute({
      method: 'get',
      paths: { unversioned: '/v1/voices/' },
      summary: 'ElevenLabs-compatible voice list: the premade catalog and your clones',
      tags: [TAG],
      auth: true,
      query: VoicesV1Query,
      responses: { 200: jsonResponse('Voices', VoicesV1), ...errors(401) },
      async handler(ctx, { account }) {
        const voices = await voicesOf(deps, account);
        ctx.body = { voices: voices.map((voice) => presentVoice(voice, account, publicUrl)) };
      },
    }),
    defineRoute({
      method: 'get',
      paths: { unversioned: '/v2/voices/' },
      summary: 'ElevenLabs-compatible voice search, paged',
      tags: [TAG],
      auth: true,
      query: VoicesV2Query,
      responses: { 200: jsonResponse('A page of voices', VoicesV2), ...errors(401, 422) },
      async handler(ctx, { account, query }) {
        const { voices, total, next } = await searchVoices(deps, account, query);
        ctx.body = {
          voices: voices.map((voice) => presentVoice(voice, account, publicUrl)),
          has_more: next !== undefined,
          total_count: total,
          ...(next !== undefined && { next_page_token: next }),
        };
      },
    }),
    defineRoute({
      method: 'post',
      paths: { unversioned: '/v1/voices/add/' },
      summary: 'ElevenLabs-compatible instant cloning (needs your standing cloning attestation)',
      tags: [TAG],
      auth: true,
      form: AddVoiceForm,
      responses: {
        200: jsonResponse('The voice, processing', AddVoiceAnswer),
        ...errors(400, 401, 403, 413, 415, 422),
      },
      async handler(ctx, { account }) {
        ctx.body = { voice_id: await addVoice(ctx, deps, account), requires_verification: false };
      },
    }),
    defineRoute({
      method: 'get',
      paths: { unversioned: '/v1/voices/{voice_id}/' },
      summary: 'ElevenLabs-compatible voice',
      tags: [TAG],
      auth: true,
      params: VoiceIdParams,
      query: VoiceQuery,
      responses: { 200: jsonResponse('The voice', Voice), ...errors(401, 404) },
      async handler(ctx, { account, params }) {
        ctx.body = presentVoice(await findVoice(db, account, params.voice_id), account, publicUrl);
      },
    }),
    defineRoute({
      method: 'delete',
      paths: { unversioned: '/v1/voices/{voice_id}/' },
      summary: 'ElevenLabs-compatible voice deletion (your clones)',
      tags: [TAG],
      auth: true,
      params: VoiceIdParams,
      responses: { 200: jsonResponse('Deleted', StatusOk), ...errors(401, 403, 404) },
      async handler(ctx, { account, params }) {
        await deleteVoice(deps, account, params.voice_id);
        ctx.body = { status: 'ok' };
      },
    }),
    defineRoute({
      method: 'get',
      paths: { unversioned: '/v1/user/' },
      summary: 'ElevenLabs-compatible user: your account, plan and characters',
      tags: [TAG],
      auth: true,
      responses: { 200: jsonResponse('The user', User), ...errors(401) },
      async handler(ctx, { account }) {
        const [subscription, fresh] = await Promise.all([subscriptionOf(deps, account), isNewUser(deps, account)]);
        const verified = account.email_verified_at !== null;
        ctx.body = {
          user_id: account.id,
          workspace_id: account.id,
          subscription,
          is_new_user: fresh,
          can_use_delayed_payment_methods: false,
          is_onboarding_completed: verified,
          is_onboarding_checklist_completed: verified,
          ...(account.name && { first_name: account.name }),
          created_at: Math.floor(account.created_at.getTime() / 1000),
          seat_type: 'workspace_admin',
        };
      },
    }),
    defineRoute({
      method: 'get',
      paths: { unversioned: '/v1/user/subscription/' },
      summary: 'ElevenLabs-compatible subscription: plan, characters used and left, voice slots',
      tags: [TAG],
      auth: true,
      responses: { 200: jsonResponse('The subscription', UserSubscription), ...errors(401) },
      async handler(ctx, { account }) {
        ctx.body = { ...(await subscriptionOf(deps, account)), open_invoices: [], has_open_invoices: false };
      },
    }),
    defineRoute({
      method: 'get',
      paths: { unversioned: '/v1/history/' },
      summary: 'ElevenLabs-compatible history: your syntheses',
      tags: [TAG],
      auth: true,
      query: HistoryQuery,
      responses: { 200: jsonResponse('A page of history', HistoryPage), ...errors(401, 422) },
      async handler(ctx, { account, query }) {
        const { page, hasMore, voices, engines } = await historyOf(deps, account, query);
        ctx.body = {
          history: page.map((row) => presentHistoryItem(row, voices.get(row.voice_id), engines.get(row.voice_id))),
          ...(page.length > 0 && { last_history_item_id: page[page.length - 1].id }),
          has_more: hasMore,
        };
      },
    }),
    defineRoute({
      method: 'get',
      paths: { unversioned: '/v1/history/{history_item_id}/' },
      summary: 'ElevenLabs-compatible history item',
      tags: [TAG],
      auth: true,
      params: HistoryParams,
      responses: { 200: jsonResponse('The item', HistoryItem), ...errors(401, 404) },
      async handler(ctx, { account, params }) {
        const row = await findSynthesis(deps, account, params.history_item_id);
        const [voice, engine] = await Promise.all([
          VoiceModel.query(db).findById(row.voice_id).select('name', 'category'),
          engineOf(deps, row.voice_id),
        ]);
        ctx.body = presentHistoryItem(row, voice, engine);
      },
    }),
    defineRoute({
      method: 'get',
      paths: { unversioned: '/v1/history/{history_item_id}/audio/' },
      summary: 'ElevenLabs-compatible history audio',
      tags: [TAG],
      auth: true,
      params: HistoryParams,
      responses: {
        200: { description: 'The stored audio', content: { 'audio/mpeg': {}, 'audio/wav': {}, 'audio/ogg': {} } },
        ...errors(401, 404, 409),
      },
      async handler(ctx, { account, params }) {
        const row = await findSynthesis(deps, account, params.history_item_id);
        if (row.status !== 'completed' || !row.audio_key) throw notReady();
        await sendAudio(ctx, storage, row.audio_key, row.output_format, `synthesis-${row.id}`);
      },
    }),
    defineRoute({
      method: 'delete',
      paths: { unversioned: '/v1/history/{history_item_id}/' },
      summary: 'ElevenLabs-compatible history deletion',
      tags: [TAG],
      auth: true,
      params: HistoryParams,
      responses: { 200: jsonResponse('Deleted', StatusOk), ...errors(401, 404) },
      async handler(ctx, { account, params }) {
        await deleteSynthesis(deps, account, params.history_item_id);
        ctx.body = { status: 'ok' };
      },
    }),
  ];
}

/** The standing cloning attestation, in the service's own API (both families). */
export function attestationRoutes(deps: ApiDeps): Route[] {
  return [
    defineRoute({
      method: 'get',
      paths: inBothFamilies('voices/attestation/'),
      summary: 'Your standing cloning attestation (404 when there is none)',
      tags: ['Voices'],
      auth: true,
      responses: { 200: jsonResponse('The attestation', Attestation), ...problemResponses(401, 404) },
      async handler(ctx, { account }) {
        const row = await standingAttestation(deps, account);
        if (!row) throw notFound('No standing cloning attestation.');
        ctx.body = presentAttestation(row);
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('voices/attestation/'),
      summary:
        'Record a standing cloning attestation: every sample you upload without a consent field (POST /v1/voices/add) is of a speaker who authorized cloning',
      tags: ['Voices'],
      auth: true,
      body: AttestationBody,
      responses: {
        201: jsonResponse('Recorded (with the time and your address)', Attestation),
        200: jsonResponse('Already recorded: the standing one', Attestation),
        ...problemResponses(400, 401, 415),
      },
      async handler(ctx, { account }) {
        const { row, created } = await recordAttestation(deps, account, {
          ip: ctx.ip,
          userAgent: ctx.get('User-Agent'),
        });
        ctx.status = created ? 201 : 200;
        ctx.body = presentAttestation(row);
      },
    }),
    defineRoute({
      method: 'delete',
      paths: inBothFamilies('voices/attestation/'),
      summary: 'Withdraw your standing cloning attestation (voices already cloned stay)',
      tags: ['Voices'],
      auth: true,
      responses: { 204: { description: 'Withdrawn' }, ...problemResponses(401, 404) },
      async handler(ctx, { account }) {
        await withdrawAttestation(deps, account);
        ctx.status = 204;
      },
    }),
  ];
}
