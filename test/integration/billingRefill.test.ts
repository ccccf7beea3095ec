import { randomUUID } from 'node:crypto';
import { hashPassword } from '../../api/auth/passwords';
import { SIGNUP_GRANT_REFERENCE } from '../../db/erasedSignups';
import { applyGrant, reserve } from '../../db/ledger';
import { ensureBillingSchedule } from '../../lib/schedules';
import { billingRefill } from '../../workflows';
import { uniqueEmail } from '../helpers/accounts';
import { useStack } from '../helpers/stack';

describe('monthly billing refills', () => {
  const { deps, worker } = useStack({ api: false, worker: true });
  let passwordHash: string;

  beforeAll(async () => {
    passwordHash = await hashPassword('correct horse battery staple');
  });

  /** A verified account as signup leaves it: the free grant in the ledger. */
  async function verifiedAt(verified: string, plan = 'free'): Promise<string> {
    const id = randomUUID();
    await deps.db('accounts').insert({
      id,
      email: uniqueEmail('billing'),
      password_hash: passwordHash,
      email_verified_at: verified,
      subscription_tier: plan,
    });
    await deps.db.transaction((trx) => applyGrant(trx, id, 35_000, SIGNUP_GRANT_REFERENCE));
    return id;
  }
  const account = (id: string) => deps.db('accounts').where({ id }).first('credit_balance', 'credits_reserved');
  const refills = (id: string) =>
    deps
      .db('credit_ledger')
      .where({ account_id: id, kind: 'grant' })
      .whereLike('reference', 'refill:%')
      .orderBy('id')
      .select('reference', 'amount');
  const runRefill = (asOf: string) =>
    deps.temporal.workflow.execute(billingRefill, {
      taskQueue: worker.taskQueue,
      workflowId: `billing-refill-test-${randomUUID()}`,
      args: [{ asOf }],
    });

  it('tops up the available balance at each period boundary, once per period, keeping reservations', async () => {
    // Verified on 2025-01-31: periods start on the 28th of February, the 31st of March, …
    const id = await verifiedAt('2025-01-31T10:00:00.000Z');
    await deps.db('accounts').where({ id }).update({ credit_balance: 30_000 }); // 5000 spent
    await deps.db.transaction((trx) => reserve(trx, id, `synthesis-in-flight-${id}`, 1_000));

    await runRefill('2025-02-28T09:59:59.000Z'); // still period 0
    expect(await refills(id)).toEqual([]);

    await runRefill('2025-02-28T10:00:00.000Z');
    expect(await refills(id)).toEqual([{ reference: 'refill:2025-02-28T10:00:00.000Z', amount: '6000' }]);
    expect(await account(id)).toEqual({ credit_balance: '35000', credits_reserved: '1000' });

    // Later in the same period, and again: nothing more.
    await runRefill('2025-03-15T00:00:00.000Z');
    await runRefill('2025-03-15T00:00:00.000Z');
    expect(await refills(id)).toHaveLength(1);

    await runRefill('2025-03-31T10:00:00.000Z');
    expect((await refills(id)).map((row) => [row.reference, row.amount])).toEqual([
      ['refill:2025-02-28T10:00:00.000Z', '6000'],
      ['refill:2025-03-31T10:00:00.000Z', '0'],
    ]);
    expect(await account(id)).toEqual({ credit_balance: '35000', credits_reserved: '1000' });
  });

  it('uses the plan of the account and leaves accounts in their first period alone', async () => {
    const creator = await verifiedAt('2025-05-10T00:00:00.000Z', 'creator');
    const fresh = await verifiedAt('2025-06-01T00:00:00.000Z');
    await runRefill('2025-06-10T00:00:00.000Z');
    expect(await account(creator)).toMatchObject({ credit_balance: '600000' });
    expect(await refills(fresh)).toEqual([]);
  });

  it('refills nothing twice across a worker restart', async () => {
    const id = await verifiedAt('2025-07-01T00:00:00.000Z');
    await deps.db('accounts').where({ id }).update({ credit_balance: 100 });
    await runRefill('2025-08-02T00:00:00.000Z');
    await worker.restart();
    await runRefill('2025-08-02T00:00:00.000Z');
    expect(await refills(id)).toEqual([{ reference: 'refill:2025-08-01T00:00:00.000Z', amount: '34900' }]);
    expect(await account(id)).toMatchObject({ credit_balance: '35000' });
  });

  it('is started by a schedule; a paused schedule triggered by hand refills what is due now', async () => {
    const scheduleId = `billing-refill-test-${randomUUID()}`;
    await ensureBillingSchedule(deps.temporal, deps.config, { scheduleId, paused: true });
    await ensureBillingSchedule(deps.temporal, deps.config, { scheduleId, paused: true }); // a second worker's start: no error
    const handle = deps.temporal.schedule.getHandle(scheduleId);
    try {
      const description = await handle.describe();
      expect(description.state.paused).toBe(true);
      expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: 'billingRefill' });

      const lastMonth = new Date(Date.now() - 40 * 24 * 3600 * 1000).toISOString();
      const id = await verifiedAt(lastMonth);
      await deps.db('accounts').where({ id }).update({ credit_balance: 0 });
      await handle.trigger();
      for (let attempt = 0; (await refills(id)).length === 0 && attempt < 100; attempt++)
        await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await refills(id)).toHaveLength(1);
      expect(await account(id)).toMatchObject({ credit_balance: '35000' });
    } finally {
      await handle.delete();
    }
  });
});
