import { Synthesis } from '../../../db/models/Synthesis';
import type { ApiDeps } from '../../deps';
import { idempotent, readIdempotencyKey } from '../../idempotency';
import { notReady } from '../../errors';
import { problemResponses, jsonResponse } from '../../openapi';
import { NEWEST_FIRST, pageOf, presentPage } from '../../pagination';
import { defineRoute, type Route, inBothFamilies } from '../../route';
import { sendAudio } from './audio';
import { NormalizeBody, NormalizeOut, normalizePreview } from './normalize';
import { enforceRateLimit } from '../../auth/rateLimit';
import { statusCacheOf } from './statusCache';
import { sendTimestamps, TimestampsBody, TimestampsQuery } from './timestamps';
import { streamStatus } from './events';
import { wantsEventStream } from '../../eventStream';
import { deleteSynthesis, findSynthesis, findSynthesisStatus, submitSynthesis } from './commands';
import { familyPaths, presentAccepted, presentHistoryEntry, presentStatus } from './presenter';
import {
  HistoryEntry,
  IdempotencyHeaders,
  HistoryPage,
  HistoryQuery,
  SynthesisAccepted,
  SynthesisParams,
  SynthesisStatus,
  SynthesizeBody,
} from './schema';

export function ttsRoutes(deps: ApiDeps): Route[] {
  const { db, config, storage } = deps;
  return [
    defineRoute({
      method: 'post',
      paths: inBothFamilies('tts/normalize/'),
      summary:
        'See what a synthesis will say: the text as it will be read, each spoken word mapped to the span of the text it came from (free)',
      tags: ['Text to speech'],
      auth: true,
      body: NormalizeBody,
      responses: { 200: jsonResponse('The spoken form', NormalizeOut), ...problemResponses(400, 401, 413, 415, 429) },
      async handler(ctx, { account, body }) {
        await enforceRateLimit(db, {
          key: `normalize:account:${account.id}`,
          limit: config.RATE_LIMIT_NORMALIZE_PER_MINUTE,
          windowSeconds: 60,
        });
        ctx.body = await normalizePreview(deps, account, body);
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('tts/synthesize/'),
      summary: 'Submit text for speech synthesis; poll the status URL',
      tags: ['Text to speech'],
      auth: true,
      body: SynthesizeBody,
      headers: IdempotencyHeaders,
      responses: {
        202: jsonResponse('Accepted; Location is the status URL', SynthesisAccepted),
        ...problemResponses(400, 401, 402, 409, 413, 415, 422),
      },
      async handler(ctx, { account, body }, family) {
        const submit = async (synthesisId?: string) => {
          const { row, warnings } = await submitSynthesis(deps, account, body, synthesisId);
          return {
            status: 202,
            body: presentAccepted(row, family, warnings),
            location: familyPaths[family].status(row.id),
          };
        };
        const key = readIdempotencyKey(ctx);
        const response = key
          ? await idempotent(db, account, key, ctx.request.body, submit)
          : { ...(await submit()), replayed: false };
        ctx.status = response.status;
        if (response.location) ctx.set('Location', response.location);
        if (response.replayed) ctx.set('Idempotent-Replayed', 'true');
        ctx.body = response.body;
      },
    }),
    defineRoute({
      method: 'get',
      paths: { v1: '/api/v1/tts/history/{id}/status/', unversioned: '/api/tts/status/{id}/' },
      summary: 'Status and progress of a synthesis',
      tags: ['Text to speech'],
      auth: true,
      // A poll needs only who the caller is.
      cachedAccount: true,
      params: SynthesisParams,
      responses: {
        200: {
          description:
            'Status. With `Accept: text/event-stream`: Server-Sent Events, a `status` event (this object) now and at every change, until the synthesis has ended.',
          content: { 'application/json': { schema: SynthesisStatus }, 'text/event-stream': {} },
        } as never,
        ...problemResponses(401, 404, 429),
      },
      async handler(ctx, { account, params }, family) {
        if (wantsEventStream(ctx)) return streamStatus(ctx, deps, account, params.id, family);
        ctx.body = presentStatus(
          await statusCacheOf(deps).find(account, params.id, () => findSynthesisStatus(deps, account, params.id)),
          family,
        );
      },
    }),
    defineRoute({
      method: 'get',
      paths: { v1: '/api/v1/tts/history/{id}/audio/', unversioned: '/api/tts/audio/{id}/' },
      summary: 'The audio of a completed synthesis (Range supported)',
      tags: ['Text to speech'],
      auth: true,
      params: SynthesisParams,
      responses: {
        200: {
          description: 'Audio',
          content: { 'audio/wav': {}, 'audio/mpeg': {}, 'audio/ogg': {}, 'audio/flac': {} },
        },
        206: { description: 'Part of the audio' },
        ...problemResponses(401, 404, 409, 416),
      },
      async handler(ctx, { account, params }) {
        const row = await findSynthesis(deps, account, params.id);
        if (row.status !== 'completed' || !row.audio_key) throw notReady();
        await sendAudio(ctx, storage, row.audio_key, row.output_format, `synthesis-${row.id}`);
      },
    }),
    defineRoute({
      method: 'get',
      paths: { v1: '/api/v1/tts/history/{id}/timestamps/', unversioned: '/api/tts/timestamps/{id}/' },
      summary:
        'When each word is spoken in the audio of a completed synthesis (JSON, or `?format=srt` / `vtt` captions)',
      tags: ['Text to speech'],
      auth: true,
      params: SynthesisParams,
      query: TimestampsQuery,
      responses: {
        200: {
          description: 'Word timestamps',
          content: { 'application/json': { schema: TimestampsBody }, 'application/x-subrip': {}, 'text/vtt': {} },
        } as never,
        ...problemResponses(400, 401, 404, 409),
      },
      async handler(ctx, { account, params, query }) {
        await sendTimestamps(ctx, storage, await findSynthesis(deps, account, params.id), query.format);
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('tts/history/'),
      summary: "The caller's syntheses, newest first",
      tags: ['Text to speech'],
      auth: true,
      query: HistoryQuery,
      responses: { 200: jsonResponse('A page of history', HistoryPage), ...problemResponses(400, 401) },
      async handler(ctx, { account, query }, family) {
        const entries = Synthesis.query(db).modify('ownedBy', account).modify('live').modify('listed');
        if (query.project_id) entries.where({ project_id: query.project_id });
        if (query.status) entries.where({ status: query.status });
        if (query.voice_id) entries.where({ voice_id: query.voice_id });
        if (query.created_since) entries.where('created_at', '>=', query.created_since);
        if (query.created_before) entries.where('created_at', '<', query.created_before);
        const [count, rows] = await pageOf(entries.orderBy(NEWEST_FIRST), query);
        const results = rows.map((row) => presentHistoryEntry(row, family));
        ctx.body = presentPage(ctx, config.PUBLIC_URL, query, count, results);
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('tts/history/{id}/'),
      summary: 'One history entry',
      tags: ['Text to speech'],
      auth: true,
      params: SynthesisParams,
      responses: { 200: jsonResponse('The entry', HistoryEntry), ...problemResponses(401, 404) },
      async handler(ctx, { account, params }, family) {
        ctx.body = presentHistoryEntry(await findSynthesis(deps, account, params.id), family);
      },
    }),
    defineRoute({
      method: 'delete',
      paths: inBothFamilies('tts/history/{id}/'),
      summary: 'Remove an entry and its audio; a running synthesis is canceled and its credits released',
      tags: ['Text to speech'],
      auth: true,
      params: SynthesisParams,
      responses: {
        204: {
          description:
            'Deleted. `Synthesis-Status` says how the synthesis ended: `canceled` (it was running; its credits were released), `completed` (charged; it finished before the cancel landed, or earlier), or `failed`.',
          headers: {
            'Synthesis-Status': {
              description: 'How the synthesis ended.',
              schema: { type: 'string', enum: ['completed', 'failed', 'canceled'] },
            },
          },
        } as never,
        ...problemResponses(401, 404, 503),
      },
      async handler(ctx, { account, params }) {
        ctx.set('Synthesis-Status', await deleteSynthesis(deps, account, params.id));
        ctx.status = 204;
      },
    }),
  ];
}
