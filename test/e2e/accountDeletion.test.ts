import { WorkflowNotFoundError } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { call, mailsTo, PASSWORD, uniqueEmail, waitForVerificationToken } from '../helpers/accounts';
import { createAccount, createProject, type TestAccount } from '../helpers/factories';
import { createObjectLister } from '../helpers/objects';
import { rowsMentioning, seedAccount } from '../helpers/privacy';
import { createTestDeps, type RunningApi, startApi, startTestWorker } from '../helpers/stack';
import { waitForSynthesis } from '../helpers/synthesis';
import { killAllWorkerProcesses, spawnWorkerProcess, waitForWorkerProcessReady } from '../helpers/workerProcess';
import { TRAIN_SENTENCES } from '../../bench/texts';

type Deps = ReturnType<typeof createTestDeps>;
const deletionHandle = (deps: Deps, accountId: string) =>
  deps.temporal.workflow.getHandle(`account-deletion:${accountId}`);

/**
 * Every object the account could have left: its audio and samples, the work
 * files of each of its syntheses, and Studio's block audio, snapshots and
 * each project's cover.
 */
async function objectsLeft(deps: Deps, accountId: string, synthesisIds: string[], projectIds: string[] = []) {
  const objects = createObjectLister(deps.config);
  const prefixes = [
    `syntheses/${accountId}/`,
    `samples/${accountId}/`,
    ...synthesisIds.map((id) => `work/syntheses/${id}/`),
    `blocks/${accountId}/`,
    `snapshots/${accountId}/`,
    ...projectIds.map((id) => `projects/${id}/`),
  ];
  return (await Promise.all(prefixes.map((prefix) => objects.list(prefix)))).flat();
}

/** Ledger rows anonymized by a deletion from `firstId` on (this file's deletions run one at a time). */
const anonymizedSince = (deps: Deps, firstId: string) =>
  deps
    .db('credit_ledger')
    .whereNull('account_id')
    .where('id', '>=', firstId)
    .orderBy('id')
    .select('id', 'kind', 'amount', 'reference');

/** What PostgreSQL still holds of the account: rows that mention its id, email or the texts it wrote. */
const traces = (deps: Deps, account: TestAccount, marker: string) =>
  rowsMentioning(deps.db, [account.id, account.email, marker]);

describe('account deletion', () => {
  // A stalled stream is not cut while the test looks: only the erasure may end its synthesis's workflow.
  const deps = createTestDeps({ SPEECH_STALL_SECONDS: '600' });
  let api: RunningApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  beforeAll(async () => {
    [api, worker] = await Promise.all([startApi(deps), startTestWorker(deps)]);
  });
  afterAll(async () => {
    await Promise.all([api.close(), worker.shutdown()]);
    await deps.close();
  });

  it('asks for the password: missing -> 400 validation_error, wrong -> 403 permission_denied, and nothing happens', async () => {
    const owner = await createAccount(deps);
    for (const family of ['/api/v1', '/api']) {
      const missing = await call(api.url, 'DELETE', `${family}/auth/profile/`, {}, owner.access);
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ code: 'validation_error', errors: { password: expect.any(Array) } });
      const unknownField = await call(
        api.url,
        'DELETE',
        `${family}/auth/profile/`,
        { password: owner.password, now: true },
        owner.access,
      );
      expect(unknownField.body).toMatchObject({ code: 'validation_error', errors: { now: ['Unknown field.'] } });
      const wrong = await call(
        api.url,
        'DELETE',
        `${family}/auth/profile/`,
        { password: 'not the password' },
        owner.access,
      );
      expect(wrong.status).toBe(403);
      expect(wrong.body).toMatchObject({ code: 'permission_denied', errors: { password: expect.any(Array) } });
    }
    expect((await call(api.url, 'DELETE', '/api/v1/auth/profile/', { password: owner.password })).status).toBe(401);
    expect((await call(api.url, 'GET', '/api/v1/auth/profile/', undefined, owner.access)).status).toBe(200);
    await expect(deletionHandle(deps, owner.id).describe()).rejects.toThrow();
  });

  it('erases everything of the account but the anonymized ledger and the consent records; the email registers again', async () => {
    const owner = await createAccount(deps);
    const marker = `marker-${randomUUID()}`;
    const seeded = await seedAccount(api.url, owner, { marker });
    const login = await call(api.url, 'POST', '/api/v1/auth/login/', { email: owner.email, password: owner.password });
    expect(login.status).toBe(200);
    const before = await deps
      .db('credit_ledger')
      .where({ account_id: owner.id })
      .orderBy('id')
      .select('id', 'kind', 'amount', 'created_at');
    expect(before.map((row) => row.kind)).toEqual(['reserve', 'capture', 'reserve']); // the finished synthesis, then the running one
    expect((await deps.db('syntheses').where({ id: seeded.runningId }).first('status')).status).toMatch(
      /queued|processing/,
    );
    expect(await objectsLeft(deps, owner.id, [])).not.toEqual([]);
    // Studio's objects, as a conversion and an import leave them.
    const projectId = await createProject(deps, owner, `book-${marker}`);
    for (const key of [
      `blocks/${owner.id}/hash.wav`,
      `snapshots/${owner.id}/s/book.m4b`,
      `projects/${projectId}/cover`,
    ])
      await deps.storage.put(key, Buffer.from(marker), 'application/octet-stream');

    const accepted = await call(api.url, 'DELETE', '/api/v1/auth/profile/', { password: owner.password }, owner.access);
    expect(accepted.status).toBe(202);
    // From that moment on, nothing authenticates as the account.
    expect((await call(api.url, 'GET', '/api/v1/auth/profile/', undefined, owner.access)).body.code).toBe(
      'token_invalid',
    );
    expect((await call(api.url, 'GET', '/api/v1/auth/profile/', undefined, seeded.apiKey)).body.code).toBe(
      'authentication_failed',
    );
    expect((await call(api.url, 'POST', '/api/v1/auth/refresh/', { refresh: login.body.refresh })).status).toBe(401);
    expect(
      (await call(api.url, 'POST', '/api/v1/auth/login/', { email: owner.email, password: owner.password })).status,
    ).toBe(401);

    const result = await deletionHandle(deps, owner.id).result();
    expect(result).toMatchObject({
      canceledJobs: expect.any(Number),
      anonymizedLedgerRows: expect.any(Number),
      keptConsentRecords: 1,
      deletedHistories: expect.any(Number),
    });
    // Temporal no longer holds the account's texts: its syntheses' and their captures' histories are gone.
    expect(result.deletedHistories).toBeGreaterThanOrEqual(3);
    // Temporal deletes asynchronously (its dev server within about 35 s).
    const gone = async (workflowId: string) => {
      try {
        await deps.temporal.workflow.getHandle(workflowId).describe();
        return false;
      } catch (error) {
        return error instanceof WorkflowNotFoundError;
      }
    };
    const texts = [
      `synthesis:${seeded.finishedId}`,
      `credits:capture:${seeded.finishedId}`,
      `synthesis:${seeded.runningId}`,
      `voice-cloning:${seeded.voiceId}`,
    ];
    for (let waited = 0; !(await Promise.all(texts.map(gone))).every(Boolean); waited += 1) {
      if (waited > 120) throw new Error(`still in Temporal: ${texts.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    // The running synthesis was canceled, so its reservation was released before the ledger was anonymized.
    const after = await deps
      .db('credit_ledger')
      .whereIn(
        'id',
        before.map((row) => row.id),
      )
      .orderBy('id')
      .select('id', 'kind', 'amount', 'account_id', 'reference', 'created_at');
    expect(after.map(({ id, kind, amount, created_at }) => ({ id, kind, amount, created_at }))).toEqual(before);
    expect(after.every((row) => row.account_id === null && row.reference === `erased:${row.id}`)).toBe(true);
    // Each reservation was settled exactly once: the finished one captured, the canceled one released.
    const kinds = (await anonymizedSince(deps, before[0].id)).map((row) => row.kind).sort();
    expect(kinds).toEqual(['capture', 'release', 'reserve', 'reserve']);

    // Only the consent record still names the account, and it holds no email or name.
    expect(await traces(deps, owner, marker)).toEqual({ consent_records: 1 });
    const consent = await deps.db('consent_records').where({ account_id: owner.id }).first();
    expect(consent).toMatchObject({ voice_id: seeded.voiceId, revoked_at: null });
    expect(await deps.db('accounts').where({ id: owner.id }).first()).toBeUndefined();
    expect(await objectsLeft(deps, owner.id, [seeded.finishedId, seeded.runningId], [projectId])).toEqual([]);

    const again = await call(api.url, 'POST', '/api/v1/auth/register/', {
      email: owner.email,
      password: owner.password,
    });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(owner.id);
  }, 240_000);

  it('ends and erases a streamed synthesis still held by its reader (completed, its workflow keeping the chunks for a client that stopped reading)', async () => {
    const owner = await createAccount(deps, { credits: 50_000 });
    // Minutes of raw audio, far more than the socket buffers hold: the API's reader waits on the client.
    const input = TRAIN_SENTENCES.join(' ').repeat(8).slice(0, 4000);
    const abort = new AbortController();
    const response = await fetch(`${api.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${owner.access}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', voice: 'en-us-espeak-m', input, response_format: 'pcm' }),
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    const id = response.headers.get('x-synthesis-id')!;
    // The first bytes, then nothing more.
    await response.body!.getReader().read();
    try {
      const done = await waitForSynthesis(api.url, `/api/v1/tts/history/${id}/status/`, owner.access);
      expect(done.status).toBe('completed');
      const synthesis = deps.temporal.workflow.getHandle(`synthesis:${id}`);
      // Held: completed, and its workflow still running for the reader.
      expect((await synthesis.describe()).status.name).toBe('RUNNING');

      expect(
        (await call(api.url, 'DELETE', '/api/v1/auth/profile/', { password: owner.password }, owner.access)).status,
      ).toBe(202);
      const result = await deletionHandle(deps, owner.id).result();
      expect(result.canceledJobs).toBeGreaterThanOrEqual(1);
      // Ended by the erasure, then deleted (Temporal deletes asynchronously: its dev server within about 35 s).
      for (let waited = 0; ; waited += 1) {
        try {
          await synthesis.describe();
        } catch (error) {
          if (error instanceof WorkflowNotFoundError) break;
          throw error;
        }
        if (waited > 90) throw new Error(`synthesis:${id} still in Temporal`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      expect(await objectsLeft(deps, owner.id, [id])).toEqual([]);
      expect(await deps.db('syntheses').where({ id }).first()).toBeUndefined();
    } finally {
      abort.abort();
    }
  }, 240_000);

  it('verifies an erased account’s address again without granting the free credits a second time', async () => {
    const email = uniqueEmail('again');
    const register = async () => {
      const registered = await call(api.url, 'POST', '/api/v1/auth/register/', {
        email: email.toUpperCase(),
        password: PASSWORD,
      });
      expect(registered.status).toBe(201);
      const count = (await mailsTo(deps.config.MAIL_DIR, email)).length + 1;
      const token = await waitForVerificationToken(deps.config.MAIL_DIR, email, count, 60_000);
      expect((await call(api.url, 'GET', `/api/v1/auth/verify-email/?token=${token}`)).status).toBe(200);
      const login = await call(api.url, 'POST', '/api/v1/auth/login/', { email, password: PASSWORD });
      return { id: registered.body.id as string, access: login.body.access as string };
    };
    const first = await register();
    const profile = await call(api.url, 'GET', '/api/v1/auth/profile/', undefined, first.access);
    expect(profile.body.credit_balance).toBe(35_000);
    expect((await call(api.url, 'DELETE', '/api/v1/auth/profile/', { password: PASSWORD }, first.access)).status).toBe(
      202,
    );
    await deletionHandle(deps, first.id).result();
    // Kept: a keyed hash, never the address.
    expect(JSON.stringify(await deps.db('erased_signup_grants').select('*'))).not.toContain(email);

    const second = await register();
    expect(second.id).not.toBe(first.id);
    const again = await call(api.url, 'GET', '/api/v1/auth/profile/', undefined, second.access);
    expect(again.body).toMatchObject({ email_verified: true, credit_balance: 0 });
    expect(await deps.db('credit_ledger').where({ account_id: second.id })).toEqual([]);
  }, 240_000);

  it('answers the unversioned family the same way for a registered account (its signup workflow ended), and a repeat finds nothing to do', async () => {
    const email = uniqueEmail('erase');
    const registered = await call(api.url, 'POST', '/api/auth/register/', { email, password: PASSWORD, name: 'Grace' });
    expect(registered.status).toBe(201);
    expect(
      (
        await call(api.url, 'POST', '/api/auth/verify-email/', {
          token: await waitForVerificationToken(deps.config.MAIL_DIR, email),
        })
      ).status,
    ).toBe(200);
    const login = await call(api.url, 'POST', '/api/auth/login/', { email, password: PASSWORD });
    const owner: TestAccount = { id: registered.body.id, email, password: PASSWORD, access: login.body.access };
    const grant = await deps.db('credit_ledger').where({ account_id: owner.id }).first('id', 'kind', 'amount');
    expect(grant).toMatchObject({ kind: 'grant', amount: '35000' });
    expect(
      (await call(api.url, 'DELETE', '/api/auth/profile', { password: owner.password }, owner.access)).status,
    ).toBe(202);
    await deletionHandle(deps, owner.id).result();
    expect(await traces(deps, owner, 'Grace')).toEqual({});
    // The signup grant survives only as an anonymized ledger row.
    expect(await deps.db('credit_ledger').where({ id: grant.id }).first()).toMatchObject({
      account_id: null,
      reference: `erased:${grant.id}`,
      kind: 'grant',
      amount: '35000',
    });
    const rerun = await deps.temporal.workflow.execute('accountDeletion', {
      workflowId: `account-deletion-rerun:${owner.id}`,
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [{ accountId: owner.id }],
    });
    // Temporal deletes histories asynchronously: a rerun right after may ask again for the signup's.
    expect(rerun).toEqual({
      canceledJobs: 0,
      removedObjects: 0,
      anonymizedLedgerRows: 0,
      keptConsentRecords: 0,
      deletedHistories: expect.any(Number),
    });
  }, 60_000);
});

/** The worker processes' metrics endpoint off: its fixed default port may be taken by any other worker on the machine. */
const WORKER_ENV = { WORKER_METRICS_PORT: '0' };

describe('account deletion across a worker restart', () => {
  // No worker in this process: a separate worker process, killed mid-way, then another.
  const deps = createTestDeps();
  let api: RunningApi;
  beforeAll(async () => {
    api = await startApi(deps);
  });
  afterAll(async () => {
    await killAllWorkerProcesses();
    await api.close();
    await deps.close();
  });

  it('finishes after the worker running it is killed and a new one starts', async () => {
    const owner = await createAccount(deps);
    const marker = `marker-${randomUUID()}`;
    const started = Date.now();
    const first = spawnWorkerProcess(deps.config.TEMPORAL_TASK_QUEUE, WORKER_ENV);
    await waitForWorkerProcessReady(deps.temporal, deps.config, first, started);
    const seeded = await seedAccount(api.url, owner, { marker });
    const firstLedgerId = (
      await deps.db('credit_ledger').where({ account_id: owner.id }).min<{ min: string }[]>({ min: 'id' })
    )[0].min;
    expect(
      (await call(api.url, 'DELETE', '/api/v1/auth/profile/', { password: owner.password }, owner.access)).status,
    ).toBe(202);
    const handle = deletionHandle(deps, owner.id);
    // Killed once the workflow has started working (an activity scheduled or running).
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      const { raw } = await handle.describe();
      if ((raw.pendingActivities ?? []).length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await first.kill();
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(await deps.db('accounts').where({ id: owner.id }).first('id')).toBeDefined();

    const second = spawnWorkerProcess(deps.config.TEMPORAL_TASK_QUEUE, WORKER_ENV);
    try {
      await handle.result();
    } finally {
      await second.kill();
    }
    expect(await traces(deps, owner, marker)).toEqual({ consent_records: 1 });
    expect(await objectsLeft(deps, owner.id, [seeded.finishedId, seeded.runningId])).toEqual([]);
    // Nothing was left reserved or settled twice: each of the two reservations settled once (the running one
    // captured if it finished before the cancel landed, else released).
    const kinds = (await anonymizedSince(deps, firstLedgerId)).map((row) => row.kind);
    expect(kinds.filter((kind) => kind === 'reserve')).toHaveLength(2);
    expect(kinds.filter((kind) => kind === 'capture' || kind === 'release')).toHaveLength(2);
  }, 300_000);
});
