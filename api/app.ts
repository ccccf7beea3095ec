import { streamInputUpgrade, type UpgradeHandler } from './routes/elevenlabs/streamInputSocket';
import type { Registry } from 'prom-client';
import Router from '@koa/router';
import Koa from 'koa';
import type { Account } from '../db/models/Account';
import { authenticate } from './auth/authenticate';
import { clientIp } from './clientIp';
import type { ApiDeps } from './deps';
import { jsonBody } from './jsonBody';
import { methodNotAllowed } from './errors';
import { accessLog, problems, requestId, routingProblems, securityHeaders } from './middleware';
import { buildOpenApiDocument } from './openapi';
import { type Family, type Route, readInput, routerPath } from './route';
import { apiKeyRoutes } from './routes/apiKeys';
import { authRoutes } from './routes/auth';
import { accountRoutes } from './routes/auth/account';
import { openAiRoutes } from './routes/openai';
import { openAiErrors } from './routes/openai/errors';
import { attestationRoutes, elevenLabsRoutes } from './routes/elevenlabs';
import { elevenLabsRequests } from './routes/elevenlabs/errors';
import { operationsRoutes } from './routes/operations';
import { apiIndexRoutes } from './routes/operations/apiIndex';
import { createApiMetrics } from './metrics';
import { planRoutes } from './routes/plans';
import { projectRoutes } from './routes/projects';
import { conversionRoutes } from './routes/projects/conversionRoutes';
import { pronunciationDictionaryRoutes } from './routes/pronunciationDictionaries';
import { ttsRoutes } from './routes/tts';
import { voiceRoutes } from './routes/voices';
import { voicePreviewRoutes } from './routes/voices/preview';
import { webhookRoutes } from './routes/webhooks';
import { sessionRoutes } from './routes/session';
import { webApp } from './web';
import { version } from '../package.json';

/** Every resource's routes; each is mounted in both families from the same handler. */
export function resourceRoutes(deps: ApiDeps): Route[] {
  return [
    ...authRoutes(deps),
    ...apiKeyRoutes(deps),
    ...projectRoutes(deps),
    ...conversionRoutes(deps),
    ...pronunciationDictionaryRoutes(deps),
    ...voiceRoutes(deps),
    ...voicePreviewRoutes(deps),
    ...ttsRoutes(deps),
    ...planRoutes(deps),
    ...openAiRoutes(deps),
    ...elevenLabsRoutes(deps),
    ...attestationRoutes(deps),
    ...webhookRoutes(deps),
    ...sessionRoutes(deps),
    ...accountRoutes(deps),
  ];
}

/**
 * The API's Koa app, with its Prometheus registry (served on a port of its own by api/main.ts, never on the app's)
 * and its WebSocket upgrades (createApiServer hands them over).
 */
export type ApiApp = Koa & { metricsRegistry: Registry; upgrade: UpgradeHandler };

export function createApp(deps: ApiDeps): ApiApp {
  return buildApp(deps, resourceRoutes(deps));
}

/** The middleware chain around a set of routes (plus the operations endpoints); tests mount their own routes here. */
export function buildApp(deps: ApiDeps, resources: Route[]): ApiApp {
  let document: unknown;
  const openApiDocument = (): unknown => (document ??= buildOpenApiDocument(routes, deps.config.PUBLIC_URL, version));
  const metrics = createApiMetrics(deps.db);
  const routes: Route[] = [...resources, ...operationsRoutes(deps, openApiDocument), ...apiIndexRoutes(version)];

  const router = new Router();
  const mount = ({ route, family, path }: { route: Route; family: Family; path: string }) =>
    router[route.method](routerPath(path), async (ctx: Koa.Context) => {
      // auth -> validate -> handler (which authorizes, runs one command and presents)
      const account = route.auth
        ? await authenticate(ctx, deps, { cachedAccount: route.cachedAccount })
        : (undefined as unknown as Account);
      const input = readInput(ctx, route);
      await route.handler(ctx, { account, ...input }, family);
    });
  const mounts = routes.flatMap((route) =>
    (Object.entries(route.paths) as [Family, string][]).map(([family, path]) => ({ route, family, path })),
  );
  const isStatic = (path: string) => !path.includes('{');

  // Static paths first, each closed by a guard that answers its other methods (405 with its own
  // Allow): /api/voices/my/ and /api/voices/clone/ never reach the /api/voices/{id}/ handlers.
  const staticMethods = new Map<string, Set<string>>();
  for (const entry of mounts.filter((candidate) => isStatic(candidate.path))) {
    mount(entry);
    const methods = staticMethods.get(entry.path) ?? new Set<string>();
    if (entry.route.method === 'get') methods.add('HEAD');
    methods.add(entry.route.method.toUpperCase());
    staticMethods.set(entry.path, methods);
  }
  for (const [path, methods] of staticMethods) {
    router.all(routerPath(path), async (ctx) => {
      if (ctx.method === 'OPTIONS') {
        ctx.set('Allow', [...methods].join(', '));
        ctx.status = 200;
        ctx.body = '';
        return;
      }
      throw methodNotAllowed([...methods]);
    });
  }
  for (const entry of mounts.filter((candidate) => !isStatic(candidate.path))) mount(entry);

  const trust = deps.config.TRUST_PROXY;
  // Koa's proxy flag trusts X-Forwarded-Proto/Host; the client address is clientIp's, read from the right.
  const app = new Koa({ proxy: 'proxies' in trust || trust.hops > 0 });
  app.silent = true; // errors are logged by accessLog with the request id
  app
    .use(requestId)
    .use(clientIp(trust))
    .use(accessLog(deps.logger))
    .use(metrics.middleware)
    .use(problems)
    // OpenAI's error shape on its paths (/v1/audio/speech, …), so OpenAI's SDKs raise the right errors.
    .use(openAiErrors)
    // ElevenLabs' key header and error shape on its paths (/v1/text-to-speech, /v1/voices, …).
    .use(elevenLabsRequests)
    .use(securityHeaders)
    .use(routingProblems)
    // The dashboard's pages and assets (api/web.ts), before the API's routes claim `/`.
    .use(webApp())
    .use(jsonBody())
    .use(router.routes())
    .use(router.allowedMethods());
  return Object.assign(app, { metricsRegistry: metrics.registry, upgrade: streamInputUpgrade(deps) });
}
