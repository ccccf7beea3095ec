import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { call, PASSWORD, uniqueEmail, waitForVerificationToken } from '../helpers/accounts';
import { eventually } from '../helpers/eventually';
import { createAccount } from '../helpers/factories';
import { useStack } from '../helpers/stack';

/**
 * Webhook receivers that accept and never answer must not slow anyone else:
 * deliveries run on a task queue of their own with WEBHOOK_CONCURRENCY slots,
 * one attempt in flight per endpoint. Before, 110 pings to such receivers
 * filled the main queue's 100 activity slots and another account's signup
 * mail waited for the first attempts to time out (10 s).
 *
 * The receivers' requests time out after a minute here: "no attempt has timed
 * out when the mail goes out" must not depend on how fast a loaded machine
 * sends a sign-up mail.
 */

const CONCURRENCY = 4;
const ENDPOINTS = 110;

/** An http server on 127.0.0.1 that reads each request and never answers; it counts the requests open at once, overall and per path. */
async function hangingReceiver() {
  const open = new Map<string, number>();
  let openNow = 0;
  let maxOpen = 0;
  let maxOpenOnePath = 0;
  let accepted = 0;
  let closedEarly = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((request: IncomingMessage) => {
    const key = request.url ?? '';
    accepted += 1;
    openNow += 1;
    open.set(key, (open.get(key) ?? 0) + 1);
    maxOpen = Math.max(maxOpen, openNow);
    maxOpenOnePath = Math.max(maxOpenOnePath, open.get(key)!);
    request.socket.once('close', () => {
      openNow -= 1;
      closedEarly += 1;
      open.set(key, open.get(key)! - 1);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    stats: () => ({ accepted, openNow, maxOpen, maxOpenOnePath, closed: closedEarly }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_CONCURRENCY: String(CONCURRENCY),
  WEBHOOK_MAX_ENDPOINTS: String(ENDPOINTS),
  RATE_LIMIT_WEBHOOK_TESTS_PER_MINUTE: '0',
};

describe('webhook deliveries and everyone else (requests time out after a minute)', () => {
  const { deps, api } = useStack({ worker: true, env: { ...ENV, WEBHOOK_TIMEOUT_SECONDS: '60' } });

  it('110 pings to receivers that never answer hold only the webhook slots; another account signs up meanwhile', async () => {
    const receiver = await hangingReceiver();
    try {
      const flooder = await createAccount(deps);
      const ids: string[] = [];
      for (let index = 0; index < ENDPOINTS; index += 1) {
        const created = await call(
          api.url,
          'POST',
          '/api/v1/webhooks/',
          { url: receiver.url(`/hook/${index % 10}`), events: ['voice.ready'] },
          flooder.access,
        );
        expect(created.status).toBe(201);
        ids.push(created.body.id);
      }
      // Ten endpoints share each path: two of them to one URL, as one slow receiver behind many endpoints.
      const pings = await Promise.all(
        ids.map((id) => call(api.url, 'POST', `/api/v1/webhooks/${id}/test/`, undefined, flooder.access)),
      );
      expect(pings.every((ping) => ping.status === 202)).toBe(true);
      await eventually('the webhook slots to fill', () => receiver.stats().openNow === CONCURRENCY, 30_000);

      // Another account's signup: its mail goes out while those attempts still hang (none of them has timed out yet).
      const email = uniqueEmail('bystander');
      expect(
        (await call(api.url, 'POST', '/api/v1/auth/register/', { email, password: PASSWORD, name: 'Bystander' }))
          .status,
      ).toBe(201);
      await waitForVerificationToken(deps.config.MAIL_DIR, email, 1, 60_000);
      const whenMailed = receiver.stats();
      expect(whenMailed.closed).toBe(0);
      expect(whenMailed.openNow).toBe(CONCURRENCY);
      // Never more attempts at once than the webhook slots.
      expect(whenMailed.maxOpen).toBe(CONCURRENCY);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});

describe('webhook deliveries to one endpoint (requests time out after the default 10 s)', () => {
  const { deps, api } = useStack({ worker: true, env: ENV });

  it('keeps one attempt in flight per endpoint however many events wait for it', async () => {
    const receiver = await hangingReceiver();
    try {
      const owner = await createAccount(deps);
      const created = await call(
        api.url,
        'POST',
        '/api/v1/webhooks/',
        { url: receiver.url('/one'), events: ['voice.ready'] },
        owner.access,
      );
      const pings = await Promise.all(
        Array.from({ length: 6 }, () =>
          call(api.url, 'POST', `/api/v1/webhooks/${created.body.id}/test/`, undefined, owner.access),
        ),
      );
      expect(pings.every((ping) => ping.status === 202)).toBe(true);
      await eventually('the first attempt', () => receiver.stats().accepted === 1, 30_000);
      // The other five wait for the lease, retried every few seconds: still one at a time when the first one times out.
      await eventually(
        'the first attempt to time out and a second to start',
        () => receiver.stats().accepted >= 2,
        40_000,
      );
      expect(receiver.stats().maxOpen).toBe(1);
      // Waiting for the lease is not an attempt: only the attempts that reached the receiver are counted.
      const attempts = async () => {
        const deliveries = await call(
          api.url,
          'GET',
          `/api/v1/webhooks/${created.body.id}/deliveries/?page_size=10`,
          undefined,
          owner.access,
        );
        return deliveries.body.results
          .map((delivery: { attempts: number }) => delivery.attempts)
          .reduce((sum: number, count: number) => sum + count, 0);
      };
      await eventually(
        'the attempts counted to match the requests received',
        async () => (await attempts()) === receiver.stats().accepted,
        5_000,
      );
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
