import { randomUUID } from 'node:crypto';
import { ApiKey } from '../../../db/models/ApiKey';
import { randomSecret, sha256 } from '../../../lib/secrets';
import { API_KEY_PREFIX } from '../../auth/authenticate';
import { authCacheOf } from '../../auth/cache';
import type { ApiDeps } from '../../deps';
import { notFound } from '../../errors';
import { jsonResponse, problemResponses } from '../../openapi';
import { NEWEST_FIRST, pageOf, presentPage } from '../../pagination';
import { defineRoute, type Route, inBothFamilies } from '../../route';
import { type ApiKeyRow, presentApiKey } from './presenter';
import { ApiKeyCreateBody, ApiKeyCreated, ApiKeyListQuery, ApiKeyPage, ApiKeyParams } from './schema';

const COLUMNS = ['id', 'name', 'prefix', 'created_at', 'last_used_at'];

export function apiKeyRoutes(deps: ApiDeps): Route[] {
  const { db, config } = deps;
  return [
    defineRoute({
      method: 'get',
      paths: inBothFamilies('auth/api-keys/'),
      summary: "The caller's API keys, newest first (the keys themselves are never shown again)",
      tags: ['API keys'],
      auth: true,
      query: ApiKeyListQuery,
      responses: { 200: jsonResponse('A page of keys', ApiKeyPage), ...problemResponses(400, 401) },
      async handler(ctx, { account, query }) {
        const keys = ApiKey.query(db).modify('ownedBy', account).select(COLUMNS).orderBy(NEWEST_FIRST);
        const [count, rows]: [number, ApiKeyRow[]] = await pageOf(keys, query);
        ctx.body = presentPage(ctx, config.PUBLIC_URL, query, count, rows.map(presentApiKey));
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('auth/api-keys/'),
      summary: 'Create an API key; the key is shown once, in this response',
      tags: ['API keys'],
      auth: true,
      body: ApiKeyCreateBody,
      responses: { 201: jsonResponse('Created', ApiKeyCreated), ...problemResponses(400, 401) },
      async handler(ctx, { account, body }) {
        const key = `${API_KEY_PREFIX}${randomSecret(32)}`;
        const row = await ApiKey.query(db)
          .insert({
            id: randomUUID(),
            account_id: account.id,
            name: body.name,
            prefix: key.slice(0, 12),
            key_hash: sha256(key),
          })
          .returning(COLUMNS)
          .castTo<ApiKeyRow>();
        ctx.status = 201;
        ctx.body = { ...presentApiKey(row), key };
      },
    }),
    defineRoute({
      method: 'delete',
      paths: inBothFamilies('auth/api-keys/{id}/'),
      summary: 'Delete an API key; it stops working at once',
      tags: ['API keys'],
      auth: true,
      params: ApiKeyParams,
      responses: { 204: { description: 'Deleted' }, ...problemResponses(401, 404) },
      async handler(ctx, { account, params }) {
        const deleted = await ApiKey.query(db).modify('ownedBy', account).delete().where({ id: params.id });
        if (!deleted) throw notFound();
        // Before the answer: this process stops taking the key at once (the others hear the trigger's NOTIFY).
        authCacheOf(deps.progress, deps.config.AUTH_CACHE_SECONDS).forgetAccount(account.id);
        ctx.status = 204;
      },
    }),
  ];
}
