import type { WorkflowHandle } from '@temporalio/client';
import type { Knex } from 'knex';
import { sha256 } from '../../lib/secrets';
import { mailsTo, PASSWORD, uniqueEmail, waitForVerificationToken } from '../helpers/accounts';
import { call } from '../helpers/http';
import { until } from '../helpers/eventually';
import { type RunningApi, startTestWorker, type TestDeps, useStack } from '../helpers/stack';
import { killAllWorkerProcesses, spawnWorkerProcess, type WorkerProcess } from '../helpers/workerProcess';

/**
 * The signup-verification workflow against the real Temporal dev server,
 * PostgreSQL and the API over HTTP: secrets stay out of Temporal, tokens die
 * on expiry and resend, a killed worker loses nothing, and the free credits
 * are granted exactly once.
 */

jest.setTimeout(120_000);

type Deps = TestDeps;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A deep copy in which every binary field (payload `data` in a decoded
 * history is bytes) appears as UTF-8 text and base64, and every string field
 * named `data` (history as JSON carries payloads in base64) also appears
 * decoded: secrets hidden in payloads become searchable.
 */
function readable(value: unknown, key = ''): unknown {
  if (value instanceof Uint8Array) {
    const bytes = Buffer.from(value);
    return { utf8: bytes.toString('utf8'), base64: bytes.toString('base64') };
  }
  if (typeof value === 'string' && key === 'data')
    return { raw: value, decoded: Buffer.from(value, 'base64').toString('utf8') };
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Map) return [...value.entries()].map(([k, v]) => [readable(k), readable(v, String(k))]);
  if (Array.isArray(value)) return value.map((item) => readable(item));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, readable(v, k)]));
  }
  return value;
}
const searchable = (value: unknown) => JSON.stringify(readable(value));

const signupHandle = (deps: Deps, accountId: string): WorkflowHandle =>
  deps.temporal.workflow.getHandle(`signup:${accountId}`);

/** The events of the current run; lets a test wait until the worker has nothing left to do. */
async function historyEvents(deps: Deps, accountId: string) {
  return (await signupHandle(deps, accountId).fetchHistory()).events ?? [];
}

/** Resolves once the first mail's activity completed and the worker finished the workflow task after it. */
async function waitUntilWorkflowIdle(deps: Deps, accountId: string): Promise<void> {
  await until(
    'the workflow to block on verify or the TTL',
    async () => {
      const events = await historyEvents(deps, accountId);
      const lastIndex = (found: (event: (typeof events)[number]) => unknown) => {
        for (let index = events.length - 1; index >= 0; index--) if (found(events[index])) return index;
        return -1;
      };
      const mailed = lastIndex((event) => event.activityTaskCompletedEventAttributes);
      // After the mail: the TTL timer started, and no workflow task is scheduled but not yet completed.
      return (
        mailed >= 0 &&
        lastIndex((event) => event.timerStartedEventAttributes) > mailed &&
        lastIndex((event) => event.workflowTaskCompletedEventAttributes) >
          lastIndex((event) => event.workflowTaskScheduledEventAttributes)
      );
    },
    30_000,
  );
}

/** How many activities of `type` the current run has started and not finished. */
async function pendingActivities(deps: Deps, accountId: string, type: string): Promise<number> {
  const description = await signupHandle(deps, accountId).describe();
  return (description.raw.pendingActivities ?? []).filter((activity) => activity.activityType?.name === type).length;
}

const ledgerRows = (deps: Deps, accountId: string) =>
  deps.db('credit_ledger').where({ account_id: accountId }).orderBy('id');

/** A client of the API, speaking the versioned family. */
function client(api: () => RunningApi) {
  const req = (method: string, path: string, body?: unknown, token?: string) =>
    call(api().url, method, `/api/v1${path}`, body, token);
  return {
    req,
    register: async (email: string) => {
      const response = await req('POST', '/auth/register/', { email, password: PASSWORD, name: 'Signup Test' });
      expect(response.status).toBe(201);
      return response.body.id as string;
    },
    verify: (token: string) => req('POST', '/auth/verify-email/', { token }),
    resend: (email: string) => req('POST', '/auth/resend-verification/', { email }),
    login: (email: string) => req('POST', '/auth/login/', { email, password: PASSWORD }),
    /** Logs in and reads the profile (the account must be verified). */
    profile: async (email: string) => {
      const login = await req('POST', '/auth/login/', { email, password: PASSWORD });
      expect(login.status).toBe(200);
      const profile = await req('GET', '/auth/profile/', undefined, login.body.access);
      expect(profile.status).toBe(200);
      return profile.body;
    },
  };
}

function expectInvalidToken(response: { status: number; body: any }) {
  expect({ status: response.status, code: response.body?.code }).toEqual({ status: 400, code: 'validation_error' });
  expect(response.body.errors).toHaveProperty('token');
}

async function expectCreditedOnce(deps: Deps, api: ReturnType<typeof client>, email: string, accountId: string) {
  const profile = await api.profile(email);
  expect(profile).toMatchObject({ id: accountId, email_verified: true, credit_balance: 35000, credits_reserved: 0 });
  const rows = await ledgerRows(deps, accountId);
  expect(rows.map((row) => ({ kind: row.kind, amount: Number(row.amount) }))).toEqual([
    { kind: 'grant', amount: 35000 },
  ]);
}

describe('signupVerification with the default TTL (API and worker in this process)', () => {
  const { deps, api } = useStack({ worker: true });
  const http = client(() => api);

  it('keeps the password, the verification token, the JWTs and the API key out of workflow history, memo and search attributes', async () => {
    const email = uniqueEmail('secrets');
    const accountId = await http.register(email);
    const token = await waitForVerificationToken(deps.config.MAIL_DIR, email);

    expect((await http.verify(token)).status).toBe(200);
    const login = await http.login(email);
    expect(login.status).toBe(200);
    const key = await http.req('POST', '/auth/api-keys/', { name: 'history-check' }, login.body.access);
    expect(key.status).toBe(201);
    // Each secret in use, so nothing below passes because one of them is empty.
    const secrets = {
      password: PASSWORD,
      token,
      access: login.body.access,
      refresh: login.body.refresh,
      apiKey: key.body.key,
    };
    for (const secret of Object.values(secrets)) expect(secret.length).toBeGreaterThanOrEqual(20);

    const handle = signupHandle(deps, accountId);
    expect(await handle.result()).toBe('verified');
    const history = searchable(await handle.fetchHistory());
    // The decoding works: the input and the token row id (never the token) are readable in the payloads.
    const [tokenRow] = await deps.db('email_verification_tokens').where({ account_id: accountId });
    expect(history).toContain('"ttlSeconds');
    expect(history).toContain(tokenRow.id);
    for (const [name, secret] of Object.entries(secrets)) {
      expect({ name, inHistory: history.includes(secret) }).toEqual({ name, inHistory: false });
    }

    const description = await handle.describe();
    // Readable in the Temporal UI: the workflow id names the account.
    expect(description.workflowId).toBe(`signup:${accountId}`);
    expect(description.type).toBe('signupVerification');
    expect(description.status.name).toBe('COMPLETED');
    const visible = searchable({
      memo: description.memo,
      searchAttributes: description.searchAttributes,
      typed: description.typedSearchAttributes,
      raw: description.raw,
    });
    expect(visible).toContain(accountId);
    for (const [name, secret] of Object.entries(secrets)) {
      expect({ name, inDescription: visible.includes(secret) }).toEqual({ name, inDescription: false });
    }
  });

  it('makes the first token invalid when a resend mails a new one, and the new token verifies', async () => {
    const email = uniqueEmail('resend');
    const accountId = await http.register(email);
    const first = await waitForVerificationToken(deps.config.MAIL_DIR, email);
    const { runId } = await signupHandle(deps, accountId).describe();

    const resent = await http.resend(email);
    expect(resent.status).toBe(202);
    const second = await waitForVerificationToken(deps.config.MAIL_DIR, email, 2);
    expect(second).not.toBe(first);
    // The resend signalled the running workflow; no new run.
    const running = await signupHandle(deps, accountId).describe();
    expect({ runId: running.runId, status: running.status.name }).toEqual({ runId, status: 'RUNNING' });

    expectInvalidToken(await http.verify(first));
    expect((await http.login(email)).body.code).toBe('email_not_verified');

    const verified = await http.verify(second);
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ email_verified: true });
    expect(await signupHandle(deps, accountId).result()).toBe('verified');
    await expectCreditedOnce(deps, http, email, accountId);
    expect(await mailsTo(deps.config.MAIL_DIR, email)).toHaveLength(2);
  });

  /**
   * Five verifies of one token at once. The token row is locked while they are
   * admitted, as a busy database would, so every run races the same way.
   */
  async function raceFiveVerifies() {
    const email = uniqueEmail('concurrent');
    const accountId = await http.register(email);
    const token = await waitForVerificationToken(deps.config.MAIL_DIR, email);
    await waitUntilWorkflowIdle(deps, accountId);

    const lock: Knex.Transaction = await deps.db.transaction();
    let answered = 0;
    try {
      await lock('email_verification_tokens')
        .where({ token_hash: sha256(token) })
        .forUpdate()
        .first();
      const requests = Array.from({ length: 5 }, () => http.verify(token).finally(() => answered++));
      // Every request has either answered or reached the workflow (its verifyAccount waits on the lock).
      await until(
        'five verifies to be answered or under way',
        async () => answered + (await pendingActivities(deps, accountId, 'verifyAccount')) >= 5,
        20_000,
      ).catch(() => undefined);
      await lock.rollback();
      return { email, accountId, responses: await Promise.all(requests) };
    } finally {
      if (!lock.isCompleted()) await lock.rollback();
    }
  }

  it('verifies the account and grants the free credits once when five verifies of one token race', async () => {
    const { email, accountId, responses } = await raceFiveVerifies();
    await expectCreditedOnce(deps, http, email, accountId);
    expect(responses.some((response) => response.status === 200)).toBe(true);
    for (const response of responses) expect([200, 400]).toContain(response.status);
    expect(await signupHandle(deps, accountId).result()).toBe('verified');
  });

  // The update's validator admits one verification at a time; the rest are told the token is spent.
  it('answers 200 to exactly one of five concurrent verifies of one token and 400 on token to the others', async () => {
    const { responses } = await raceFiveVerifies();
    expect(responses.map((response) => response.status).sort()).toEqual([200, 400, 400, 400, 400]);
    for (const response of responses.filter((r) => r.status === 400)) expectInvalidToken(response);
  });

  it('answers the same token used again after a successful verify with 400', async () => {
    const email = uniqueEmail('reuse');
    const accountId = await http.register(email);
    const token = await waitForVerificationToken(deps.config.MAIL_DIR, email);
    expect((await http.verify(token)).status).toBe(200);
    expectInvalidToken(await http.verify(token));
    await expectCreditedOnce(deps, http, email, accountId);
  });
});

describe('signupVerification with VERIFICATION_TTL=2', () => {
  const { deps, api } = useStack({ worker: true, env: { VERIFICATION_TTL: '2' } });
  const http = client(() => api);

  it('expires an unverified signup, keeps the account unverified, and a resend starts a new run whose token verifies', async () => {
    const email = uniqueEmail('expiry');
    const accountId = await http.register(email);
    const expiredToken = await waitForVerificationToken(deps.config.MAIL_DIR, email);
    const handle = signupHandle(deps, accountId);
    const firstRun = (await handle.describe()).runId;

    expect(await handle.result()).toBe('expired');
    expect((await handle.describe()).status.name).toBe('COMPLETED');

    expectInvalidToken(await http.verify(expiredToken));
    const login = await http.login(email);
    expect({ status: login.status, code: login.body.code }).toEqual({ status: 403, code: 'email_not_verified' });
    expect(await ledgerRows(deps, accountId)).toHaveLength(0);

    expect((await http.resend(email)).status).toBe(202);
    const newToken = await waitForVerificationToken(deps.config.MAIL_DIR, email, 2);
    expect(newToken).not.toBe(expiredToken);
    const secondRun = await handle.describe();
    expect(secondRun.runId).not.toBe(firstRun);
    expect(secondRun.workflowId).toBe(`signup:${accountId}`);

    // The new token lives VERIFICATION_TTL (2 s) too: verify at once.
    const verified = await http.verify(newToken);
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ email_verified: true });
    expect(await signupHandle(deps, accountId).result()).toBe('verified');
    await expectCreditedOnce(deps, http, email, accountId);
  });

  /**
   * A verify whose token expires while it waits: the token row is locked until
   * after expires_at, so verifyAccount (already started) finds it expired. The
   * workflow's side of this race (a verify under way when the timer fires
   * still decides) is tested without the stack in signupWorkflow.test.ts; here,
   * what the activity and the API make of it.
   */
  it('answers 400 validation_error on token (not 500), grants nothing and leaves the account unverified when the token expires while its verification waits for the database', async () => {
    const email = uniqueEmail('expiring');
    const accountId = await http.register(email);
    const token = await waitForVerificationToken(deps.config.MAIL_DIR, email);
    const lock: Knex.Transaction = await deps.db.transaction();
    let response: Awaited<ReturnType<typeof http.verify>>;
    try {
      const row = await lock('email_verification_tokens')
        .where({ token_hash: sha256(token) })
        .forUpdate()
        .first();
      const request = http.verify(token);
      await until(
        'verifyAccount to wait on the token row',
        async () => (await pendingActivities(deps, accountId, 'verifyAccount')) > 0,
        10_000,
      );
      await until('the token to expire', async () => Date.now() > new Date(row.expires_at).getTime() + 200, 10_000);
      await lock.rollback();
      response = await request;
    } finally {
      if (!lock.isCompleted()) await lock.rollback();
    }
    // The activity's rejection reaches the API nested in the update failure; it is still a 400 on token.
    expectInvalidToken(response);
    expect(await signupHandle(deps, accountId).result()).toBe('expired');
    expect(await ledgerRows(deps, accountId)).toHaveLength(0);
    expect((await http.login(email)).body.code).toBe('email_not_verified');
  });
});

describe('signupVerification when the worker process is SIGKILLed between register and verify', () => {
  const { deps, api, onClose } = useStack();
  const http = client(() => api);
  onClose(killAllWorkerProcesses);

  it('verifies and grants once when the verify is sent while no worker runs and a new worker process starts later', async () => {
    const taskQueue = deps.config.TEMPORAL_TASK_QUEUE;
    const timings: Record<string, number> = {};
    const t0 = Date.now();
    let worker: WorkerProcess = spawnWorkerProcess(taskQueue);
    try {
      const email = uniqueEmail('killed');
      const accountId = await http.register(email);
      // The mail proves the worker polled and ran the first activity; bundling at start takes a while.
      const token = await waitForVerificationToken(deps.config.MAIL_DIR, email, 1, 90_000).catch((error) => {
        throw new Error(`${error.message}\nworker output:\n${worker.output()}`);
      });
      timings.firstWorkerMailed = Date.now() - t0;
      await waitUntilWorkflowIdle(deps, accountId);

      await worker.kill();
      timings.killed = Date.now() - t0;

      const verifyStarted = Date.now();
      const verifying = http.verify(token);
      await sleep(3_000);
      worker = spawnWorkerProcess(taskQueue);
      timings.restartedAfterVerifyMs = Date.now() - verifyStarted;
      const verified = await verifying;
      timings.verifyAnsweredAfterMs = Date.now() - verifyStarted;

      expect({ status: verified.status, body: verified.body }).toEqual({ status: 200, body: { email_verified: true } });
      // Answered only once verified and credited: the profile right after shows the grant.
      await expectCreditedOnce(deps, http, email, accountId);
      expectInvalidToken(await http.verify(token));
      expect(await signupHandle(deps, accountId).result()).toBe('verified');
      await expectCreditedOnce(deps, http, email, accountId);
      // One mail: the restarted worker did not send the verification email again.
      expect(await mailsTo(deps.config.MAIL_DIR, email)).toHaveLength(1);
    } finally {
      process.stdout.write(`[kill/restart timings, ms] ${JSON.stringify(timings)}\n`);
      await worker.kill();
    }
  });

  it('applies a verify that timed out while no worker ran once a worker process returns, granting once, and the token is then used', async () => {
    const taskQueue = deps.config.TEMPORAL_TASK_QUEUE;
    let worker: WorkerProcess = spawnWorkerProcess(taskQueue);
    try {
      const email = uniqueEmail('workerless');
      const accountId = await http.register(email);
      const token = await waitForVerificationToken(deps.config.MAIL_DIR, email, 1, 90_000).catch((error) => {
        throw new Error(`${error.message}\nworker output:\n${worker.output()}`);
      });
      await waitUntilWorkflowIdle(deps, accountId);
      await worker.kill();

      // No worker for the whole deadline: the API gives up; the client is told to come back (5xx, not 200 or 400).
      const unanswered = await http.verify(token);
      expect(unanswered.status).toBeGreaterThanOrEqual(500);
      expect(await ledgerRows(deps, accountId)).toHaveLength(0);
      expect((await http.login(email)).body.code).toBe('email_not_verified');

      // The update was admitted by Temporal: a returning worker applies it without another request.
      worker = spawnWorkerProcess(taskQueue);
      expect(await signupHandle(deps, accountId).result()).toBe('verified');
      await expectCreditedOnce(deps, http, email, accountId);
      // That request used the token, so a client retrying it now is told it is used (API.md: used -> 400).
      expectInvalidToken(await http.verify(token));
      await expectCreditedOnce(deps, http, email, accountId);
    } finally {
      await worker.kill();
    }
  });
});

describe('signupVerification when no worker serves the verify within its deadline', () => {
  const { deps, api } = useStack();
  const http = client(() => api);

  // An update no worker takes within the API's deadline is a dependency problem: 503, not a bug.
  it('answers 503 service_unavailable with Retry-After when no worker serves the verify within the deadline', async () => {
    const worker = await startTestWorker(deps);
    let stopped = false;
    try {
      const email = uniqueEmail('deadline');
      const accountId = await http.register(email);
      const token = await waitForVerificationToken(deps.config.MAIL_DIR, email);
      await waitUntilWorkflowIdle(deps, accountId);
      await worker.shutdown();
      stopped = true;

      const response = await http.verify(token);
      expect({ status: response.status, code: response.body?.code }).toEqual({
        status: 503,
        code: 'service_unavailable',
      });
      expect(response.headers.get('retry-after')).toBeTruthy();
    } finally {
      if (!stopped) await worker.shutdown();
    }
  });
});
