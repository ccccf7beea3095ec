import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Config } from '../lib/config';
import type { UpgradeHandler } from './routes/elevenlabs/streamInputSocket';

export type ConnectionLimits = Pick<Config, 'HTTP_REQUEST_TIMEOUT_SECONDS' | 'HTTP_MAX_CONNECTIONS'>;

/**
 * The API's HTTP server and the limits that keep one client from holding it:
 * - a request (headers and body) must arrive within HTTP_REQUEST_TIMEOUT_SECONDS
 *   (408 after it; Node's default is 300 s, so a body sent a byte at a time
 *   held its connection five minutes), checked every second;
 * - at most HTTP_MAX_CONNECTIONS connections at once (more are closed as they
 *   are accepted);
 * - idle keep-alive connections stay open 65 s (Node's default is 5 s): a
 *   client that reuses a pooled connection just as the server times it out
 *   gets ECONNRESET; with a long server timeout the client (undici keeps idle
 *   sockets 4 s) always gives up first. Longer than the usual load balancer
 *   idle timeout (60 s) for the same reason. An idle connection is not a
 *   request: the request timeout does not cut it.
 * Responses are not limited: a long stream goes on as long as it renders.
 */
export function createApiServer(app: Koa & { upgrade?: UpgradeHandler }, limits: ConnectionLimits): Server {
  const requestTimeout = limits.HTTP_REQUEST_TIMEOUT_SECONDS * 1000;
  const server = createServer(
    { requestTimeout, headersTimeout: requestTimeout, keepAliveTimeout: 65_000, connectionsCheckingInterval: 1_000 },
    app.callback(),
  );
  server.maxConnections = limits.HTTP_MAX_CONNECTIONS;
  // WebSocket upgrades (ElevenLabs' stream-input); any other upgrade is refused by closing its socket.
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!app.upgrade?.(request, socket, head)) socket.destroy();
  });
  return server;
}

/** Serves an app on an ephemeral loopback port (tests and benchmarks speak real HTTP to it). */
export async function serve(
  app: Koa,
  limits: ConnectionLimits = { HTTP_REQUEST_TIMEOUT_SECONDS: 30, HTTP_MAX_CONNECTIONS: 1024 },
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createApiServer(app, limits).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
