import type { Context, Middleware } from 'koa';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from '../lib/config';
import { serviceUnavailable } from './errors';

/**
 * Serves the account dashboard (web/, bundled into dist/web/ by
 * scripts/buildWeb.ts) from the API process: the landing page at `/` for
 * browsers, the app's pages under /app/, its hashed assets under
 * /app/assets/, the site's icon at /favicon.svg (and /favicon.ico). The app speaks only to the public API.
 */
const WEB_DIR = path.join(ROOT, 'dist', 'web');
const ASSET = /^\/app\/assets\/([A-Za-z0-9_-]+\.(js|css|svg|png))$/;
const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
};
/** The site's icon, for every page (the app's, the API docs'); browsers that ask /favicon.ico unprompted get it too. */
const FAVICON = /^\/favicon\.(svg|ico)$/;
const VERIFY_LINK = /^\/api(\/v1)?\/auth\/verify-email\/?$/;

/**
 * The Content-Security-Policy of the pages this service serves: everything
 * from our own origin, images and audio also from data:/blob: URLs (audio is
 * fetched with the Authorization header and played from a blob:), no
 * plugins, no <base>, forms only to us, never framed. A page widens
 * `script-src` or `style-src` only where it must (the API docs page).
 */
export function contentSecurityPolicy({
  scriptSrc = "'self'",
  styleSrc = "'self'",
}: { scriptSrc?: string; styleSrc?: string } = {}): string {
  return [
    "default-src 'self'",
    `script-src ${scriptSrc}`,
    `style-src ${styleSrc}`,
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The dashboard: no inline script or style anywhere. */
const APP_CSP = contentSecurityPolicy();

/** A browser asking for a page (Accept prefers HTML); curl, fetch and SDKs (`*\/*`, JSON) keep the JSON answers. */
const wantsHtml = (ctx: Context) => ctx.accepts('application/json', 'text/html') === 'text/html';

export function webApp(webDir = WEB_DIR): Middleware {
  const serveFile = async (ctx: Context, file: string, type: string, cache: string) => {
    let content: Buffer;
    try {
      content = await readFile(path.join(webDir, file));
    } catch {
      if (file === 'index.html') throw serviceUnavailable('the dashboard (not built: run `npm run build`)');
      return false;
    }
    ctx.status = 200;
    ctx.type = type;
    ctx.set('Cache-Control', cache);
    ctx.set('Content-Security-Policy', APP_CSP);
    // For HEAD, Koa sends these headers (Content-Length included) without the body.
    ctx.body = content;
    return true;
  };

  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const asset = ASSET.exec(ctx.path);
    if (ctx.path.startsWith('/app/assets/') && !asset) return next();
    if (asset) {
      // Names carry a content hash: cache them for good.
      if (await serveFile(ctx, asset[1], TYPES[asset[2]], 'public, max-age=31536000, immutable')) return;
      return next();
    }
    if (FAVICON.test(ctx.path)) {
      if (await serveFile(ctx, 'favicon.svg', 'image/svg+xml', 'public, max-age=86400')) return;
      return next();
    }
    if (ctx.path === '/app' || ctx.path.startsWith('/app/') || (ctx.path === '/' && wantsHtml(ctx))) {
      await serveFile(ctx, 'index.html', 'text/html; charset=utf-8', 'no-cache');
      return;
    }
    // The mailed link is an API URL (the contract); a person opening it lands on the app's page,
    // which confirms with a POST, so a mail scanner that prefetches links does not spend the token.
    if (VERIFY_LINK.test(ctx.path) && wantsHtml(ctx) && typeof ctx.query.token === 'string') {
      ctx.status = 303;
      ctx.redirect(`/app/verify-email?token=${encodeURIComponent(ctx.query.token)}`);
      return;
    }
    return next();
  };
}
