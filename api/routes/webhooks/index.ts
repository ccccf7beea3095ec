import { randomUUID } from 'node:crypto';
import { WebhookDelivery } from '../../../db/models/WebhookDelivery';
import type { ApiDeps } from '../../deps';
import { conflict } from '../../errors';
import { problemResponses, jsonResponse } from '../../openapi';
import { NEWEST_FIRST, pageOf, presentPage } from '../../pagination';
import { defineRoute, type Route, inBothFamilies, familyPrefix } from '../../route';
import { announceWebhookEvent } from '../../../synthesis/webhooks';
import { enforceRateLimit } from '../../auth/rateLimit';
import { createEndpoint, deleteEndpoint, endpointsOf, findEndpoint, rotateSecret, updateEndpoint } from './commands';
import { presentDelivery, presentEndpoint, presentWithSecret } from './presenter';
import {
  DeliveryOut,
  DeliveryPage,
  WebhookCreateBody,
  WebhookListQuery,
  WebhookOut,
  WebhookPage,
  WebhookParams,
  WebhookUpdateBody,
  WebhookWithSecretOut,
} from './schema';

const tags = ['Webhooks'];

export function webhookRoutes(deps: ApiDeps): Route[] {
  const { config, db } = deps;
  return [
    defineRoute({
      method: 'get',
      paths: inBothFamilies('webhooks/'),
      summary: "The caller's webhook endpoints, newest first",
      tags,
      auth: true,
      query: WebhookListQuery,
      responses: { 200: jsonResponse('A page of endpoints', WebhookPage), ...problemResponses(400, 401) },
      async handler(ctx, { account, query }) {
        const [count, rows] = await pageOf(endpointsOf(db, account).orderBy(NEWEST_FIRST), query);
        ctx.body = presentPage(ctx, config.PUBLIC_URL, query, count, rows.map(presentEndpoint));
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('webhooks/'),
      summary: 'Register a webhook endpoint (the answer shows its signing secret, once)',
      tags,
      auth: true,
      body: WebhookCreateBody,
      responses: { 201: jsonResponse('Created', WebhookWithSecretOut), ...problemResponses(400, 401, 403) },
      async handler(ctx, { account, body }, family) {
        const endpoint = await createEndpoint(db, config, account, body);
        ctx.status = 201;
        ctx.set('Location', `${familyPrefix(family)}/webhooks/${endpoint.id}/`);
        ctx.body = presentWithSecret(endpoint);
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('webhooks/{id}/'),
      summary: 'One webhook endpoint',
      tags,
      auth: true,
      params: WebhookParams,
      responses: { 200: jsonResponse('The endpoint', WebhookOut), ...problemResponses(401, 404) },
      async handler(ctx, { account, params }) {
        ctx.body = presentEndpoint(await findEndpoint(db, account, params.id));
      },
    }),
    defineRoute({
      method: 'patch',
      paths: inBothFamilies('webhooks/{id}/'),
      summary: "Change an endpoint's url, events, description, or enable/disable it",
      tags,
      auth: true,
      params: WebhookParams,
      body: WebhookUpdateBody,
      responses: { 200: jsonResponse('The endpoint', WebhookOut), ...problemResponses(400, 401, 404) },
      async handler(ctx, { account, params, body }) {
        ctx.body = presentEndpoint(await updateEndpoint(db, config, account, params.id, body));
      },
    }),
    defineRoute({
      method: 'delete',
      paths: inBothFamilies('webhooks/{id}/'),
      summary: 'Delete a webhook endpoint and its delivery log',
      tags,
      auth: true,
      params: WebhookParams,
      responses: { 204: { description: 'Deleted' }, ...problemResponses(401, 404) },
      async handler(ctx, { account, params }) {
        await deleteEndpoint(db, account, params.id);
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('webhooks/{id}/rotate-secret/'),
      summary: 'A new signing secret; the old one keeps signing beside it for 24 h',
      tags,
      auth: true,
      params: WebhookParams,
      responses: {
        200: jsonResponse('The endpoint with its new secret', WebhookWithSecretOut),
        ...problemResponses(401, 404),
      },
      async handler(ctx, { account, params }) {
        ctx.body = presentWithSecret(await rotateSecret(db, account, params.id));
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('webhooks/{id}/test/'),
      summary: 'Send a `ping` event to the endpoint',
      tags,
      auth: true,
      params: WebhookParams,
      responses: { 202: jsonResponse('The delivery, under way', DeliveryOut), ...problemResponses(401, 404, 409, 429) },
      async handler(ctx, { account, params }) {
        const endpoint = await findEndpoint(db, account, params.id);
        await enforceRateLimit(db, {
          key: `webhook-test:account:${account.id}`,
          limit: config.RATE_LIMIT_WEBHOOK_TESTS_PER_MINUTE,
          windowSeconds: 60,
        });
        if (!endpoint.enabled) throw conflict('The endpoint is disabled; enable it first.');
        const event = {
          id: `evt_${randomUUID().replaceAll('-', '')}`,
          type: 'ping' as const,
          accountId: account.id,
          data: { endpoint_id: endpoint.id },
        };
        const [deliveryId] = await announceWebhookEvent(deps, event, endpoint.id);
        ctx.status = 202;
        ctx.body = presentDelivery(await WebhookDelivery.query(db).findById(deliveryId).throwIfNotFound());
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('webhooks/{id}/deliveries/'),
      summary: "An endpoint's deliveries, newest first: status, attempts, last response code",
      tags,
      auth: true,
      params: WebhookParams,
      query: WebhookListQuery,
      responses: { 200: jsonResponse('A page of deliveries', DeliveryPage), ...problemResponses(400, 401, 404) },
      async handler(ctx, { account, params, query }) {
        const endpoint = await findEndpoint(db, account, params.id);
        const deliveries = WebhookDelivery.query(db).where({ endpoint_id: endpoint.id }).orderBy(NEWEST_FIRST);
        const [count, rows] = await pageOf(deliveries, query);
        ctx.body = presentPage(ctx, config.PUBLIC_URL, query, count, rows.map(presentDelivery));
      },
    }),
  ];
}
