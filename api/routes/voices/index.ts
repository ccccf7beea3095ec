import type { Account } from '../../../db/models/Account';
import type { ApiDeps } from '../../deps';
import { problemResponses, jsonResponse } from '../../openapi';
import { pageOf, presentPage } from '../../pagination';
import { defineRoute, type Family, type Route, inBothFamilies, familyPrefix } from '../../route';
import { z } from 'zod';
import { deleteVoice, findVoice, startCloning } from './commands';
import { revokeConsent } from './consent';
import { CloneForm, receiveSample } from './upload';
import { Synthesis } from '../../../db/models/Synthesis';
import { Voice } from '../../../db/models/Voice';
import { presentVoice } from './presenter';
import { MyVoicesQuery, VoiceListQuery, VoiceOut, VoicePage, VoiceParams } from './schema';

export function voiceRoutes(deps: ApiDeps): Route[] {
  const { db, config } = deps;
  const list = (category: 'premade' | 'cloned' | undefined) =>
    async function handler(
      ctx: Parameters<Route['handler']>[0],
      {
        account,
        query,
      }: {
        account: Account;
        query: {
          page: number;
          page_size: number;
          language?: string;
          category?: 'premade' | 'cloned';
          used?: 'true' | 'false';
        };
      },
      family: Family,
    ) {
      const voices = Voice.query(db).modify('visibleTo', account).modify('language', query.language);
      const only = category ?? query.category;
      if (only) voices.where({ category: only });
      if (query.used === 'true')
        voices.whereIn(
          'voices.id',
          Synthesis.query(db).modify('ownedBy', account).modify('live').distinct('syntheses.voice_id'),
        );
      // The caller's clones first (newest first), then premade voices in catalog order.
      voices.orderByRaw(
        "case when category = 'cloned' then 0 else 1 end, case when category = 'cloned' then created_at end desc nulls last, sort_order, id",
      );
      const [count, rows] = await pageOf(voices, query);
      const results = rows.map((row) => presentVoice(row, family));
      ctx.body = presentPage(ctx, config.PUBLIC_URL, query, count, results);
    };

  return [
    defineRoute({
      method: 'post',
      paths: { v1: '/api/v1/voices/upload/', unversioned: '/api/voices/clone/' },
      summary: 'Clone a voice from a consented sample (multipart: file, name, description, language, consent=true)',
      tags: ['Voices'],
      auth: true,
      form: CloneForm.extend({
        file: z
          .string()
          .meta({ format: 'binary', description: 'WAV, MP3, OGG (Vorbis/Opus), FLAC or M4A; at most 20 MiB; 3-300 s' }),
      }),
      responses: {
        202: jsonResponse('Accepted: the voice is processing; poll Location', VoiceOut),
        ...problemResponses(400, 401, 403, 413, 415),
      },
      async handler(ctx, { account }, family) {
        const { sample, cleanup } = await receiveSample(ctx);
        try {
          const voice = await startCloning(deps, account, sample, { ip: ctx.ip, userAgent: ctx.get('User-Agent') });
          ctx.status = 202;
          ctx.set('Location', `${familyPrefix(family)}/voices/${voice.id}/`);
          ctx.body = presentVoice(voice, family);
        } finally {
          await cleanup();
        }
      },
    }),
    defineRoute({
      method: 'delete',
      paths: inBothFamilies('voices/{id}/'),
      summary: 'Delete a cloned voice and its sample (premade voices: 403)',
      tags: ['Voices'],
      auth: true,
      params: VoiceParams,
      responses: { 204: { description: 'Deleted' }, ...problemResponses(401, 403, 404) },
      async handler(ctx, { account, params }) {
        await deleteVoice(deps, account, params.id);
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('voices/{id}/revoke-consent/'),
      summary: "Revoke the speaker's consent: the clone is disabled at once (status revoked) and its sample deleted",
      tags: ['Voices'],
      auth: true,
      params: VoiceParams,
      responses: { 200: jsonResponse('The voice, now revoked', VoiceOut), ...problemResponses(401, 403, 404) },
      async handler(ctx, { account, params }) {
        ctx.body = presentVoice(await revokeConsent(deps, account, params.id));
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('voices/'),
      summary: "Voices: the caller's clones, then the premade catalog (best voice of each language first)",
      tags: ['Voices'],
      auth: true,
      query: VoiceListQuery,
      responses: { 200: jsonResponse('A page of voices', VoicePage), ...problemResponses(400, 401) },
      handler: list(undefined),
    }),
    defineRoute({
      method: 'get',
      paths: { unversioned: '/api/voices/my/' },
      summary: "The caller's cloned voices, in every status",
      tags: ['Voices'],
      auth: true,
      query: MyVoicesQuery,
      responses: { 200: jsonResponse('A page of voices', VoicePage), ...problemResponses(400, 401) },
      handler: list('cloned'),
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('voices/{id}/'),
      summary: 'One voice (poll a clone here until it is ready)',
      tags: ['Voices'],
      auth: true,
      params: VoiceParams,
      responses: { 200: jsonResponse('The voice', VoiceOut), ...problemResponses(401, 404) },
      async handler(ctx, { account, params }, family) {
        ctx.body = presentVoice(await findVoice(db, account, params.id), family);
      },
    }),
  ];
}
