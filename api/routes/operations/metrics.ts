import type { Registry } from 'prom-client';
import { z } from 'zod';
import { defineRoute, type Route } from '../../route';

/** Prometheus scrapes this; serve it to your monitoring network only (block `/metrics` at the reverse proxy). */
export function metricsRoutes(registry: Registry): Route[] {
  return [
    defineRoute({
      method: 'get',
      paths: { unversioned: '/metrics' },
      summary: 'Prometheus metrics of this API process and of the service (text exposition format)',
      tags: ['Operations'],
      responses: { 200: { description: 'Prometheus text format 0.0.4', content: { 'text/plain': { schema: z.string() } } } },
      async handler(ctx) {
        ctx.type = registry.contentType;
        ctx.body = await registry.metrics();
      },
    }),
  ];
}
