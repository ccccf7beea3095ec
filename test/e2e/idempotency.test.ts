import { createAccount, type TestAccount } from '../helpers/factories';
import { useStack } from '../helpers/stack';

const BODY = { text: 'Idempotent hello.', voice_id: 'en-us-slt' };

describe('Idempotency-Key on synthesize', () => {
  const { deps, api } = useStack({ worker: true });

  async function submit(
    who: TestAccount,
    key: string | undefined,
    body: unknown = BODY,
    family = '/api/v1',
    raw?: string,
  ) {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${who.access}`,
    };
    if (key !== undefined) headers['Idempotency-Key'] = key;
    const response = await fetch(`${api.url}${family}/tts/synthesize/`, {
      method: 'POST',
      headers,
      body: raw ?? JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  }
  const chargesOf = async (accountId: string) =>
    (
      await deps
        .db('credit_ledger')
        .where({ account_id: accountId, kind: 'reserve' })
        .count<{ count: string }[]>({ count: '*' })
    )[0].count;

  it('replays the original 202 (status, body, Location) for the same key and body, starting and charging nothing new', async () => {
    const who = await createAccount(deps);
    const first = await submit(who, 'order-1');
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    // Same parsed JSON, different key order and spacing.
    const again = await submit(
      who,
      'order-1',
      undefined,
      '/api/v1',
      `{ "voice_id": "en-us-slt",   "text": "Idempotent hello." }`,
    );
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));

    // Keys belong to the account across both families: the unversioned path replays the same response.
    const otherFamily = await submit(who, 'order-1', BODY, '/api');
    expect(otherFamily.body).toEqual(first.body);
    expect(otherFamily.headers.get('idempotent-replayed')).toBe('true');

    expect(await deps.db('syntheses').where({ account_id: who.id }).count()).toEqual([{ count: '1' }]);
    expect(await chargesOf(who.id)).toBe('1');
  });

  it('answers 422 idempotency_key_reused for the same key with a different body', async () => {
    const who = await createAccount(deps);
    expect((await submit(who, 'k-422')).status).toBe(202);
    const changed = await submit(who, 'k-422', { ...BODY, speed: 1.5 });
    expect(changed.status).toBe(422);
    expect(changed.body.code).toBe('idempotency_key_reused');
    expect(await chargesOf(who.id)).toBe('1');
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['non-ASCII', 'clé-1'],
  ])('rejects a malformed key (%s) with 400 validation_error on Idempotency-Key', async (_, key) => {
    const who = await createAccount(deps);
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${who.access}`,
    };
    // fetch refuses non-ASCII header values, so send the bytes as latin1 through the raw header.
    const response = await fetch(`${api.url}/api/v1/tts/synthesize/`, {
      method: 'POST',
      headers: { ...headers, 'Idempotency-Key': Buffer.from(key, 'utf8').toString('latin1') },
      body: JSON.stringify(BODY),
    });
    const body = (await response.json()) as any;
    expect(response.status).toBe(400);
    expect(body.code).toBe('validation_error');
    expect(body.errors).toHaveProperty(['Idempotency-Key']);
    expect(await chargesOf(who.id)).toBe('0');
  });

  it('treats the same key from another account as unrelated', async () => {
    const [a, b] = await Promise.all([createAccount(deps), createAccount(deps)]);
    const fromA = await submit(a, 'shared-key');
    const fromB = await submit(b, 'shared-key');
    expect(fromB.status).toBe(202);
    expect(fromB.headers.get('idempotent-replayed')).toBeNull();
    expect(fromB.body.id).not.toBe(fromA.body.id);
  });

  it('does not store error responses: a corrected request with the same key runs', async () => {
    const who = await createAccount(deps);
    const bad = await submit(who, 'fix-me', { ...BODY, voice_id: 'no-such-voice' });
    expect(bad.status).toBe(400);
    const good = await submit(who, 'fix-me', BODY);
    expect(good.status).toBe(202);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('20 concurrent requests with one key: one workflow, one charge, the others 409 or replays of the same id', async () => {
    const who = await createAccount(deps);
    const results = await Promise.all(Array.from({ length: 20 }, () => submit(who, 'burst')));
    const accepted = results.filter((result) => result.status === 202);
    const inUse = results.filter((result) => result.status === 409);
    expect(accepted.length + inUse.length).toBe(20);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(new Set(accepted.map((result) => result.body.id)).size).toBe(1);
    expect(accepted.filter((result) => result.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    for (const result of inUse) expect(result.body.code).toBe('idempotency_key_in_use');
    expect(await deps.db('syntheses').where({ account_id: who.id }).count()).toEqual([{ count: '1' }]);
    expect(await chargesOf(who.id)).toBe('1');
    // After the first answered, a repeat replays.
    const later = await submit(who, 'burst');
    expect(later.status).toBe(202);
    expect(later.body.id).toBe(accepted[0].body.id);
  });

  it('takes over a key whose first request died half-way and keeps its synthesis id', async () => {
    const who = await createAccount(deps);
    const first = await submit(who, 'crashed');
    // Make the key look like a claim whose process died before answering.
    await deps
      .db('idempotency_keys')
      .where({ account_id: who.id, key: 'crashed' })
      .update({
        status: 'in_progress',
        locked_until: new Date(Date.now() - 1000),
        response_status: null,
        response_body: null,
      });
    const retried = await submit(who, 'crashed');
    expect(retried.status).toBe(202);
    expect(retried.body.id).toBe(first.body.id);
    expect(await deps.db('syntheses').where({ account_id: who.id }).count()).toEqual([{ count: '1' }]);
    expect(await chargesOf(who.id)).toBe('1');
    const workflows = await deps.temporal.workflow.count(`WorkflowId = "synthesis:${first.body.id}"`);
    expect(workflows.count).toBe(1);
  });
});
