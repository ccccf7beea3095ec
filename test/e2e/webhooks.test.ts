import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createActivities } from '../../activities';
import { sharedEngines } from '../../engines/registry';
import { loadConfig } from '../../lib/config';
import { createMailer } from '../../lib/mail';
import { call } from '../helpers/http';
import { until } from '../helpers/eventually';
import { createAccount, type TestAccount } from '../helpers/factories';
import { uploadConsentedSample } from '../helpers/samples';
import { startApi, useStack } from '../helpers/stack';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A local receiver on 127.0.0.1 that answers with `answer(n)` for its n-th request (1-based). */
async function receiver(answer: (count: number) => number = () => 204, redirectTo?: string) {
  const received: Received[] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (redirectTo) response.writeHead(302, { Location: redirectTo }).end();
      else response.writeHead(answer(received.length)).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    received,
    port,
    url: `http://127.0.0.1:${port}/hook`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** What a receiver does: recompute the HMAC of "<timestamp>.<body>" and compare with each v1= in constant time. */
function verified(secret: string, { headers, body }: Received): boolean {
  const timestamp = String(headers['openvox-webhook-timestamp']);
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest();
  return String(headers['openvox-signature'])
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('v1='))
    .some((part) => {
      const given = Buffer.from(part.slice(3), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

const ALLOW = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_INITIAL_SECONDS: '1' };

describe('webhooks', () => {
  const { deps, api } = useStack({ worker: true, env: ALLOW });
  let owner: TestAccount;
  let stranger: TestAccount;
  beforeAll(async () => {
    [owner, stranger] = await Promise.all([createAccount(deps), createAccount(deps)]);
  });
  /** Registers an endpoint of the owner's in `family` that sends `events` to `target`: the API's answer. */
  const register = (target: { url: string }, events: string[], family = '/api/v1') =>
    call(api.url, 'POST', `${family}/webhooks/`, { url: target.url, events }, owner.access);

  describe.each([['/api/v1'], ['/api']])('endpoints in the %s family', (family) => {
    const req = (method: string, path: string, body?: unknown, who: TestAccount = owner) =>
      call(api.url, method, `${family}/webhooks/${path}`, body, who.access);

    it('creates (secret shown once), reads, lists, updates, rotates and deletes an endpoint', async () => {
      const created = await req('POST', '', {
        url: 'https://example.com/hook',
        events: ['synthesis.completed', 'synthesis.completed', 'voice.ready'],
        description: 'CI',
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        url: 'https://example.com/hook',
        description: 'CI',
        events: ['synthesis.completed', 'voice.ready'],
        enabled: true,
        disabled_reason: null,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
        previous_secret_expires_at: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const id = created.body.id;
      expect(created.headers.get('location')).toBe(`${family}/webhooks/${id}/`);

      const read = await req('GET', `${id}/`);
      expect(read.body).not.toHaveProperty('secret');
      expect(
        (await req('GET', '?page_size=100')).body.results.map((endpoint: { id: string }) => endpoint.id),
      ).toContain(id);
      expect((await req('GET', `${id}/`, undefined, stranger)).status).toBe(404);

      const updated = await req('PATCH', `${id}/`, { enabled: false, events: ['credits.low'] });
      expect(updated.body).toMatchObject({ enabled: false, events: ['credits.low'] });
      expect((await req('PATCH', `${id}/`, {})).status).toBe(400);
      expect((await req('PATCH', `${id}/`, { events: ['nope'] })).body.errors).toHaveProperty(['events.0']);

      const rotated = await req('POST', `${id}/rotate-secret/`);
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).not.toBe(created.body.secret);
      expect(Date.parse(rotated.body.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);

      expect((await req('DELETE', `${id}/`)).status).toBe(204);
      expect((await req('GET', `${id}/`)).status).toBe(404);
    });

    it('refuses plain http and internal targets as the operator configured them', async () => {
      // The same resources (pool, Temporal client) under the default settings.
      const strictApi = await startApi({
        ...deps,
        config: loadConfig({ ...process.env, TEMPORAL_TASK_QUEUE: deps.config.TEMPORAL_TASK_QUEUE }),
      });
      try {
        for (const url of [
          'http://example.com/hook',
          'https://127.0.0.1/',
          'https://10.0.0.1/',
          'https://169.254.169.254/',
          'https://[::1]/',
          'https://[::ffff:127.0.0.1]/',
          'https://localhost/',
        ]) {
          const reply = await call(
            strictApi.url,
            'POST',
            `${family}/webhooks/`,
            { url, events: ['voice.ready'] },
            owner.access,
          );
          expect([url, reply.status, reply.body.code]).toEqual([url, 400, 'validation_error']);
          expect(reply.body.errors).toHaveProperty('url');
        }
      } finally {
        await strictApi.close();
      }
    });
  });

  it('caps the endpoints of an account, even when created at once, and rate-limits test pings', async () => {
    const limitedApi = await startApi({
      ...deps,
      config: loadConfig({
        ...process.env,
        ...ALLOW,
        TEMPORAL_TASK_QUEUE: deps.config.TEMPORAL_TASK_QUEUE,
        WEBHOOK_MAX_ENDPOINTS: '3',
        RATE_LIMIT_WEBHOOK_TESTS_PER_MINUTE: '2',
      }),
    });
    const target = await receiver();
    try {
      const someone = await createAccount(deps);
      const create = () =>
        call(limitedApi.url, 'POST', '/api/v1/webhooks/', { url: target.url, events: ['voice.ready'] }, someone.access);
      const answers = await Promise.all([create(), create(), create(), create(), create()]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 403, 403]);
      expect(answers.find((answer) => answer.status === 403)!.body).toMatchObject({
        code: 'plan_limit_reached',
        detail: expect.stringContaining('at most 3 webhook endpoints'),
      });
      expect(
        await deps.db('webhook_endpoints').where({ account_id: someone.id }).count({ count: '*' }).first(),
      ).toEqual({ count: '3' });

      const id = answers.find((answer) => answer.status === 201)!.body.id;
      const ping = () => call(limitedApi.url, 'POST', `/api/v1/webhooks/${id}/test/`, undefined, someone.access);
      expect((await ping()).status).toBe(202);
      expect((await ping()).status).toBe(202);
      const limited = await ping();
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await Promise.all([limitedApi.close(), target.close()]);
    }
  });

  it('delivers signed synthesis.completed and voice.ready events to a local receiver', async () => {
    const target = await receiver();
    try {
      const endpoint = await register(target, ['synthesis.completed', 'voice.ready']);
      const { secret } = endpoint.body;

      const submitted = await call(
        api.url,
        'POST',
        '/api/v1/tts/synthesize/',
        { text: 'Webhooks tell you when it is done.', voice_id: 'en-us-slt' },
        owner.access,
      );
      expect(submitted.status).toBe(202);
      const completed = await until(
        'synthesis.completed',
        async () => target.received.find((event) => JSON.parse(event.body).type === 'synthesis.completed') ?? null,
        90_000,
      );
      expect(verified(secret, completed)).toBe(true);
      expect(verified('whsec_wrong', completed)).toBe(false);
      // The Standard Webhooks library verifies the same delivery from its webhook-* headers.
      expect(new Webhook(secret).verify(completed.body, completed.headers as Record<string, string>)).toMatchObject({
        type: 'synthesis.completed',
      });
      expect(() =>
        new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`).verify(
          completed.body,
          completed.headers as Record<string, string>,
        ),
      ).toThrow(WebhookVerificationError);
      const event = JSON.parse(completed.body);
      expect(event).toEqual({
        id: expect.stringMatching(/^evt_/),
        type: 'synthesis.completed',
        created: expect.any(String),
        data: expect.objectContaining({
          id: submitted.body.id,
          status: 'completed',
          audio_url: `/api/v1/tts/history/${submitted.body.id}/audio/`,
        }),
      });
      expect(completed.headers['openvox-webhook-id']).toBe(event.id);

      const voice = await uploadConsentedSample(api.url, owner.access, 'Hooked', { pitch: 30 });
      expect(voice.status).toBe(202);
      const ready = await until(
        'voice.ready',
        async () => target.received.find((event) => JSON.parse(event.body).type === 'voice.ready') ?? null,
        150_000,
        500,
      );
      expect(verified(secret, ready)).toBe(true);
      expect(JSON.parse(ready.body).data).toMatchObject({ id: voice.body.id, status: 'ready', category: 'cloned' });

      const deliveries = await call(
        api.url,
        'GET',
        `/api/v1/webhooks/${endpoint.body.id}/deliveries/`,
        undefined,
        owner.access,
      );
      expect(deliveries.body.count).toBe(2);
      for (const delivery of deliveries.body.results)
        expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, last_response_code: 204 });
    } finally {
      await target.close();
    }
  });

  it('retries a receiver that fails three times, then records one delivery with four attempts; both secrets sign after a rotation', async () => {
    const target = await receiver((count) => (count <= 3 ? 500 : 200));
    try {
      const endpoint = await register(target, ['voice.failed'], '/api');
      const rotated = await call(
        api.url,
        'POST',
        `/api/webhooks/${endpoint.body.id}/rotate-secret/`,
        undefined,
        owner.access,
      );
      const ping = await call(api.url, 'POST', `/api/webhooks/${endpoint.body.id}/test/`, undefined, owner.access);
      expect([ping.status, ping.body]).toEqual([202, expect.anything()]);
      expect(ping.body).toMatchObject({ event_type: 'ping', status: 'pending' });
      const delivered = await until(
        'delivered',
        async () => {
          const page = await call(
            api.url,
            'GET',
            `/api/webhooks/${endpoint.body.id}/deliveries/`,
            undefined,
            owner.access,
          );
          return page.body.results[0]?.status === 'delivered' ? page.body : null;
        },
        60_000,
        250,
      );
      expect(delivered.count).toBe(1);
      expect(delivered.results[0]).toMatchObject({
        id: ping.body.id,
        status: 'delivered',
        attempts: 4,
        last_response_code: 200,
      });
      expect(target.received).toHaveLength(4);
      expect(new Set(target.received.map((request) => request.headers['openvox-webhook-id']))).toEqual(
        new Set([ping.body.event_id]),
      );
      const last = target.received[3];
      expect(String(last.headers['openvox-signature']).split(',')).toHaveLength(2);
      expect(verified(rotated.body.secret, last)).toBe(true);
      expect(verified(endpoint.body.secret, last)).toBe(true);
    } finally {
      await target.close();
    }
  });

  it('disables an endpoint whose receiver answers 410', async () => {
    const target = await receiver(() => 410);
    try {
      const endpoint = await register(target, ['voice.ready']);
      await call(api.url, 'POST', `/api/v1/webhooks/${endpoint.body.id}/test/`, undefined, owner.access);
      const disabled = await until('disabled', async () => {
        const reply = await call(api.url, 'GET', `/api/v1/webhooks/${endpoint.body.id}/`, undefined, owner.access);
        return reply.body.enabled ? null : reply.body;
      });
      expect(disabled.disabled_reason).toBe('gone');
      expect(target.received).toHaveLength(1);
    } finally {
      await target.close();
    }
  });

  it('refuses internal targets at delivery time without the allow flag, and never follows a redirect', async () => {
    const target = await receiver();
    const redirector = await receiver(undefined, target.url);
    const config = loadConfig({ ...process.env, WEBHOOK_ALLOW_HTTP: 'true' });
    // The worker's activities with this test's settings (createWorkers builds them the same way).
    const activitiesWith = (settings: typeof config) =>
      createActivities({
        config: settings,
        db: deps.db,
        storage: deps.storage,
        temporal: deps.temporal,
        mailer: createMailer(settings, deps.logger),
        engines: sharedEngines({ enableNonFree: false, modelsDir: settings.MODELS_DIR }),
      });
    const activities = activitiesWith(config);
    const permissive = activitiesWith({ ...config, WEBHOOK_ALLOW_PRIVATE_TARGETS: true });
    const delivery = async (url: string) => {
      // Written straight to the table: the API would refuse these URLs already.
      const endpointId = randomUUID();
      await deps
        .db('webhook_endpoints')
        .insert({ id: endpointId, account_id: owner.id, url, events: ['voice.ready'], secret: 'whsec_x' });
      const id = randomUUID();
      await deps
        .db('webhook_deliveries')
        .insert({ id, endpoint_id: endpointId, event_id: `evt_${id}`, event_type: 'ping', body: '{}' });
      return id;
    };
    try {
      for (const url of [
        `http://127.0.0.1:${target.port}/`,
        `http://localhost:${target.port}/`,
        `http://[::ffff:127.0.0.1]:${target.port}/`,
        `http://10.0.0.1/`,
        `http://169.254.169.254/`,
        `http://[::1]:${target.port}/`,
      ]) {
        const id = await delivery(url);
        expect([url, await activities.attemptWebhookDelivery({ deliveryId: id })]).toEqual([url, 'refused']);
        expect(await deps.db('webhook_deliveries').where({ id }).first('status', 'last_error')).toMatchObject({
          status: 'failed',
          last_error: expect.stringMatching(/^target_refused/),
        });
      }
      const viaRedirect = await delivery(redirector.url);
      await expect(activities.attemptWebhookDelivery({ deliveryId: viaRedirect })).resolves.toBe('refused');
      // Even where internal targets are allowed, a redirect is an answer, not a new target.
      const redirected = await delivery(redirector.url);
      await expect(permissive.attemptWebhookDelivery({ deliveryId: redirected })).rejects.toThrow(
        'The receiver answered 302.',
      );
      expect(await deps.db('webhook_deliveries').where({ id: redirected }).first('last_response_code')).toEqual({
        last_response_code: 302,
      });
      expect(redirector.received).toHaveLength(1);
      expect(target.received).toHaveLength(0);

      // Allowing private targets never opens the cloud metadata service.
      const metadata = await delivery('http://169.254.169.254/latest/meta-data/');
      await expect(permissive.attemptWebhookDelivery({ deliveryId: metadata })).resolves.toBe('refused');
      // A closed port and a timeout read alike to the account: no port-scan oracle in last_error.
      const closed = await receiver();
      await closed.close();
      const unreachable = await delivery(closed.url);
      await expect(permissive.attemptWebhookDelivery({ deliveryId: unreachable })).rejects.toThrow(
        'The webhook request failed: ECONNREFUSED',
      );
      expect(await deps.db('webhook_deliveries').where({ id: unreachable }).first('last_error')).toEqual({
        last_error: 'unreachable',
      });
    } finally {
      await Promise.all([target.close(), redirector.close()]);
    }
  });
});
