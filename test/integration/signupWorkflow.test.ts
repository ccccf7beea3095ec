import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import { INVALID_TOKEN, resendSignal, signupWorkflowId, verifyUpdate } from '../../synthesis/contracts';
import type { signupVerification } from '../../workflows/signupVerification';
import { eventually } from '../helpers/eventually';
import { durationMs, gate, historyOf, useWorkflowWorker } from '../helpers/workflowWorker';

/**
 * The signupVerification workflow's own logic (TTL, resend, verify, the race
 * of a verify with the timer) with mocked activities on the real Temporal
 * server: the TTL is an input, so expiry takes a fraction of a second. What
 * the activities do (tokens, the grant, mail) is tested with the whole stack
 * in signupVerification.test.ts.
 */

const wf = useWorkflowWorker(['sendVerificationEmail', 'verifyAccount']);

/** Expiry without a verify: a fraction of a second. */
const SHORT_TTL = 0.25;
/** Room for a verify to reach the worker before the timer fires, on a busy machine. */
const RACE_TTL = 1;
const LONG_TTL = 600;

async function start(ttlSeconds: number) {
  const accountId = randomUUID();
  const handle = await wf.client.workflow.start<typeof signupVerification>('signupVerification', {
    taskQueue: wf.taskQueue,
    workflowId: signupWorkflowId(accountId),
    args: [{ accountId, ttlSeconds }],
  });
  const mails = () =>
    wf.callsOf('sendVerificationEmail').filter(([input]) => (input as { accountId: string }).accountId === accountId)
      .length;
  return { handle, accountId, mails };
}

/** What a rejected verify update carries: the failure type the API maps to 400 on token. */
async function rejectionType(update: Promise<unknown>): Promise<string | undefined> {
  const error = await update.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  const cause = (error as WorkflowUpdateFailedError).cause;
  return cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
}

beforeEach(() => {
  wf.mock({
    sendVerificationEmail: async () => ({ tokenId: randomUUID(), delivery: 'mocked' }),
    verifyAccount: async () => ({ granted: 100 }),
  });
});

describe('signupVerification workflow (mocked activities)', () => {
  it('expires after its TTL when nobody verifies: one mail, no verification, a fired timer of the TTL', async () => {
    const { handle, accountId, mails } = await start(SHORT_TTL);
    expect(await handle.result()).toBe('expired');
    expect(mails()).toBe(1);
    expect(
      wf.callsOf('verifyAccount').filter(([input]) => (input as { accountId: string }).accountId === accountId),
    ).toEqual([]);
    const events = await historyOf(handle);
    const timers = events.flatMap((event) => event.timerStartedEventAttributes ?? []);
    expect(timers.map((timer) => durationMs(timer.startToFireTimeout))).toEqual([SHORT_TTL * 1000]);
    expect(events.some((event) => event.timerFiredEventAttributes)).toBe(true);
  });

  it('verifies through the update before the TTL, passing the token id to verifyAccount, and ends verified', async () => {
    const { handle, accountId } = await start(LONG_TTL);
    const tokenId = randomUUID();
    expect(await handle.executeUpdate(verifyUpdate, { args: [{ tokenId }] })).toEqual({ verified: true });
    expect(await handle.result()).toBe('verified');
    expect(wf.callsOf('verifyAccount').filter(([input]) => (input as { tokenId: string }).tokenId === tokenId)).toEqual(
      [[{ accountId, tokenId }]],
    );
  });

  it('rejects a verify whose activity fails as InvalidVerificationToken and keeps waiting: a later verify still succeeds', async () => {
    const { handle } = await start(LONG_TTL);
    wf.mock({
      verifyAccount: async () => {
        throw ApplicationFailure.nonRetryable('token expired', 'TokenRejected');
      },
    });
    expect(await rejectionType(handle.executeUpdate(verifyUpdate, { args: [{ tokenId: 'bad' }] }))).toBe(INVALID_TOKEN);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    wf.mock({ verifyAccount: async () => ({ granted: 100 }) });
    expect(await handle.executeUpdate(verifyUpdate, { args: [{ tokenId: 'good' }] })).toEqual({ verified: true });
    expect(await handle.result()).toBe('verified');
  });

  it('mails again on resend and restarts the TTL from the new mail (the first timer is canceled)', async () => {
    const { handle, mails } = await start(LONG_TTL);
    // A mail is counted when its activity is called; the TTL's timer starts one workflow task after it
    // completes. Each step waits for that timer, or the next one could arrive before the timer exists.
    const timersStarted = async () =>
      (await historyOf(handle)).filter((event) => event.timerStartedEventAttributes).length;
    await eventually('the first mail', () => mails() === 1);
    await eventually('the first TTL timer', async () => (await timersStarted()) === 1);
    await handle.signal(resendSignal);
    await eventually('the second mail', () => mails() === 2);
    await eventually('the second TTL timer', async () => (await timersStarted()) === 2);
    await handle.executeUpdate(verifyUpdate, { args: [{ tokenId: randomUUID() }] });
    expect(await handle.result()).toBe('verified');
    const events = await historyOf(handle);
    expect(events.filter((event) => event.timerStartedEventAttributes)).toHaveLength(2);
    expect(events.filter((event) => event.timerCanceledEventAttributes)).toHaveLength(2);
  });

  it('rejects a second verify while one is under way, without running verifyAccount for it', async () => {
    const { handle, mails } = await start(LONG_TTL);
    const slow = gate();
    let verifications = 0;
    wf.mock({
      verifyAccount: async () => {
        verifications += 1;
        await slow.promise;
        return { granted: 100 };
      },
    });
    await eventually('the first mail', () => mails() === 1);
    const first = handle.executeUpdate(verifyUpdate, { args: [{ tokenId: 'one' }] });
    await eventually('the first verification to start', () => verifications === 1);
    expect(await rejectionType(handle.executeUpdate(verifyUpdate, { args: [{ tokenId: 'two' }] }))).toBe(INVALID_TOKEN);
    slow.open();
    expect(await first).toEqual({ verified: true });
    expect(await handle.result()).toBe('verified');
    expect(verifications).toBe(1);
  });

  describe('a verification under way when the TTL timer fires', () => {
    /** Starts a verify that waits until the timer fired, then lets verifyAccount answer with `outcome`. */
    async function verifyAcrossExpiry(outcome: () => Promise<{ granted: number }>) {
      const { handle, mails } = await start(RACE_TTL);
      const expired = gate();
      let started = false;
      wf.mock({
        verifyAccount: async () => {
          started = true;
          await expired.promise;
          return outcome();
        },
      });
      await eventually('the first mail', () => mails() === 1);
      const update = handle.executeUpdate(verifyUpdate, { args: [{ tokenId: randomUUID() }] });
      update.catch(() => undefined);
      await eventually('verifyAccount to start', () => started);
      await eventually('the TTL timer to fire', async () =>
        (await historyOf(handle)).some((event) => event.timerFiredEventAttributes),
      );
      expired.open();
      return { handle, update };
    }

    it('still decides: a verification that succeeds ends the signup verified', async () => {
      const { handle, update } = await verifyAcrossExpiry(async () => ({ granted: 100 }));
      expect(await update).toEqual({ verified: true });
      expect(await handle.result()).toBe('verified');
    });

    it('still decides: a verification the token refuses (it expired meanwhile) ends the signup expired, the update rejected', async () => {
      const { handle, update } = await verifyAcrossExpiry(async () => {
        throw ApplicationFailure.nonRetryable('token expired', 'TokenRejected');
      });
      expect(await rejectionType(update)).toBe(INVALID_TOKEN);
      expect(await handle.result()).toBe('expired');
    });
  });
});
