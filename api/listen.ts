import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

/** Serves an app on an ephemeral loopback port (tests and benchmarks speak real HTTP to it). */
export async function serve(app: Koa): Promise<{ url: string; close(): Promise<void> }> {
  const server = app.listen(0, '127.0.0.1');
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
