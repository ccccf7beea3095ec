import type { ApiKey } from '../../../db/models/ApiKey';

/** The columns of an API key the API shows. */
export type ApiKeyRow = Pick<ApiKey, 'id' | 'name' | 'prefix' | 'created_at' | 'last_used_at'>;

/** An API key as the API presents it: never the key itself, which only its create answer carries. */
export const presentApiKey = (row: ApiKeyRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  created_at: row.created_at.toISOString(),
  last_used_at: row.last_used_at?.toISOString() ?? null,
});
