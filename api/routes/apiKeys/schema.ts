import { z } from 'zod';
import { PageQuery, pageSchema } from '../../pagination';

export const ApiKeyCreateBody = z.strictObject({
  name: z.string().trim().min(1, 'Must not be empty.').max(100, 'Must be at most 100 characters.'),
});
export const ApiKeyParams = z.object({ id: z.uuid() });
export const ApiKeyListQuery = PageQuery;

export const ApiKeyOut = z
  .object({ id: z.uuid(), name: z.string(), prefix: z.string(), created_at: z.string(), last_used_at: z.string().nullable() })
  .meta({ id: 'ApiKey' });
export const ApiKeyCreated = ApiKeyOut.extend({ key: z.string().meta({ description: 'Shown only in this response' }) }).meta({
  id: 'ApiKeyCreated',
});
export const ApiKeyPage = pageSchema(ApiKeyOut).meta({ id: 'ApiKeyPage' });
