import { z } from 'zod';
import { defineRoute, type Family, type Route, inBothFamilies } from '../../route';

/** The entry points of each family, so the start banner's `/api/v1/` answers with somewhere to go next. */
const RESOURCES: Record<string, Record<Family, string>> = {
  register: { v1: '/api/v1/auth/register/', unversioned: '/api/auth/register/' },
  verify_email: { v1: '/api/v1/auth/verify-email/', unversioned: '/api/auth/verify-email/' },
  login: { v1: '/api/v1/auth/login/', unversioned: '/api/auth/login/' },
  profile: { v1: '/api/v1/auth/profile/', unversioned: '/api/auth/profile/' },
  api_keys: { v1: '/api/v1/auth/api-keys/', unversioned: '/api/auth/api-keys/' },
  subscription_plans: { v1: '/api/v1/subscription-plans/', unversioned: '/api/subscription-plans/' },
  voices: { v1: '/api/v1/voices/', unversioned: '/api/voices/' },
  synthesize: { v1: '/api/v1/tts/synthesize/', unversioned: '/api/tts/synthesize/' },
  history: { v1: '/api/v1/tts/history/', unversioned: '/api/tts/history/' },
  normalize: { v1: '/api/v1/tts/normalize/', unversioned: '/api/tts/normalize/' },
  pronunciation_dictionaries: {
    v1: '/api/v1/pronunciation-dictionaries/',
    unversioned: '/api/pronunciation-dictionaries/',
  },
  projects: { v1: '/api/v1/projects/', unversioned: '/api/projects/' },
  // Studio: a project's book (import, chapters, convert, the audiobooks made).
  studio_import: { v1: '/api/v1/projects/{id}/content/', unversioned: '/api/projects/{id}/content/' },
  studio_chapters: { v1: '/api/v1/projects/{id}/chapters/', unversioned: '/api/projects/{id}/chapters/' },
  studio_convert: { v1: '/api/v1/projects/{id}/convert/', unversioned: '/api/projects/{id}/convert/' },
  studio_snapshots: { v1: '/api/v1/projects/{id}/snapshots/', unversioned: '/api/projects/{id}/snapshots/' },
  webhooks: { v1: '/api/v1/webhooks/', unversioned: '/api/webhooks/' },
  // OpenAI-compatible: an OpenAI SDK's base URL is the server's /v1 (the unversioned family's paths).
  openai_speech: { v1: '/api/v1/audio/speech/', unversioned: '/v1/audio/speech/' },
  openai_voices: { v1: '/api/v1/audio/voices/', unversioned: '/v1/audio/voices/' },
};

const ApiIndex = z
  .object({
    name: z.literal('OpenVox').meta({ description: 'Always `OpenVox`' }),
    version: z.string().meta({ description: 'The server version' }),
    family: z
      .enum(['v1', 'unversioned'])
      .meta({ description: 'The path family of this index and of the paths in `resources`' }),
    resources: z
      .record(z.string(), z.string())
      .meta({ description: 'Entry points by name, as paths in the caller’s family' }),
    docs: z.string().meta({ description: 'The browsable API reference' }),
    openapi: z.string().meta({ description: 'The OpenAPI 3.1 document' }),
    openai_base_url: z
      .string()
      .meta({ description: 'The base path to give an OpenAI SDK (`/v1`: POST /v1/audio/speech)' }),
  })
  .meta({ id: 'ApiIndex' });

function presentIndex(family: Family, version: string): z.output<typeof ApiIndex> {
  return {
    name: 'OpenVox',
    version,
    family,
    resources: Object.fromEntries(Object.entries(RESOURCES).map(([name, paths]) => [name, paths[family]])),
    docs: '/api/docs/',
    openapi: '/api/openapi.json',
    openai_base_url: '/v1',
  };
}

export function apiIndexRoutes(version: string): Route[] {
  const responses = {
    200: { description: 'The API’s entry points', content: { 'application/json': { schema: ApiIndex } } },
  };
  return [
    defineRoute({
      method: 'get',
      paths: inBothFamilies(''),
      summary: 'Index of the API’s resources',
      tags: ['Operations'],
      responses,
      async handler(ctx, _input, family) {
        ctx.body = presentIndex(family, version);
      },
    }),
    defineRoute({
      method: 'get',
      paths: { unversioned: '/' },
      summary: 'Index of the API’s resources (the versioned family)',
      tags: ['Operations'],
      responses,
      async handler(ctx) {
        ctx.body = presentIndex('v1', version);
      },
    }),
  ];
}
