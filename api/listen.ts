import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

/**
 * Idle keep-alive connections stay open 65 s (Node's default is 5 s). A client
 * that reuses a pooled connection just as the server times it out gets
 * ECONNRESET; with a long server timeout the client (undici keeps idle
 * sockets 4 s, or the server's hint minus a margin) always gives up first.
 * Longer than the usual load balancer idle timeout (60 s) for the same reason.
 */
export function keepConnectionsAlive(server: Server): Server {
  server.keepAliveTimeout = 65_000;
  // Must exceed keepAliveTimeout, or a slow request's headers time out a live connection.
  server.headersTimeout = 66_000;
  return server;
}

/** Serves an app on an ephemeral loopback port (tests and benchmarks speak real HTTP to it). */
export async function serve(app: Koa): Promise<{ url: string; close(): Promise<void> }> {
  const server = keepConnectionsAlive(app.listen(0, '127.0.0.1'));
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
