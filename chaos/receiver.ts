import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

/**
 * A webhook receiver on a local address for the soak and the multi-node
 * harness: verifies each delivery's Standard Webhooks signature with the
 * endpoint's secret (by the path it was registered under), answers 204, and
 * keeps which events arrived (de-duplicated on the event id, as a receiver should).
 */

export interface Delivery {
  eventId: string;
  type: string;
  /** The resource id (`data.id`): a synthesis or a voice. */
  resourceId: string;
  receivedAt: number;
}

export interface Receiver {
  /** Base URL; register endpoints as `${url}/<name>` after `secretFor(name, secret)`. */
  url: string;
  secretFor(name: string, secret: string): void;
  /** Unique events, by event id. */
  events: Map<string, Delivery>;
  /** Requests, retries and duplicates included. */
  requests: number;
  /** Deliveries whose signature did not verify (or for an unknown path). */
  badSignatures: number;
  close(): Promise<void>;
}

export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  const secrets = new Map<string, Webhook>();
  const receiver: Omit<Receiver, 'url' | 'close'> & { server?: Server } = {
    secretFor: (name, secret) => secrets.set(name, new Webhook(secret.replace(/^whsec_/, ''))),
    events: new Map(),
    requests: 0,
    badSignatures: 0,
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.requests += 1;
      const body = Buffer.concat(chunks).toString('utf8');
      const verifier = secrets.get((request.url ?? '/').slice(1));
      try {
        if (!verifier) throw new Error('unknown endpoint');
        const payload = verifier.verify(body, request.headers as Record<string, string>) as {
          id: string;
          type: string;
          data?: { id?: string };
        };
        if (!receiver.events.has(payload.id))
          receiver.events.set(payload.id, {
            eventId: payload.id,
            type: payload.type,
            resourceId: payload.data?.id ?? '',
            receivedAt: Date.now(),
          });
        response.writeHead(204).end();
      } catch {
        receiver.badSignatures += 1;
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as { port: number };
  return {
    ...receiver,
    get requests() {
      return receiver.requests;
    },
    get badSignatures() {
      return receiver.badSignatures;
    },
    url: `http://${host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
