import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/**
 * A process's Prometheus endpoint on a port of its own (the API's and the
 * worker's), never on the public API port: bound to loopback by default,
 * `GET /metrics` only. `sdkUrl`: the worker appends the Temporal SDK's own
 * metrics (its exporter listens on a loopback port of its own).
 */
export async function serveMetrics(
  registry: Registry,
  { host, port, sdkUrl }: { host: string; port: number; sdkUrl?: string },
): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404).end('not found\n');
      return;
    }
    void (async () => {
      try {
        const own = await registry.metrics();
        const sdk = sdkUrl
          ? await fetch(sdkUrl, { signal: AbortSignal.timeout(2_000) })
              .then((r) => r.text())
              .catch(() => '')
          : '';
        response.writeHead(200, { 'Content-Type': registry.contentType });
        response.end(`${own}${own.endsWith('\n') ? '' : '\n'}${sdk}`);
      } catch (error) {
        response.writeHead(500).end(`${(error as Error).message}\n`);
      }
    })();
  });
  server.listen(port, host);
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/metrics` };
}
