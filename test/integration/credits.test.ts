import { randomUUID } from 'node:crypto';
import { createCreditActivities } from '../../activities/credits';
import type { ActivityDeps } from '../../activities';
import type { creditCapture } from '../../workflows/creditCapture';
import { captureWorkflowId, CREDIT_CAPTURE_WORKFLOW_TYPE, type SynthesisRequest } from '../../synthesis/contracts';
import { createAccount, synthesisRequest } from '../helpers/factories';
import { createTestDeps, startTestWorker } from '../helpers/stack';

describe('credit ledger steps', () => {
  const deps = createTestDeps();
  const { reserveSynthesis, captureCredits, releaseCredits } = createCreditActivities(deps as unknown as ActivityDeps);
  afterAll(() => deps.close());

  const balances = async (accountId: string) => {
    const row = await deps.db('accounts').where({ id: accountId }).first('credit_balance', 'credits_reserved');
    return { available: Number(row.credit_balance), reserved: Number(row.credits_reserved) };
  };
  const ledger = (accountId: string) =>
    deps.db('credit_ledger').where({ account_id: accountId }).orderBy('id').select('kind', 'reference', 'amount');
  /** A request of `characters` characters. */
  const request = (accountId: string, characters: number, changes: Partial<SynthesisRequest> = {}) =>
    synthesisRequest(accountId, 'x'.repeat(characters), changes);

  it('reserves, records the synthesis and takes a free slot together; repeating the reservation changes nothing', async () => {
    const { id } = await createAccount(deps, { credits: 1000 });
    const wanted = request(id, 300);
    expect(await reserveSynthesis(wanted)).toEqual({ outcome: 'reserved', started: true, chunkCount: 1, heavy: false });
    expect(await reserveSynthesis(wanted)).toEqual({ outcome: 'reserved', started: true, chunkCount: 1, heavy: false });
    expect(await balances(id)).toEqual({ available: 700, reserved: 300 });
    const rows = await deps
      .db('syntheses')
      .where({ account_id: id })
      .select('id', 'characters', 'status', 'slot_taken_at', 'started_at');
    // The plan's slot is taken; it is `queued` until its render starts on a worker.
    expect(rows).toEqual([
      {
        id: wanted.synthesisId,
        characters: 300,
        status: 'queued',
        slot_taken_at: expect.any(Date),
        started_at: null,
      },
    ]);
  });

  it("reserves but stays queued when the plan's concurrent slots are taken", async () => {
    const { id } = await createAccount(deps, { credits: 10_000 });
    // The free plan runs two at a time.
    const results = [];
    for (const characters of [100, 100, 500]) results.push(await reserveSynthesis(request(id, characters)));
    expect(results).toEqual([
      { outcome: 'reserved', started: true, chunkCount: 1, heavy: false },
      { outcome: 'reserved', started: true, chunkCount: 1, heavy: false },
      { outcome: 'reserved', started: false, chunkCount: 2, heavy: false },
    ]);
    expect((await balances(id)).reserved).toBe(700);
  });

  it('stores every number the request schema accepts without loss', async () => {
    const { id } = await createAccount(deps, { credits: 1000 });
    const wanted = request(id, 2, { pitch: 1e-240, speed: 1.0000000000000002 });
    expect(await reserveSynthesis(wanted)).toMatchObject({ outcome: 'reserved' });
    const row = await deps.db('syntheses').where({ id: wanted.synthesisId }).first('pitch', 'speed');
    expect(row).toEqual({ pitch: 1e-240, speed: 1.0000000000000002 });
  });

  it('unlinks a project deleted between the check and the reservation', async () => {
    const { id } = await createAccount(deps, { credits: 1000 });
    const wanted = request(id, 5, { projectId: randomUUID() });
    expect(await reserveSynthesis(wanted)).toMatchObject({ outcome: 'reserved' });
    expect(await deps.db('syntheses').where({ id: wanted.synthesisId }).first('project_id')).toEqual({
      project_id: null,
    });
  });

  it('capture charges once; a later release or capture changes nothing', async () => {
    const { id } = await createAccount(deps, { credits: 1000 });
    const wanted = request(id, 300);
    await reserveSynthesis(wanted);
    const reference = wanted.synthesisId;
    expect(await captureCredits({ accountId: id, reference })).toEqual({ outcome: 'captured' });
    expect(await captureCredits({ accountId: id, reference })).toEqual({ outcome: 'settled' });
    expect(await releaseCredits({ accountId: id, reference })).toEqual({ outcome: 'settled' });
    expect(await balances(id)).toEqual({ available: 700, reserved: 0 });
    expect((await ledger(id)).map((row) => row.kind)).toEqual(['reserve', 'capture']);
  });

  it('a capture given the audio records the synthesis completed and charged in its own transaction, and says so by NOTIFY', async () => {
    const { id } = await createAccount(deps, { credits: 1000 });
    const wanted = request(id, 120);
    await reserveSynthesis(wanted);
    const reference = wanted.synthesisId;
    const completes = { audioKey: `syntheses/${id}/${reference}.wav`, bytes: 4242, durationSeconds: 1.5 };
    const listener = await deps.db.client.acquireConnection();
    const heard: string[] = [];
    try {
      listener.on(
        'notification',
        (message: { channel: string; payload: string }) =>
          void (message.channel === 'synthesis_progress' && heard.push(message.payload)),
      );
      await listener.query('LISTEN synthesis_progress');
      expect(await captureCredits({ accountId: id, reference, completes })).toEqual({ outcome: 'captured' });
      // A retry after a lost answer: nothing charged twice, the same values recorded.
      expect(await captureCredits({ accountId: id, reference, completes })).toEqual({ outcome: 'settled' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await listener.query('UNLISTEN synthesis_progress');
    } finally {
      listener.removeAllListeners('notification');
      await deps.db.client.releaseConnection(listener);
    }
    expect(heard.filter((payload) => payload === reference)).toHaveLength(2);
    const row = await deps
      .db('syntheses')
      .where({ id: reference })
      .first('status', 'progress', 'audio_key', 'audio_bytes', 'duration_seconds', 'credits_charged', 'completed_at');
    // (bigint comes back as a string.)
    expect(row).toMatchObject({
      status: 'completed',
      progress: 1,
      audio_key: completes.audioKey,
      audio_bytes: '4242',
      duration_seconds: 1.5,
      credits_charged: 120,
    });
    expect(row.completed_at).not.toBeNull();
    expect(await balances(id)).toEqual({ available: 880, reserved: 0 });
  });

  it('a capture whose transaction fails records neither the charge nor the completion', async () => {
    const { id } = await createAccount(deps, { credits: 1000 });
    const wanted = request(id, 50);
    await reserveSynthesis(wanted);
    // A duration the column refuses (not a number) fails the completion's statement after the settle's.
    const completes = { audioKey: 'k', bytes: 1, durationSeconds: 'soon' as unknown as number };
    await expect(captureCredits({ accountId: id, reference: wanted.synthesisId, completes })).rejects.toThrow();
    expect(await balances(id)).toEqual({ available: 950, reserved: 50 });
    // As the reservation left it (no render ran here).
    expect(await deps.db('syntheses').where({ id: wanted.synthesisId }).first('status')).toEqual({
      status: 'queued',
    });
  });

  it('release returns the credits once; a release without a reservation does nothing', async () => {
    const { id } = await createAccount(deps, { credits: 500 });
    const wanted = request(id, 200);
    await reserveSynthesis(wanted);
    expect(await releaseCredits({ accountId: id, reference: wanted.synthesisId })).toEqual({ outcome: 'released' });
    expect(await releaseCredits({ accountId: id, reference: wanted.synthesisId })).toEqual({ outcome: 'settled' });
    expect(await captureCredits({ accountId: id, reference: wanted.synthesisId })).toEqual({ outcome: 'settled' });
    expect(await releaseCredits({ accountId: id, reference: randomUUID() })).toEqual({ outcome: 'unreserved' });
    expect(await balances(id)).toEqual({ available: 500, reserved: 0 });
  });

  it('refuses a reservation the balance does not cover, and records nothing', async () => {
    const { id } = await createAccount(deps, { credits: 99 });
    expect(await reserveSynthesis(request(id, 100))).toEqual({ outcome: 'insufficient' });
    expect(await balances(id)).toEqual({ available: 99, reserved: 0 });
    expect(await ledger(id)).toEqual([]);
    expect(await deps.db('syntheses').where({ account_id: id })).toEqual([]);
  });

  it('never overdraws under concurrent reservations', async () => {
    const { id } = await createAccount(deps, { credits: 1000 });
    const results = await Promise.all(Array.from({ length: 25 }, () => reserveSynthesis(request(id, 150))));
    const reserved = results.filter((result) => result.outcome === 'reserved').length;
    expect(reserved).toBe(6); // 6 × 150 = 900 ≤ 1000 < 7 × 150
    expect(await balances(id)).toEqual({ available: 100, reserved: 900 });
  });

  it('captures as the creditDeduction workflow with a readable id, once per id', async () => {
    const worker = await startTestWorker(deps);
    try {
      const { id } = await createAccount(deps, { credits: 1000 });
      const wanted = request(id, 10);
      await reserveSynthesis(wanted);
      const reference = wanted.synthesisId;
      const run = () =>
        deps.temporal.workflow.execute<typeof creditCapture>(CREDIT_CAPTURE_WORKFLOW_TYPE, {
          workflowId: captureWorkflowId(reference),
          taskQueue: worker.taskQueue,
          args: [{ accountId: id, reference }],
        });
      expect(await run()).toEqual({ outcome: 'captured' });
      expect((await deps.temporal.workflow.getHandle(`credits:capture:${reference}`).describe()).status.name).toBe(
        'COMPLETED',
      );
      // Running the same step again (a new run of the same id) applies nothing.
      expect(await run()).toEqual({ outcome: 'settled' });
      expect(await balances(id)).toEqual({ available: 990, reserved: 0 });
    } finally {
      await worker.shutdown();
    }
  });
});
