import { randomUUID } from 'node:crypto';
import { createCreditActivities } from '../../activities/credits';
import type { ActivityDeps } from '../../activities';
import { creditDeduction, creditWorkflowId } from '../../workflows/creditDeduction';
import { createAccount } from '../helpers/factories';
import { createTestDeps, startTestWorker } from '../helpers/stack';

describe('credit ledger steps', () => {
  const deps = createTestDeps();
  const { applyCreditStep } = createCreditActivities(deps as unknown as ActivityDeps);
  afterAll(() => deps.close());

  const balances = async (accountId: string) => {
    const row = await deps.db('accounts').where({ id: accountId }).first('credit_balance', 'credits_reserved');
    return { available: Number(row.credit_balance), reserved: Number(row.credits_reserved) };
  };
  const ledger = (accountId: string) => deps.db('credit_ledger').where({ account_id: accountId }).orderBy('id').select('kind', 'reference', 'amount');

  it('reserve then capture charges once; repeating either step changes nothing', async () => {
    const { id } = await createAccount(deps, { credits: 1000 });
    const reference = randomUUID();
    const step = (kind: 'reserve' | 'capture' | 'release') => applyCreditStep({ step: kind, accountId: id, reference, amount: 300 });

    expect(await step('reserve')).toEqual({ applied: true, outcome: 'reserved' });
    expect(await step('reserve')).toEqual({ applied: false, outcome: 'reserved' });
    expect(await balances(id)).toEqual({ available: 700, reserved: 300 });

    expect(await step('capture')).toEqual({ applied: true, outcome: 'captured' });
    expect(await step('capture')).toEqual({ applied: false, outcome: 'settled' });
    // A settled reservation cannot be released afterwards.
    expect(await step('release')).toEqual({ applied: false, outcome: 'settled' });
    expect(await balances(id)).toEqual({ available: 700, reserved: 0 });
    expect((await ledger(id)).map((row) => row.kind)).toEqual(['reserve', 'capture']);
  });

  it('reserve then release returns the credits once', async () => {
    const { id } = await createAccount(deps, { credits: 500 });
    const reference = randomUUID();
    await applyCreditStep({ step: 'reserve', accountId: id, reference, amount: 200 });
    expect(await applyCreditStep({ step: 'release', accountId: id, reference, amount: 200 })).toEqual({ applied: true, outcome: 'released' });
    expect(await applyCreditStep({ step: 'release', accountId: id, reference, amount: 200 })).toEqual({ applied: false, outcome: 'settled' });
    expect(await applyCreditStep({ step: 'capture', accountId: id, reference, amount: 200 })).toEqual({ applied: false, outcome: 'settled' });
    expect(await balances(id)).toEqual({ available: 500, reserved: 0 });
  });

  it('refuses a reservation the balance does not cover, and records nothing', async () => {
    const { id } = await createAccount(deps, { credits: 99 });
    expect(await applyCreditStep({ step: 'reserve', accountId: id, reference: randomUUID(), amount: 100 })).toEqual({ applied: false, outcome: 'insufficient' });
    expect(await balances(id)).toEqual({ available: 99, reserved: 0 });
    expect(await ledger(id)).toEqual([]);
  });

  it('never overdraws under concurrent reservations', async () => {
    const { id } = await createAccount(deps, { credits: 1000 });
    const results = await Promise.all(
      Array.from({ length: 25 }, () => applyCreditStep({ step: 'reserve', accountId: id, reference: randomUUID(), amount: 150 })),
    );
    const reserved = results.filter((result) => result.outcome === 'reserved').length;
    expect(reserved).toBe(6); // 6 × 150 = 900 ≤ 1000 < 7 × 150
    expect(await balances(id)).toEqual({ available: 100, reserved: 900 });
  });

  it('runs as the creditDeduction workflow with a readable id, once per id', async () => {
    const worker = await startTestWorker(deps);
    try {
      const { id } = await createAccount(deps, { credits: 1000 });
      const reference = randomUUID();
      const run = () =>
        deps.temporal.workflow.execute(creditDeduction, {
          workflowId: creditWorkflowId('reserve', reference),
          taskQueue: worker.taskQueue,
          args: [{ step: 'reserve', accountId: id, reference, amount: 10 }],
        });
      expect(await run()).toEqual({ applied: true, outcome: 'reserved' });
      expect((await deps.temporal.workflow.getHandle(`credits:reserve:${reference}`).describe()).status.name).toBe('COMPLETED');
      // Running the same step again (a new run of the same id) applies nothing.
      expect(await run()).toEqual({ applied: false, outcome: 'reserved' });
      expect(await balances(id)).toEqual({ available: 990, reserved: 10 });
    } finally {
      await worker.shutdown();
    }
  });
});
