import { WithStartWorkflowOperation } from '@temporalio/client';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { audioKey, chunkPrefix } from '../../synthesis/objects';
import { freePorts, type Managed, startMinio } from '../../scripts/stack';
import { reserveUpdate, synthesisWorkflowId, type SynthesisInput } from '../../synthesis/contracts';
import { synthesis } from '../../workflows/synthesis';
import { call } from '../helpers/http';
import { until } from '../helpers/eventually';
import { createAccount, synthesisRequest, type TestAccount } from '../helpers/factories';
import { createTestDeps, type RunningApi, startApi, startTestWorker } from '../helpers/stack';
import { waitForSynthesis } from '../helpers/synthesis';

/**
 * The submit path's promises under faults, each against the real stack: a
 * reservation never outlives its workflow, an Idempotency-Key keeps its
 * synthesis across unknown outcomes, storage outages are waited out (or end
 * as storage_unavailable), deletion survives a storage outage, and nothing
 * the schema accepts fails at insert. This file runs its own MinIO, so it can
 * stop it without touching the other test files.
 */

jest.setTimeout(240_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const VOICE = 'en-us-slt';
const TEXT = 'The quick brown fox jumps over the lazy dog near the quiet river bank.';
/** Several chunks of the slow voice: a synthesis that runs for several seconds. */
const LONG_TEXT = 'A gentle breeze carried the scent of rain across the open fields. '.repeat(20).trim();

describe('durable submit path', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'openvox-durable-'));
  let minio: Managed;
  let minioOptions: Parameters<typeof startMinio>[0];
  let deps: ReturnType<typeof createTestDeps>;
  let api: RunningApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>> | null = null;

  const submit = async (who: TestAccount, body: Record<string, unknown>, key?: string) => {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${who.access}`,
    };
    if (key) headers['Idempotency-Key'] = key;
    const response = await fetch(`${api.url}/api/v1/tts/synthesize/`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };
  const ledger = async (accountId: string) =>
    (
      await deps
        .db('credit_ledger')
        .where({ account_id: accountId })
        .orderBy('id')
        .select('kind', 'reference', 'amount')
    ).map((row) => [row.kind, row.reference, Number(row.amount)]);
  const balances = async (accountId: string) => {
    const row = await deps.db('accounts').where({ id: accountId }).first('credit_balance', 'credits_reserved');
    return { available: Number(row.credit_balance), reserved: Number(row.credits_reserved) };
  };
  const stopWorker = async () => {
    await worker?.shutdown();
    worker = null;
  };
  const ensureWorker = async () => {
    worker ??= await startTestWorker(deps);
  };
  /**
   * The claim of `key` a request that died leaves for `text` (in progress until `lockedUntil`), and the input of
   * the synthesis workflow it would have started.
   */
  const claimOfDeadRequest = async (
    who: TestAccount,
    key: string,
    text: string,
    lockedUntil: Date,
  ): Promise<SynthesisInput> => {
    const request = synthesisRequest(who.id, text, { voiceId: VOICE });
    await deps.db('idempotency_keys').insert({
      account_id: who.id,
      key,
      // The hash of the body as the API computes it (canonical JSON: keys sorted).
      request_hash: createHash('sha256')
        .update(JSON.stringify({ text, voice_id: VOICE }))
        .digest(),
      synthesis_id: request.synthesisId,
      status: 'in_progress',
      locked_until: lockedUntil,
    });
    return { request, cpuTaskQueue: `${deps.config.TEMPORAL_TASK_QUEUE}-cpu` };
  };
  const objectsOf = async (who: TestAccount, id: string) => [
    ...(await deps.storage.list(`syntheses/${who.id}/${id}`)),
    ...(await deps.storage.list(chunkPrefix(id))),
  ];

  beforeAll(async () => {
    const [port, consolePort] = await freePorts(2);
    minioOptions = {
      port,
      consolePort,
      dataDir: path.join(dataDir, 'minio'),
      accessKey: 'durable',
      secretKey: 'durable-secret',
      logDir: path.join(dataDir, 'logs'),
    };
    minio = await startMinio(minioOptions);
    deps = createTestDeps({
      ...minioEnv(minioOptions),
      SUBMIT_TIMEOUT_SECONDS: '5',
      STORAGE_RETRY_SECONDS: '120',
    });
    await deps.storage.ensureBucket();
    api = await startApi(deps);
    await ensureWorker();
  });
  afterAll(async () => {
    await stopWorker();
    await api.close();
    await deps.close();
    await minio.stop();
  });

  it('stores a pitch of 1e-240 exactly and completes (validation and storage agree)', async () => {
    const who = await createAccount(deps);
    const accepted = await submit(who, { text: 'hi', voice_id: VOICE, pitch: 1e-240 });
    expect(accepted.status).toBe(202);
    expect(await deps.db('syntheses').where({ id: accepted.body.id }).first('pitch')).toEqual({ pitch: 1e-240 });
    expect((await waitForSynthesis(api.url, accepted.body.status_url, who.access)).status).toBe('completed');
  });

  it('answers 503 with Retry-After when no worker answers, keeps the key bound to its synthesis, and the retry gets the same 202 with one reservation', async () => {
    const who = await createAccount(deps, { credits: 1_000 });
    await stopWorker();
    const body = { text: TEXT, voice_id: VOICE };
    let first;
    try {
      first = await submit(who, body, 'unknown-outcome');
      expect(first.status).toBe(503);
      expect(first.body.code).toBe('service_unavailable');
      expect(first.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await ensureWorker();
    }
    const bound = await deps
      .db('idempotency_keys')
      .where({ account_id: who.id, key: 'unknown-outcome' })
      .first('synthesis_id', 'status');
    expect(bound).toMatchObject({ status: 'in_progress' });

    const retried = await submit(who, body, 'unknown-outcome');
    expect(retried.status).toBe(202);
    expect(retried.body.id).toBe(bound.synthesis_id);
    expect((await waitForSynthesis(api.url, retried.body.status_url, who.access)).status).toBe('completed');
    const characters = TEXT.length;
    expect(await ledger(who.id)).toEqual([
      ['reserve', bound.synthesis_id, characters],
      ['capture', bound.synthesis_id, characters],
    ]);
    expect(await balances(who.id)).toEqual({ available: 1_000 - characters, reserved: 0 });
  });

  it('a synthesis whose submit timed out runs and settles on its own when nobody retries', async () => {
    const who = await createAccount(deps, { credits: 1_000 });
    await stopWorker();
    try {
      expect((await submit(who, { text: TEXT, voice_id: VOICE })).status).toBe(503);
    } finally {
      await ensureWorker();
    }
    const row: { id: string } = await until(
      'the workflow to record its synthesis',
      () => deps.db('syntheses').where({ account_id: who.id }).first('id'),
      90_000,
    );
    await until(
      'the synthesis to end',
      async () =>
        ['completed', 'failed'].includes((await deps.db('syntheses').where({ id: row.id }).first('status')).status),
      90_000,
    );
    expect((await ledger(who.id)).map(([kind]) => kind)).toEqual(['reserve', 'capture']);
    expect((await balances(who.id)).reserved).toBe(0);
  });

  it('a key whose request died after starting its workflow is taken over within seconds and answers with the same synthesis', async () => {
    const who = await createAccount(deps, { credits: 1_000 });
    const body = { text: TEXT, voice_id: VOICE };
    // The state a crashed API leaves: its claim in progress, and the workflow it had started.
    const input = await claimOfDeadRequest(who, 'crashed-mid-request', TEXT, new Date(Date.now() + 5_000));
    const { synthesisId } = input.request;
    await deps.temporal.workflow.executeUpdateWithStart(reserveUpdate, {
      startWorkflowOperation: new WithStartWorkflowOperation(synthesis, {
        workflowId: synthesisWorkflowId(synthesisId),
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });

    // While the dead request's claim lasts, a repeat is 409; within seconds it is taken over.
    expect((await submit(who, body, 'crashed-mid-request')).status).toBe(409);
    const retried = await until(
      'the claim to be taken over',
      async () => {
        const response = await submit(who, body, 'crashed-mid-request');
        return response.status === 202 ? response : null;
      },
      15_000,
    );
    expect(retried.body.id).toBe(synthesisId);
    expect((await waitForSynthesis(api.url, retried.body.status_url, who.access)).status).toBe('completed');
    expect((await ledger(who.id)).map(([kind, reference]) => [kind, reference])).toEqual([
      ['reserve', synthesisId],
      ['capture', synthesisId],
    ]);
  });

  it('a key whose request died is answered from its synthesis even after the workflow has ended (completed → 202, refused → 402)', async () => {
    const who = await createAccount(deps, { credits: 100 });
    const claimDeadRequest = async (key: string, text: string) => {
      const input = await claimOfDeadRequest(who, key, text, new Date());
      const { synthesisId } = input.request;
      const handle = await deps.temporal.workflow.start(synthesis, {
        workflowId: synthesisWorkflowId(synthesisId),
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        args: [input],
      });
      return { synthesisId, result: await handle.result() };
    };
    const done = await claimDeadRequest('ended-ok', 'Short.');
    expect(done.result).toBe('completed');
    const replayed = await submit(who, { text: 'Short.', voice_id: VOICE }, 'ended-ok');
    expect(replayed.status).toBe(202);
    // The same 202 the first request would have answered (an acceptance is always `queued`); the status says completed.
    expect(replayed.body).toMatchObject({ id: done.synthesisId, status: 'queued' });
    expect((await call(api.url, 'GET', replayed.body.status_url, undefined, who.access)).body.status).toBe('completed');

    const refused = await claimDeadRequest('ended-poor', 'x'.repeat(200));
    expect(refused.result).toBe('insufficient');
    const answer = await submit(who, { text: 'x'.repeat(200), voice_id: VOICE }, 'ended-poor');
    expect(answer.status).toBe(402);
    expect((await ledger(who.id)).map(([kind]) => kind)).toEqual(['reserve', 'capture']);
  });

  it('DELETE racing completion says how the synthesis ended, and the ledger and storage agree', async () => {
    const who = await createAccount(deps);
    const outcomes: string[] = [];
    // Two chunks: a cancel lands between renders early on, and too late near the end.
    const text = `${TEXT} `.repeat(8).trim();
    for (const delayMs of [0, 300, 800, 1_500, 2_500, 4_000, 6_000]) {
      const accepted = await submit(who, { text, voice_id: VOICE, output_format: 'mp3' });
      expect(accepted.status).toBe(202);
      const id = accepted.body.id;
      await sleep(delayMs);
      const deleted = await call(api.url, 'DELETE', `/api/v1/tts/history/${id}/`, undefined, who.access);
      expect(deleted.status).toBe(204);
      const outcome = deleted.headers.get('synthesis-status');
      outcomes.push(`${delayMs} ms: ${outcome}`);
      expect(['canceled', 'completed']).toContain(outcome);
      const kinds = (await ledger(who.id)).filter(([, reference]) => reference === id).map(([kind]) => kind);
      expect(kinds).toEqual(['reserve', outcome === 'canceled' ? 'release' : 'capture']);
      expect((await call(api.url, 'GET', `/api/v1/tts/history/${id}/`, undefined, who.access)).status).toBe(404);
      await until('the audio to be removed', async () => (await objectsOf(who, id)).length === 0, 30_000);
    }
    process.stdout.write(`[delete race] ${outcomes.join(', ')}\n`);
    // Deleted at once, it was canceled: the cancel landed before any audio existed.
    expect(outcomes[0]).toBe('0 ms: canceled');
    expect((await balances(who.id)).reserved).toBe(0);
  });

  it('waits out a storage outage during rendering: the synthesis completes, charged once', async () => {
    const who = await createAccount(deps);
    const accepted = await submit(who, { text: LONG_TEXT, voice_id: VOICE });
    expect(accepted.status).toBe(202);
    await until(
      'rendering to start',
      async () => (await deps.db('syntheses').where({ id: accepted.body.id }).first('status')).status === 'processing',
      90_000,
    );
    await minio.stop();
    await sleep(10_000);
    minio = await startMinio(minioOptions);
    const done = await waitForSynthesis(api.url, accepted.body.status_url, who.access, 180_000);
    expect(done.status).toBe('completed');
    expect((await ledger(who.id)).map(([kind]) => kind)).toEqual(['reserve', 'capture']);
    expect(await deps.storage.size(audioKey(who.id, accepted.body.id, 'wav'))).toBeGreaterThan(1000);
    // The outcome is recorded first, the chunks removed right after (by the same retried step).
    await until(
      'the chunk objects to be removed',
      async () => (await deps.storage.list(chunkPrefix(accepted.body.id))).length === 0,
      30_000,
    );
  });

  it('removes the audio of a synthesis deleted during a storage outage once storage is back', async () => {
    const who = await createAccount(deps);
    const accepted = await submit(who, { text: TEXT, voice_id: VOICE });
    expect((await waitForSynthesis(api.url, accepted.body.status_url, who.access)).status).toBe('completed');
    const key = audioKey(who.id, accepted.body.id, 'wav');
    expect(await deps.storage.size(key)).toBeGreaterThan(0);
    await minio.stop();
    try {
      const deleted = await call(api.url, 'DELETE', `/api/v1/tts/history/${accepted.body.id}/`, undefined, who.access);
      expect(deleted.status).toBe(204);
      expect(deleted.headers.get('synthesis-status')).toBe('completed');
      // Gone from the API at once; a second DELETE finds nothing to delete.
      expect(
        (await call(api.url, 'GET', `/api/v1/tts/history/${accepted.body.id}/`, undefined, who.access)).status,
      ).toBe(404);
      expect(
        (await call(api.url, 'DELETE', `/api/v1/tts/history/${accepted.body.id}/`, undefined, who.access)).status,
      ).toBe(404);
    } finally {
      minio = await startMinio(minioOptions);
    }
    // The removal workflow's activity removes the object, then clears the row's key.
    await until(
      'the removal workflow to remove the audio and clear its key',
      async () =>
        (await deps.storage.size(key)) === null &&
        (await deps.db('syntheses').where({ id: accepted.body.id }).first('audio_key')).audio_key === null,
      120_000,
    );
  });

  it('fails as storage_unavailable, with its credits released, when storage stays down past STORAGE_RETRY_SECONDS', async () => {
    const shortDeps = createTestDeps({ ...minioEnv(minioOptions), STORAGE_RETRY_SECONDS: '3' });
    const shortApi = await startApi(shortDeps);
    const shortWorker = await startTestWorker(shortDeps);
    try {
      const who = await createAccount(shortDeps, { credits: 1_000 });
      await minio.stop();
      let done;
      try {
        const accepted = await call(
          shortApi.url,
          'POST',
          '/api/v1/tts/synthesize/',
          { text: TEXT, voice_id: VOICE },
          who.access,
        );
        expect(accepted.status).toBe(202);
        done = await waitForSynthesis(shortApi.url, accepted.body.status_url, who.access, 120_000);
      } finally {
        minio = await startMinio(minioOptions);
      }
      expect(done).toMatchObject({ status: 'failed', credits_charged: 0, error: { code: 'storage_unavailable' } });
      expect((await ledger(who.id)).map(([kind]) => kind)).toEqual(['reserve', 'release']);
      expect(await balances(who.id)).toEqual({ available: 1_000, reserved: 0 });
    } finally {
      await shortWorker.shutdown();
      await shortApi.close();
      await shortDeps.close();
    }
  });
});

function minioEnv(options: { port: number; accessKey: string; secretKey: string }) {
  return {
    MINIO_ENDPOINT: `http://127.0.0.1:${options.port}`,
    MINIO_ACCESS_KEY: options.accessKey,
    MINIO_SECRET_KEY: options.secretKey,
  };
}
