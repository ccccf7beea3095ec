import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import type { Account } from '../db/models/Account';
import { authenticate } from './auth/authenticate';
import type { ApiDeps } from './deps';
import { accessLog, problems, requestId, routingProblems, securityHeaders } from './middleware';
import { buildOpenApiDocument } from './openapi';
import { type Family, type Route, readInput, routerPath } from './route';
import { apiKeyRoutes } from './routes/apiKeys';
import { authRoutes } from './routes/auth';
import { openAiRoutes } from './routes/openai';
import { openAiErrors } from './routes/openai/errors';
import { operationsRoutes } from './routes/operations';
import { planRoutes } from './routes/plans';
import { projectRoutes } from './routes/projects';
import { ttsRoutes } from './routes/tts';
import { voiceRoutes } from './routes/voices';
import { version } from '../package.json';

/** Every resource's routes; each is mounted in both families from the same handler. */
function resourceRoutes(deps: ApiDeps): Route[] {
  return [...authRoutes(deps), ...apiKeyRoutes(deps), ...projectRoutes(deps), ...voiceRoutes(deps), ...ttsRoutes(deps), ...planRoutes(deps), ...openAiRoutes(deps)];
}

export function createApp(deps: ApiDeps): Koa {
  return buildApp(deps, resourceRoutes(deps));
}

/** The middleware chain around a set of routes (plus the operations endpoints); tests mount their own routes here. */
export function buildApp(deps: ApiDeps, resources: Route[]): Koa {
  let document: unknown;
  const openApiDocument = (): unknown => (document ??= buildOpenApiDocument(routes, deps.config.PUBLIC_URL, version));
  const routes: Route[] = [...resources, ...operationsRoutes(deps, openApiDocument)];

  const router = new Router();
  for (const route of routes) {
    for (const [family, path] of Object.entries(route.paths) as [Family, string][]) {
      router[route.method](routerPath(path), async (ctx: Koa.Context) => {
        // auth -> validate -> handler (which authorizes, runs one command and presents)
        const account = route.auth ? await authenticate(ctx, deps) : (undefined as unknown as Account);
        const input = readInput(ctx, route);
        await route.handler(ctx, { account, ...input }, family);
      });
    }
  }

  const app = new Koa({ proxy: deps.config.TRUST_PROXY });
  app.silent = true; // errors are logged by accessLog with the request id
  app
    .use(requestId)
    .use(accessLog(deps.logger))
    .use(problems)
    // OpenAI's error shape on its paths (/v1/audio/speech, …), so OpenAI's SDKs raise the right errors.
    .use(openAiErrors)
    .use(securityHeaders)
    .use(routingProblems)
    .use(bodyParser({ enableTypes: ['json'], jsonLimit: '1mb', encoding: 'utf-8' }))
    .use(router.routes())
    .use(router.allowedMethods());
  return app;
}
