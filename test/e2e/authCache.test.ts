import { call } from '../helpers/accounts';
import { createAccount, createSynthesis, type TestAccount } from '../helpers/factories';
import { createTestDeps, type RunningApi, startApi } from '../helpers/stack';

/**
 * Two API processes' worth of deps (each its own LISTEN connection and its
 * own caches) on one database. The second keeps what it caches for five
 * minutes, so only the notifications can make it forget in time.
 */
const first = createTestDeps();
const second = createTestDeps({ AUTH_CACHE_SECONDS: '300' });
let apiA: RunningApi;
let apiB: RunningApi;
let owner: TestAccount;

beforeAll(async () => {
  [apiA, apiB, owner] = await Promise.all([startApi(first), startApi(second), createAccount(first)]);
});
afterAll(async () => {
  await Promise.all([apiA.close(), apiB.close()]);
  await Promise.all([first.close(), second.close()]);
});

/** Asks until `done` holds for the answer or `timeoutMs` passes; returns the last answer. */
async function askUntil(
  ask: () => Promise<{ status: number; body: any }>,
  done: (reply: { status: number }) => boolean,
  timeoutMs = 15_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await ask();
    if (done(reply) || Date.now() > deadline) return reply;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const completedSynthesis = () => createSynthesis(first, owner, { progress: 1, completed_at: new Date() });

describe('per-process caches of credentials and ended statuses', () => {
  it('a deleted API key stops working in the process that deleted it at once, and in every other process', async () => {
    const created = await call(apiA.url, 'POST', '/api/v1/auth/api-keys/', { name: 'cached' }, owner.access);
    expect(created.status).toBe(201);
    const key: string = created.body.key;
    // Both processes now know the key.
    expect((await call(apiA.url, 'GET', '/api/v1/tts/history/', undefined, key)).status).toBe(200);
    expect((await call(apiB.url, 'GET', '/api/v1/tts/history/', undefined, key)).status).toBe(200);

    expect(
      (await call(apiA.url, 'DELETE', `/api/v1/auth/api-keys/${created.body.id}/`, undefined, owner.access)).status,
    ).toBe(204);
    const inA = await call(apiA.url, 'GET', '/api/v1/tts/history/', undefined, key);
    expect(inA).toMatchObject({ status: 401, body: { code: 'authentication_failed' } });
    const inB = await askUntil(
      () => call(apiB.url, 'GET', '/api/v1/tts/history/', undefined, key),
      (reply) => reply.status === 401,
    );
    expect(inB).toMatchObject({ status: 401, body: { code: 'authentication_failed' } });
  });

  it('an ended status is answered from memory until the entry is deleted, by any path', async () => {
    const id = await completedSynthesis();
    const status = `/api/v1/tts/history/${id}/status/`;
    expect(await call(apiB.url, 'GET', status, undefined, owner.access)).toMatchObject({
      status: 200,
      body: { id, status: 'completed' },
    });
    // A write no service path makes (an ended status never changes) shows the answer comes from memory.
    await first.db('syntheses').where({ id }).update({ credits_charged: 1 });
    expect(await call(apiB.url, 'GET', status, undefined, owner.access)).toMatchObject({
      status: 200,
      body: { credits_charged: 0 },
    });
    // Another process (here: a direct write) marks it deleted; the trigger's NOTIFY reaches B.
    await first.db('syntheses').where({ id }).update({ deleted_at: new Date() });
    const after = await askUntil(
      () => call(apiB.url, 'GET', status, undefined, owner.access),
      (reply) => reply.status === 404,
    );
    expect(after.status).toBe(404);
  });

  it('another account never gets a kept status', async () => {
    const id = await completedSynthesis();
    const status = `/api/v1/tts/history/${id}/status/`;
    expect((await call(apiB.url, 'GET', status, undefined, owner.access)).status).toBe(200);
    const stranger = await createAccount(first);
    expect((await call(apiB.url, 'GET', status, undefined, stranger.access)).status).toBe(404);
  });
});
