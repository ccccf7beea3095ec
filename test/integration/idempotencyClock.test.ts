import { randomUUID } from 'node:crypto';
import { idempotent, type StoredResponse } from '../../api/idempotency';
import type { Account } from '../../db/models/Account';
import { createAccount } from '../helpers/factories';
import { createTestDeps } from '../helpers/stack';

/**
 * Idempotency-Key claims across API nodes whose clocks differ: the claim's
 * lock is on the database's clock, so a node 90 s ahead neither holds a key
 * for 95 s nor takes over a claim another node still holds.
 */
describe('idempotency claims with API clocks apart', () => {
  const deps = createTestDeps();
  afterAll(() => deps.close());
  afterEach(() => jest.restoreAllMocks());

  const realNow = Date.now.bind(Date);
  const clockAt = (offsetMs: number) => jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offsetMs);
  /** A request whose handler never answers: an API process that died while holding the key. */
  const hanging = () => new Promise<StoredResponse>(() => undefined);
  const answered = (synthesisId: string): Promise<StoredResponse> =>
    Promise.resolve({ status: 202, body: { id: synthesisId }, location: null });

  it('a claim made by a node 90 s ahead holds for the lock time on the database clock, not 95 s', async () => {
    const { id } = await createAccount(deps);
    const account = { id } as Account;
    const key = `clock-${randomUUID()}`;
    clockAt(90_000);
    void idempotent(deps.db, account, key, { text: 'a' }, hanging);
    let row: { seconds: number } | undefined;
    for (let attempt = 0; attempt < 100 && !row; attempt++) {
      row = await deps
        .db('idempotency_keys')
        .where({ account_id: id, key })
        .first(deps.db.raw('extract(epoch from locked_until - now())::float as seconds'));
      if (!row) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(row).toBeDefined();
    expect(row!.seconds).toBeGreaterThan(0);
    expect(row!.seconds).toBeLessThanOrEqual(5);
  });

  it('a node 90 s ahead does not take over a claim that another node still holds', async () => {
    const { id } = await createAccount(deps);
    const account = { id } as Account;
    const key = `clock-${randomUUID()}`;
    void idempotent(deps.db, account, key, { text: 'b' }, hanging);
    for (
      let attempt = 0;
      attempt < 100 && !(await deps.db('idempotency_keys').where({ account_id: id, key }).first('key'));
      attempt++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    clockAt(90_000);
    const handled = jest.fn(answered);
    await expect(idempotent(deps.db, account, key, { text: 'b' }, handled)).rejects.toMatchObject({
      status: 409,
      code: 'idempotency_key_in_use',
    });
    expect(handled).not.toHaveBeenCalled();
  });

  it('a node 90 s behind takes over a claim whose lock ran out on the database clock', async () => {
    const { id } = await createAccount(deps);
    const account = { id } as Account;
    const key = `clock-${randomUUID()}`;
    void idempotent(deps.db, account, key, { text: 'c' }, hanging);
    let synthesisId: string | undefined;
    for (let attempt = 0; attempt < 100 && !synthesisId; attempt++) {
      synthesisId = (await deps.db('idempotency_keys').where({ account_id: id, key }).first('synthesis_id'))
        ?.synthesis_id;
      if (!synthesisId) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The first claimant died: its lock ran out (as the database tells time).
    await deps
      .db('idempotency_keys')
      .where({ account_id: id, key })
      .update({ locked_until: deps.db.raw("now() - interval '1 second'") });
    clockAt(-90_000);
    const handled = jest.fn(answered);
    const response = await idempotent(deps.db, account, key, { text: 'c' }, handled);
    expect(handled).toHaveBeenCalledWith(synthesisId);
    expect(response).toMatchObject({ status: 202, replayed: false });
  });
});
