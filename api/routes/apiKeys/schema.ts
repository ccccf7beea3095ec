import { z } from 'zod';
import { PageQuery, pageSchema } from '../../pagination';

export const ApiKeyCreateBody = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, 'Must not be empty.')
    .max(100, 'Must be at most 100 characters.')
    .meta({ description: 'What the key is for, 1-100 characters', example: 'build server' }),
});
export const ApiKeyParams = z.object({ id: z.uuid().meta({ description: 'The API key’s id' }) });
export const ApiKeyListQuery = PageQuery;

const ApiKeyOut = z
  .object({
    id: z.uuid().meta({ description: 'The key’s id (for DELETE)' }),
    name: z.string().meta({ description: 'What the key is for' }),
    prefix: z.string().meta({ description: 'The first characters of the key, kept in clear to recognise it' }),
    created_at: z.string().meta({ description: 'When the key was created (ISO 8601, UTC)', format: 'date-time' }),
    last_used_at: z.string().nullable().meta({
      description: 'When the key last authenticated a request (ISO 8601, UTC); null if never',
      format: 'date-time',
    }),
  })
  .meta({ id: 'ApiKey' });
export const ApiKeyCreated = ApiKeyOut.extend({
  key: z.string().meta({
    description: 'The secret key (`vk_…`), sent as `Authorization: Bearer <key>`; shown only in this response',
  }),
}).meta({
  id: 'ApiKeyCreated',
});
export const ApiKeyPage = pageSchema(ApiKeyOut).meta({ id: 'ApiKeyPage' });
