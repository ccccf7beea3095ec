import { Voice } from '../../../db/models/Voice';
import type { ApiDeps } from '../../deps';
import { notFound } from '../../errors';
import { problemResponses } from '../../openapi';
import { defineRoute, type Route, inBothFamilies } from '../../route';
import { VoiceParams } from './schema';

/**
 * A premade voice's preview, public: the sample is the same for every
 * account and says nothing about anyone, so browsers and proxies may cache
 * it (the key changes with the voice, so the URL's content only changes when
 * the catalog does).
 */
export function voicePreviewRoutes({ db, storage }: ApiDeps): Route[] {
  return [
    defineRoute({
      method: 'get',
      paths: inBothFamilies('voices/{id}/preview/'),
      summary: "A premade voice's preview: a short sample in its language (MP3, public)",
      tags: ['Voices'],
      auth: false,
      params: VoiceParams,
      responses: { 200: { description: 'The sample', content: { 'audio/mpeg': {} } }, ...problemResponses(404) },
      async handler(ctx, { params }) {
        const voice = await Voice.query(db).modify('catalog').findById(params.id).select('preview_key');
        const size = voice?.preview_key ? await storage.size(voice.preview_key) : null;
        if (!voice?.preview_key || size === null) throw notFound('No preview for this voice (yet).');
        const etag = `"${voice.preview_key
          .split('/')
          .pop()!
          .replace(/\.mp3$/, '')}"`;
        ctx.set('ETag', etag);
        ctx.set('Cache-Control', 'public, max-age=86400');
        if (ctx.get('If-None-Match') === etag) {
          ctx.status = 304;
          return;
        }
        ctx.type = 'audio/mpeg';
        ctx.length = size;
        ctx.body = await storage.get(voice.preview_key);
      },
    }),
  ];
}
