import { randomUUID } from 'node:crypto';
import { audioKey, chunkKey } from '../../synthesis/objects';
import { call, postSpeech } from '../helpers/http';
import { TRAIN_SENTENCES } from '../../bench/texts';
import { until } from '../helpers/eventually';
import { createAccount, type TestAccount } from '../helpers/factories';
import { createObjectLister } from '../helpers/objects';
import { type RunningApi, type TestDeps, useStack } from '../helpers/stack';
import { fetchAndMeasure, waitForSynthesis } from '../helpers/synthesis';
import { killAllWorkerProcesses, spawnWorkerProcess, type WorkerProcess } from '../helpers/workerProcess';

/**
 * The synthesis workflow under load and faults, against the real Temporal dev
 * server, PostgreSQL, MinIO and speech engines, through the HTTP API: the
 * plan's concurrency limit, cancel/delete at every stage, a SIGKILLed worker,
 * status reads with no worker at all, and a synthesis whose engine fails.
 */

jest.setTimeout(300_000);

type Deps = TestDeps;
type Family = 'v1' | 'unversioned';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const FAMILIES = {
  v1: {
    idKey: 'id',
    synthesize: '/api/v1/tts/synthesize/',
    history: '/api/v1/tts/history/',
    status: (id: string) => `/api/v1/tts/history/${id}/status/`,
    entry: (id: string) => `/api/v1/tts/history/${id}/`,
  },
  unversioned: {
    idKey: 'task_id',
    synthesize: '/api/tts/synthesize/',
    history: '/api/tts/history/',
    status: (id: string) => `/api/tts/status/${id}/`,
    entry: (id: string) => `/api/tts/history/${id}/`,
  },
} as const;

/** The recommended voice (festival HTS): slow enough that a synthesis of a few hundred characters is seen running. */
const VOICE = 'en-us-slt';
/** What createAccount gives a test account by default (written straight to the row, with no ledger grant). */
const INITIAL_CREDITS = 35_000;

const SENTENCES = [
  'The quick brown fox jumps over the lazy dog near the quiet river bank.',
  'A gentle breeze carried the scent of rain across the open fields.',
  'Our train leaves the station at half past seven every weekday morning.',
  'She painted the old wooden fence a bright shade of summer blue.',
  'Bright stars filled the winter sky above the sleeping mountain village.',
  'He read the letter twice before folding it carefully into his pocket.',
  'The market square was busy with traders selling apples and fresh bread.',
  'Children laughed as the kite climbed higher into the afternoon wind.',
  'A small boat drifted slowly past the lighthouse at the edge of the bay.',
  'Every library holds a thousand quiet stories waiting for a reader.',
];

/** Plain English prose of at least `chars` characters (whole sentences), starting at sentence `offset`. */
function prose(chars: number, offset = 0): string {
  const parts: string[] = [];
  for (let index = offset, length = 0; length < chars; index++) {
    const sentence = SENTENCES[index % SENTENCES.length];
    parts.push(sentence);
    length += sentence.length + 1;
  }
  return parts.join(' ');
}

interface Submitted {
  id: string;
  characters: number;
  statusUrl: string;
  family: Family;
}

/** What the tests do with the stack: HTTP calls, and direct reads of PostgreSQL, Temporal and MinIO. */
function harness(deps: Deps, api: () => RunningApi) {
  const objects = createObjectLister(deps.config);
  const get = (who: TestAccount, path: string) => call(api().url, 'GET', path, undefined, who.access);

  return {
    get,
    async submit(
      who: TestAccount,
      text: string,
      { family = 'v1' as Family, voice_id = VOICE } = {},
    ): Promise<Submitted> {
      const response = await call(api().url, 'POST', FAMILIES[family].synthesize, { text, voice_id }, who.access);
      expect({ status: response.status, body: response.body }).toMatchObject({
        status: 202,
        body: { status: 'queued' },
      });
      const id = response.body[FAMILIES[family].idKey] as string;
      return { id, characters: response.body.characters, statusUrl: response.body.status_url, family };
    },
    del: (who: TestAccount, id: string, family: Family) =>
      call(api().url, 'DELETE', FAMILIES[family].entry(id), undefined, who.access),
    row: (id: string) => deps.db('syntheses').where({ id }).first(),
    statusesOf: async (accountId: string): Promise<Array<{ id: string; status: string }>> =>
      deps.db('syntheses').where({ account_id: accountId }).orderBy('created_at').select('id', 'status'),
    /** The ledger rows of one reference, oldest first, as [kind, amount]. */
    ledger: async (accountId: string, reference: string) =>
      (
        await deps
          .db('credit_ledger')
          .where({ account_id: accountId, reference })
          .orderBy('id')
          .select('kind', 'amount')
      ).map((row) => [row.kind, Number(row.amount)]),
    balances: async (accountId: string) => {
      const row = await deps.db('accounts').where({ id: accountId }).first('credit_balance', 'credits_reserved');
      return { credit_balance: Number(row.credit_balance), credits_reserved: Number(row.credits_reserved) };
    },
    profile: async (who: TestAccount) => {
      const response = await get(who, '/api/v1/auth/profile/');
      expect(response.status).toBe(200);
      return response.body;
    },
    workflowStatus: async (id: string) =>
      (await deps.temporal.workflow.getHandle(`synthesis:${id}`).describe()).status.name,
    waitForWorkflowClosed: (id: string, timeoutMs = 120_000) =>
      until(
        `workflow synthesis:${id} to close`,
        async () => {
          const status = (await deps.temporal.workflow.getHandle(`synthesis:${id}`).describe()).status.name;
          return status === 'RUNNING' ? null : status;
        },
        timeoutMs,
        200,
      ),
    /** Every object the synthesis could have left: its work prefix (listed), chunk keys and final audio key. */
    async leftovers(accountId: string, id: string, format = 'wav') {
      const chunkKeys = Array.from({ length: 12 }, (_, index) => chunkKey(id, index));
      const [work, chunkSizes, final] = await Promise.all([
        objects.list(`work/syntheses/${id}/`),
        Promise.all(chunkKeys.map((key) => deps.storage.size(key))),
        deps.storage.size(audioKey(accountId, id, format)),
      ]);
      return { work, chunks: chunkKeys.filter((_, index) => chunkSizes[index] !== null), final };
    },
    listWork: (id: string) => objects.list(`work/syntheses/${id}/`),
    /** The activity failures in a synthesis's history (type and message), to explain an unexpected `failed`. */
    async activityFailures(id: string): Promise<string[]> {
      const history = await deps.temporal.workflow.getHandle(`synthesis:${id}`).fetchHistory();
      const types = new Map<string, string>();
      const failures: string[] = [];
      for (const event of history.events ?? []) {
        const scheduled = event.activityTaskScheduledEventAttributes;
        if (scheduled) types.set(String(event.eventId), scheduled.activityType?.name ?? '?');
        const failed = event.activityTaskFailedEventAttributes ?? event.activityTaskTimedOutEventAttributes;
        if (failed)
          failures.push(
            `${types.get(String(failed.scheduledEventId))}: ${failed.failure?.message ?? ''} ${failed.failure?.cause?.message ?? ''}`.trim(),
          );
      }
      return failures;
    },
    /** The highest attempt number each activity type reached in a synthesis's history. */
    async activityAttempts(id: string): Promise<Record<string, number>> {
      const history = await deps.temporal.workflow.getHandle(`synthesis:${id}`).fetchHistory();
      const types = new Map<string, string>();
      const attempts: Record<string, number> = {};
      for (const event of history.events ?? []) {
        const scheduled = event.activityTaskScheduledEventAttributes;
        if (scheduled) types.set(String(event.eventId), scheduled.activityType?.name ?? '?');
        const started = event.activityTaskStartedEventAttributes;
        if (started) {
          const type = types.get(String(started.scheduledEventId)) ?? '?';
          attempts[type] = Math.max(attempts[type] ?? 0, started.attempt ?? 0);
        }
      }
      return attempts;
    },
    /**
     * The account and its ledger read in one snapshot, with what the ledger
     * says the account must show: balance = initial - reserved + released,
     * credits_reserved = reserved - released - captured.
     */
    creditSnapshot: (accountId: string) =>
      deps.db.transaction(
        async (trx) => {
          const account = await trx('accounts').where({ id: accountId }).first('credit_balance', 'credits_reserved');
          const rows: Array<{ kind: string; amount: string; reference: string }> = await trx('credit_ledger')
            .where({ account_id: accountId })
            .select('kind', 'amount', 'reference');
          const byReference: Record<string, { reserve: number; release: number; capture: number }> = {};
          const total = { grant: 0, reserve: 0, release: 0, capture: 0 } as Record<string, number>;
          for (const row of rows) {
            total[row.kind] += Number(row.amount);
            if (row.kind === 'grant') continue;
            byReference[row.reference] ??= { reserve: 0, release: 0, capture: 0 };
            byReference[row.reference][row.kind as 'reserve'] += Number(row.amount);
          }
          return {
            account: {
              credit_balance: Number(account.credit_balance),
              credits_reserved: Number(account.credits_reserved),
            },
            expected: {
              credit_balance: INITIAL_CREDITS - total.reserve + total.release,
              credits_reserved: total.reserve - total.release - total.capture,
            },
            captured: total.capture,
            byReference,
          };
        },
        { isolationLevel: 'repeatable read' },
      ),
  };
}

/** Downloads and decodes a completed synthesis's audio; checks it is real speech of a plausible length. */
async function expectValidAudio(apiUrl: string, who: TestAccount, done: any) {
  const audio = await fetchAndMeasure(apiUrl, done.audio_url, who.access);
  expect(audio.response.status).toBe(200);
  const { durationSeconds, silenceRatio, rmsDb, voicedRatio } = audio.analysis;
  expect(durationSeconds).toBeGreaterThan(0);
  expect(durationSeconds).toBeCloseTo(done.duration_seconds, 0);
  // Spoken English runs at roughly 10-20 characters per second.
  expect(durationSeconds).toBeGreaterThan(done.characters / 40);
  expect(durationSeconds).toBeLessThan(done.characters / 5);
  // Not silent: speech most of the time, at a normal level, voiced in places.
  expect(silenceRatio).toBeLessThan(0.6);
  expect(rmsDb).toBeGreaterThan(-40);
  expect(voicedRatio).toBeGreaterThan(0.1);
  return audio.analysis;
}

describe('synthesis queueing, cancellation and failure (API and worker in this process)', () => {
  const { deps, api, worker } = useStack({ worker: true });
  const h = harness(deps, () => api);
  /** Engine and ffmpeg activities running in this process's CPU-queue worker right now. */
  const cpuInFlight = () =>
    worker.workers.find((each) => each.options.taskQueue.endsWith('-cpu'))!.getStatus().numInFlightActivities;

  it('keeps at most max_concurrent_syntheses (2) processing per account, reports the others queued, completes all four with real audio, and does not hold up another account', async () => {
    const [owner, other] = await Promise.all([createAccount(deps), createAccount(deps)]);
    const initial = (await h.balances(owner.id)).credit_balance;
    const plan = await deps.db('subscription_plans').where({ id: 'free' }).first('max_concurrent_syntheses');
    expect(plan.max_concurrent_syntheses).toBe(2);

    // Sample the status column every ~50 ms for the whole run.
    const samples: Array<{ processing: number; queued: number }> = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const rows = await h.statusesOf(owner.id);
        samples.push({
          processing: rows.filter((row) => row.status === 'processing').length,
          queued: rows.filter((row) => row.status === 'queued').length,
        });
        await sleep(50);
      }
    })();

    try {
      const jobs = await Promise.all([0, 1, 2, 3].map((index) => h.submit(owner, prose(600, index * 3))));
      for (const job of jobs) expect(job.characters).toBeGreaterThanOrEqual(600);
      const otherJob = await h.submit(other, prose(150, 7));

      // A synthesis beyond the limit answers `queued` (both families) while two others are processing.
      const seenQueued = await until(
        'a synthesis beyond the limit to report queued while two others process',
        async () => {
          const rows = await h.statusesOf(owner.id);
          const processing = rows.filter((row) => row.status === 'processing').map((row) => row.id);
          const queued = rows.find((row) => row.status === 'queued');
          if (!queued || processing.length !== 2) return null;
          const [v1, unversioned] = await Promise.all([
            h.get(owner, FAMILIES.v1.status(queued.id)),
            h.get(owner, FAMILIES.unversioned.status(queued.id)),
          ]);
          const stillProcessing = await deps.db('syntheses').whereIn('id', processing).select('status');
          if (!stillProcessing.every((row) => row.status === 'processing')) return null;
          return { v1, unversioned };
        },
      );
      expect(seenQueued.v1.status).toBe(200);
      expect(seenQueued.v1.body).toMatchObject({
        status: 'queued',
        progress: 0,
        started_at: null,
        audio_url: null,
        credits_charged: 0,
      });
      expect(seenQueued.unversioned.status).toBe(200);
      expect(seenQueued.unversioned.body).toMatchObject({ status: 'queued', audio_url: null });

      // The other account's synthesis starts while the first account still has one queued
      // (read the other's row first: both states only move forward, so both held at that moment).
      const whenOtherStarted = await until("the other account's synthesis to start", async () => {
        const otherRow = await h.row(otherJob.id);
        if (otherRow.status === 'queued') return null;
        return { other: otherRow.status as string, owner: await h.statusesOf(owner.id) };
      });
      expect(whenOtherStarted.owner.filter((row) => row.status === 'queued').length).toBeGreaterThanOrEqual(1);

      const done = await Promise.all(
        jobs.map((job) => waitForSynthesis(api.url, job.statusUrl, owner.access, 240_000)),
      );
      const otherDone = await waitForSynthesis(api.url, otherJob.statusUrl, other.access, 240_000);
      sampling = false;
      await sampler;

      const rows = await deps
        .db('syntheses')
        .whereIn(
          'id',
          [...jobs, otherJob].map((job) => job.id),
        )
        .orderBy('created_at');
      const t0 = Math.min(...rows.map((row) => row.created_at.getTime()));
      const at = (date: Date | null) => (date ? date.getTime() - t0 : null);
      process.stdout.write(
        `[concurrency] ms since first submit (started..completed): ${rows.map((row) => `${row.account_id === owner.id ? 'A' : 'B'} ${at(row.started_at)}..${at(row.completed_at)}`).join(', ')}; ${samples.length} samples\n`,
      );
      expect(samples.length).toBeGreaterThan(10);
      expect(Math.max(...samples.map((sample) => sample.processing))).toBe(2);
      expect(samples.some((sample) => sample.processing === 2 && sample.queued > 0)).toBe(true);

      for (const [index, result] of done.entries()) {
        expect(result).toMatchObject({
          id: jobs[index].id,
          status: 'completed',
          progress: 1,
          credits_charged: jobs[index].characters,
          error: null,
        });
        await expectValidAudio(api.url, owner, result);
        expect(await h.ledger(owner.id, jobs[index].id)).toEqual([
          ['reserve', jobs[index].characters],
          ['capture', jobs[index].characters],
        ]);
      }
      expect(otherDone).toMatchObject({ status: 'completed', credits_charged: otherJob.characters });
      await expectValidAudio(api.url, other, otherDone);

      const charged = jobs.reduce((sum, job) => sum + job.characters, 0);
      expect(await h.balances(owner.id)).toEqual({ credit_balance: initial - charged, credits_reserved: 0 });
    } finally {
      sampling = false;
      await sampler;
    }
  });

  /** Two long syntheses fill the account's two slots; resolves once both are processing. */
  async function fillSlots(who: TestAccount, family: Family) {
    const blockers = await Promise.all([0, 5].map((offset) => h.submit(who, prose(2500, offset), { family })));
    await until('both blockers to be processing', async () =>
      (await Promise.all(blockers.map((job) => h.row(job.id)))).every((row) => row.status === 'processing'),
    );
    return blockers;
  }

  /** A synthesis canceled by DELETE: gone from the API, its workflow CANCELLED, its reservation released (never captured). */
  async function expectCanceled(who: TestAccount, job: Submitted) {
    const family = FAMILIES[job.family];
    for (const path of [family.status(job.id), family.entry(job.id)]) {
      const gone = await h.get(who, path);
      expect({ path, status: gone.status, code: gone.body?.code }).toEqual({ path, status: 404, code: 'not_found' });
    }
    const history = await h.get(who, `${family.history}?page_size=100`);
    expect(history.status).toBe(200);
    expect(history.body.results.map((entry: any) => entry[family.idKey])).not.toContain(job.id);

    expect(await h.waitForWorkflowClosed(job.id)).toBe('CANCELLED');
    expect(await h.ledger(who.id, job.id)).toEqual([
      ['reserve', job.characters],
      ['release', job.characters],
    ]);
    const row = await h.row(job.id);
    expect({
      status: row.status,
      credits_charged: row.credits_charged,
      audio_key: row.audio_key,
      deleted: row.deleted_at !== null,
    }).toEqual({
      status: 'canceled',
      credits_charged: 0,
      audio_key: null,
      deleted: true,
    });
    expect(await deps.storage.size(audioKey(who.id, job.id, 'wav'))).toBeNull();
  }

  /** Submits a long synthesis and resolves while it is processing, with at least one chunk stored and engine work in flight. */
  async function startRendering(who: TestAccount, family: Family, offset: number) {
    const job = await h.submit(who, prose(2500, offset), { family });
    await until(
      'the synthesis to be processing with a chunk stored and a render in flight',
      async () =>
        (await h.row(job.id)).status === 'processing' && (await h.listWork(job.id)).length > 0 && cpuInFlight() > 0,
      120_000,
      50,
    );
    return job;
  }

  describe.each(['v1', 'unversioned'] as const)('DELETE in the %s family', (family) => {
    it('cancels a queued synthesis: 204, gone from the API, workflow CANCELLED, reserve + release only, its credits back, no objects', async () => {
      const who = await createAccount(deps);
      const initial = await h.balances(who.id);
      const blockers = await fillSlots(who, family);
      try {
        const queued = await h.submit(who, prose(500, 2), { family });
        // Its workflow has asked for a slot and was told to wait.
        await until('the third synthesis to wait for a slot', async () => {
          const [row, blockerRows] = await Promise.all([
            h.row(queued.id),
            Promise.all(blockers.map((job) => h.row(job.id))),
          ]);
          return row.status === 'queued' && blockerRows.every((blocker) => blocker.status === 'processing');
        });
        expect((await h.get(who, FAMILIES[family].status(queued.id))).body.status).toBe('queued');

        const deleted = await h.del(who, queued.id, family);
        expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 204, body: null });
        await expectCanceled(who, queued);
        expect(await h.leftovers(who.id, queued.id)).toEqual({ work: [], chunks: [], final: null });
        // Its reservation is back in the balance; only the blockers' (running or captured) remain taken.
        const snapshot = await h.creditSnapshot(who.id);
        expect(snapshot.byReference[queued.id]).toEqual({
          reserve: queued.characters,
          release: queued.characters,
          capture: 0,
        });
        expect(snapshot.account).toEqual(snapshot.expected);
      } finally {
        await Promise.all(blockers.map((job) => h.del(who, job.id, family)));
        await Promise.all(blockers.map((job) => h.waitForWorkflowClosed(job.id)));
      }
      // The blockers were canceled (or had completed and were charged): nothing stays reserved, nothing else is charged.
      const final = await h.creditSnapshot(who.id);
      expect(final.account).toEqual({ credit_balance: initial.credit_balance - final.captured, credits_reserved: 0 });
    });

    it('cancels a processing synthesis mid-render: 204, gone from the API, workflow CANCELLED, reserve + release only, balance restored, no audio object', async () => {
      const who = await createAccount(deps);
      const initial = await h.balances(who.id);
      const job = await startRendering(who, family, 4);
      expect((await h.get(who, FAMILIES[family].status(job.id))).body.status).toBe('processing');

      const deleted = await h.del(who, job.id, family);
      expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 204, body: null });
      await expectCanceled(who, job);
      expect(await h.balances(who.id)).toEqual({ credit_balance: initial.credit_balance, credits_reserved: 0 });
      const profile = await h.profile(who);
      expect(profile).toMatchObject({
        credit_balance: initial.credit_balance,
        credits_reserved: 0,
        usage: { syntheses: 0, syntheses_failed: 0, credits_used: 0 },
      });
      await until('the worker to finish its in-flight activities', async () => cpuInFlight() === 0, 60_000);
      expect(await deps.storage.size(audioKey(who.id, job.id, 'wav'))).toBeNull();
    });

    // A cancel waits for in-flight renders, which stop before storing: nothing stays under work/syntheses/<id>/.
    it('leaves no chunk object behind when a synthesis is deleted while its chunks render', async () => {
      const who = await createAccount(deps);
      const job = await startRendering(who, family, 6);
      // Right after a chunk was stored, so the next render has just started and is sure to outlast the cancel.
      const stored = (await h.listWork(job.id)).length;
      await until(
        'another chunk to be stored while renders are in flight',
        async () => (await h.listWork(job.id)).length > stored && cpuInFlight() > 0,
        120_000,
        20,
      );

      const deleted = await h.del(who, job.id, family);
      expect(deleted.status).toBe(204);
      expect(await h.waitForWorkflowClosed(job.id)).toBe('CANCELLED');
      await until('the worker to finish its in-flight activities', async () => cpuInFlight() === 0, 60_000);
      expect(await h.leftovers(who.id, job.id)).toEqual({ work: [], chunks: [], final: null });
    });

    it('deletes a completed synthesis: 204, audio object removed, gone from history, the capture kept and still counted in usage', async () => {
      const who = await createAccount(deps);
      const initial = await h.balances(who.id);
      const job = await h.submit(who, prose(120, 1), { family });
      const done = await waitForSynthesis(api.url, job.statusUrl, who.access, 120_000);
      expect(done.status).toBe('completed');
      const key = audioKey(who.id, job.id, 'wav');
      expect(await deps.storage.size(key)).toBeGreaterThan(0);
      const usageBefore = (await h.profile(who)).usage;
      expect(usageBefore).toMatchObject({
        syntheses: 1,
        credits_used: job.characters,
        characters_synthesized: job.characters,
      });

      const deleted = await h.del(who, job.id, family);
      expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 204, body: null });

      expect(await deps.storage.size(key)).toBeNull();
      expect(await h.leftovers(who.id, job.id)).toEqual({ work: [], chunks: [], final: null });
      const names = FAMILIES[family];
      expect((await h.get(who, names.entry(job.id))).status).toBe(404);
      expect((await h.get(who, names.status(job.id))).status).toBe(404);
      const history = await h.get(who, names.history);
      expect(history.status).toBe(200);
      expect(history.body.count).toBe(0);
      expect(history.body.results).toEqual([]);

      // No refund: the ledger keeps the capture; the profile still counts it.
      expect(await h.ledger(who.id, job.id)).toEqual([
        ['reserve', job.characters],
        ['capture', job.characters],
      ]);
      expect(await h.balances(who.id)).toEqual({
        credit_balance: initial.credit_balance - job.characters,
        credits_reserved: 0,
      });
      const profile = await h.profile(who);
      expect(profile).toMatchObject({ credit_balance: initial.credit_balance - job.characters, credits_reserved: 0 });
      expect(profile.usage).toEqual(usageBefore);
      expect(await h.workflowStatus(job.id)).toBe('COMPLETED');
    });
  });

  it('fails a synthesis whose engine voice does not exist: failed with a safe error, nothing charged, reservation released, no objects, counted as failed; retries are bounded', async () => {
    const voiceId = `test-broken-${randomUUID().slice(0, 8)}`;
    await deps.db('voices').insert({
      id: voiceId,
      category: 'premade',
      name: 'Broken test voice',
      language: 'en-US',
      gender: 'female',
      description: 'A voice whose engine voice does not exist (synthesisFaults test).',
      engine: 'espeak-ng',
      engine_voice: 'zz-nonexistent',
      license: 'free',
      status: 'ready',
      available: true,
      sort_order: 9_999,
    });
    try {
      const who = await createAccount(deps);
      const initial = await h.balances(who.id);
      const started = Date.now();
      const job = await h.submit(who, prose(200, 3), { voice_id: voiceId });
      const done = await waitForSynthesis(api.url, job.statusUrl, who.access, 280_000);
      process.stdout.write(
        `[failure path] synthesis ended ${done.status} after ${Date.now() - started} ms; activity failures: ${JSON.stringify(await h.activityFailures(job.id))}\n`,
      );

      expect(done).toMatchObject({
        id: job.id,
        status: 'failed',
        credits_charged: 0,
        audio_url: null,
        duration_seconds: null,
      });
      expect(done.error).toEqual({ code: expect.any(String), message: expect.any(String) });
      // The engine failed, not storage: the code says so.
      expect(done.error.code).toBe('engine_failed');
      expect(done.error.message.length).toBeGreaterThan(0);
      // Nothing internal: no engine name, engine voice, command, path, stack or exception name.
      for (const leak of ['espeak', 'zz-nonexistent', '/tmp', 'openvox-', ' at ', 'Error:', 'EngineError', voiceId]) {
        expect({ leak, inMessage: done.error.message.includes(leak) }).toEqual({ leak, inMessage: false });
      }
      // The workflow records the failure, then returns normally (a failed synthesis is an outcome, not a workflow failure).
      expect(await h.waitForWorkflowClosed(job.id)).toBe('COMPLETED');
      expect(await deps.temporal.workflow.getHandle(`synthesis:${job.id}`).result()).toBe('failed');
      process.stdout.write(`[failure path] workflow closed after ${Date.now() - started} ms\n`);
      // The engine error was retried, a bounded number of times, then given up.
      const attempts = await h.activityAttempts(job.id);
      // (A one-chunk text renders and finishes in one step; longer ones render chunks, then finish.)
      const renders = (attempts.renderShortSynthesis ?? 0) + (attempts.renderSynthesisChunk ?? 0);
      expect(renders).toBeGreaterThan(1);
      // Engine errors fail fast: three attempts, then the job fails (storage outages are what gets waited out).
      expect(renders).toBeLessThanOrEqual(3);
      expect(attempts.finishSynthesis).toBeUndefined();

      expect(await h.ledger(who.id, job.id)).toEqual([
        ['reserve', job.characters],
        ['release', job.characters],
      ]);
      expect(await h.balances(who.id)).toEqual({ credit_balance: initial.credit_balance, credits_reserved: 0 });
      await until('the worker to finish its in-flight activities', async () => cpuInFlight() === 0, 60_000);
      expect(await h.leftovers(who.id, job.id)).toEqual({ work: [], chunks: [], final: null });

      const profile = await h.profile(who);
      expect(profile).toMatchObject({ credit_balance: initial.credit_balance, credits_reserved: 0 });
      expect(profile.usage).toMatchObject({ syntheses: 0, syntheses_failed: 1, credits_used: 0 });
      // The history entry shows the same failure.
      const entry = await h.get(who, FAMILIES.v1.entry(job.id));
      expect(entry.body).toMatchObject({ status: 'failed', error: done.error, credits_charged: 0 });
    } finally {
      await deps.db('voices').where({ id: voiceId }).delete();
    }
  });
});

/** Both of the worker process's task queues have a poller: it has bundled the workflows and is serving. */
async function waitForWorkerReady(deps: Deps, worker: WorkerProcess, since: number) {
  const queues = [
    { name: deps.config.TEMPORAL_TASK_QUEUE, type: 1 /* TASK_QUEUE_TYPE_WORKFLOW */ },
    { name: `${deps.config.TEMPORAL_TASK_QUEUE}-cpu`, type: 2 /* TASK_QUEUE_TYPE_ACTIVITY */ },
  ];
  await until(
    'the worker process to poll both task queues',
    async () => {
      if (worker.child.exitCode !== null)
        throw new Error(`worker process exited ${worker.child.exitCode}:\n${worker.output()}`);
      const described = await Promise.all(
        queues.map(({ name, type }) =>
          deps.temporal.workflowService.describeTaskQueue({
            namespace: deps.config.TEMPORAL_NAMESPACE,
            taskQueue: { name },
            taskQueueType: type,
          }),
        ),
      );
      // A poller seen since this process started (a killed one stays listed for a while).
      return described.every((queue) =>
        (queue.pollers ?? []).some((poller) => Number(poller.lastAccessTime?.seconds ?? 0) * 1000 >= since - 1_000),
      );
    },
    120_000,
    250,
  ).catch((error) => {
    throw new Error(`${error.message}\nworker output:\n${worker.output()}`);
  });
}

describe('synthesis with the worker as a separate process (SIGKILL, no worker)', () => {
  const { deps, api, onClose } = useStack();
  const h = harness(deps, () => api);
  const taskQueue = deps.config.TEMPORAL_TASK_QUEUE;
  onClose(killAllWorkerProcesses);

  async function startWorker(): Promise<WorkerProcess> {
    const since = Date.now();
    const worker = spawnWorkerProcess(taskQueue);
    await waitForWorkerReady(deps, worker, since);
    return worker;
  }

  it('answers status, entry and history reads with 200 from PostgreSQL and describe while no worker runs', async () => {
    let worker = await startWorker();
    const who = await createAccount(deps);
    const initial = await h.balances(who.id);
    let jobs: Submitted[] = [];
    try {
      jobs = await Promise.all([0, 4, 8].map((offset) => h.submit(who, prose(2500, offset))));
      const queued = await until('two processing and one queued', async () => {
        const rows = await h.statusesOf(who.id);
        return rows.filter((row) => row.status === 'processing').length === 2
          ? rows.find((row) => row.status === 'queued')
          : null;
      });
      await worker.kill();
      await sleep(1_000);

      for (const family of ['v1', 'unversioned'] as const) {
        const asked = Date.now();
        const status = await h.get(who, FAMILIES[family].status(queued.id));
        process.stdout.write(`[no worker] ${family} status answered ${status.status} in ${Date.now() - asked} ms\n`);
        expect({ family, status: status.status, state: status.body.status }).toEqual({
          family,
          status: 200,
          state: 'queued',
        });
        expect(status.body).toMatchObject({
          [FAMILIES[family].idKey]: queued.id,
          progress: 0,
          audio_url: null,
          error: null,
        });
        const entry = await h.get(who, FAMILIES[family].entry(queued.id));
        expect({ family, status: entry.status, state: entry.body.status }).toEqual({
          family,
          status: 200,
          state: 'queued',
        });
        const history = await h.get(who, FAMILIES[family].history);
        expect({ family, status: history.status, count: history.body.count }).toEqual({
          family,
          status: 200,
          count: 3,
        });
      }
      for (const job of jobs.filter((each) => each.id !== queued.id)) {
        const status = await h.get(who, FAMILIES.v1.status(job.id));
        expect({ status: status.status, state: status.body.status }).toEqual({ status: 200, state: 'processing' });
      }
    } finally {
      // Clean up: a new worker process cancels the three (DELETE needs only Temporal; the worker finishes the cancel).
      worker = await startWorker();
      await Promise.all(jobs.map((job) => h.del(who, job.id, 'v1')));
      await Promise.all(jobs.map((job) => h.waitForWorkflowClosed(job.id)));
      await worker.kill();
    }
    expect(await h.balances(who.id)).toEqual({ credit_balance: initial.credit_balance, credits_reserved: 0 });
  });

  it('a stream whose worker is SIGKILLed after some sentences: the retry resumes after the stored ones, and the client gets every sample of the stored audio, charged once', async () => {
    let worker = await startWorker();
    try {
      const who = await createAccount(deps);
      const input = TRAIN_SENTENCES.join(' ').repeat(6);
      const response = await postSpeech(api.url, who.access, {
        model: 'tts-1',
        voice: 'en-us-espeak-m',
        input,
        response_format: 'pcm',
      });
      expect(response.status).toBe(200);
      const id = response.headers.get('x-synthesis-id')!;
      // Read as it comes, in the background: the client stays on through the kill.
      const received = (async () => {
        let bytes = 0;
        for await (const part of response.body!) bytes += (part as Uint8Array).length;
        return bytes;
      })().catch((error: Error) => error);
      const workflow = deps.temporal.workflow.getHandle(`synthesis:${id}`);
      /** How many sentences the render's last recorded heartbeat says are stored: where a next attempt starts. */
      const recordedStored = async () => {
        const pending = (await workflow.describe()).raw.pendingActivities ?? [];
        const render = pending.find((each) => each.activityType?.name === 'renderStreamedSynthesis');
        const payload = render?.heartbeatDetails?.payloads?.[0]?.data;
        return payload ? (JSON.parse(Buffer.from(payload).toString()) as { stored: number }).stored : 0;
      };
      const atKill = await until(
        'a few sentences stored and heartbeated',
        async () => {
          const stored = await recordedStored();
          return stored >= 3 ? stored : null;
        },
        120_000,
        20,
      );
      await worker.kill();
      expect(await recordedStored()).toBeGreaterThanOrEqual(atKill);
      worker = spawnWorkerProcess(taskQueue);
      const done = await waitForSynthesis(api.url, `/api/v1/tts/history/${id}/status/`, who.access, 240_000);
      expect(done).toMatchObject({ status: 'completed', credits_charged: done.characters });
      // Every sample of the stored audio reached the client, across the kill (the duration is rounded to the ms).
      const bytes = await received;
      expect(bytes).not.toBeInstanceOf(Error);
      expect(Math.abs((bytes as number) - Math.round(done.duration_seconds * 24_000) * 2)).toBeLessThanOrEqual(48);
      expect(await h.ledger(who.id, id)).toEqual([
        ['reserve', done.characters],
        ['capture', done.characters],
      ]);
      expect(await h.activityAttempts(id)).toMatchObject({ renderStreamedSynthesis: 2 });
      expect(await workflow.result()).toBe('completed');
      expect(await h.leftovers(who.id, id)).toMatchObject({ work: [], chunks: [] });
    } finally {
      await worker.kill();
    }
  });

  it('completes every synthesis with valid audio and exactly one reserve and one capture each when the worker is SIGKILLed mid-render and restarted', async () => {
    const timings: Record<string, number> = {};
    const t0 = Date.now();
    let worker = await startWorker();
    timings.workerReady = Date.now() - t0;
    try {
      const accounts = await Promise.all([createAccount(deps), createAccount(deps)]);
      const initial = await Promise.all(accounts.map((who) => h.balances(who.id)));
      const jobs = await Promise.all(
        accounts.flatMap((who, a) =>
          [0, 1].map(async (n) => ({
            who,
            job: await h.submit(who, prose(450, a * 4 + n * 2), { family: n ? 'unversioned' : 'v1' }),
          })),
        ),
      );

      // Mid-render: at least one processing and a chunk stored.
      const atKill = await until(
        'a synthesis to be processing with a chunk stored',
        async () => {
          const rows = await Promise.all(jobs.map(({ job }) => h.row(job.id)));
          const processing = rows.filter((row) => row.status === 'processing');
          if (processing.length === 0) return null;
          const chunks = (await Promise.all(jobs.map(({ job }) => h.listWork(job.id)))).flat();
          return chunks.length > 0
            ? { statuses: rows.map((row) => row.status as string), chunks: chunks.length }
            : null;
        },
        120_000,
        50,
      );
      await worker.kill();
      timings.killed = Date.now() - t0;
      process.stdout.write(`[SIGKILL] statuses at kill: ${JSON.stringify(atKill)}\n`);
      expect(atKill.statuses.some((status) => status === 'processing')).toBe(true);
      const unfinishedAtKill = (await Promise.all(jobs.map(({ job }) => h.row(job.id)))).filter(
        (row) => row.status !== 'completed',
      ).length;
      expect(unfinishedAtKill).toBeGreaterThan(0);

      await sleep(1_000);
      // No worker: every read still answers from PostgreSQL and describe.
      for (const { who, job } of jobs) {
        const status = await h.get(who, job.statusUrl);
        const valid = ['queued', 'processing', 'completed'].includes(status.body.status);
        const why = valid ? [] : await h.activityFailures(job.id);
        expect({ status: status.status, state: status.body.status, valid, why }).toEqual({
          status: 200,
          state: status.body.status,
          valid: true,
          why: [],
        });
      }

      worker = spawnWorkerProcess(taskQueue);
      const restarted = Date.now();
      const done = await Promise.all(
        jobs.map(({ who, job }) => waitForSynthesis(api.url, job.statusUrl, who.access, 240_000)),
      );
      timings.allCompletedAfterRestart = Date.now() - restarted;

      for (const [index, { who, job }] of jobs.entries()) {
        expect(done[index]).toMatchObject({
          status: 'completed',
          progress: 1,
          credits_charged: job.characters,
          error: null,
        });
        await expectValidAudio(api.url, who, done[index]);
        expect(await h.ledger(who.id, job.id)).toEqual([
          ['reserve', job.characters],
          ['capture', job.characters],
        ]);
        expect(await h.leftovers(who.id, job.id)).toMatchObject({ work: [], chunks: [] });
      }
      for (const [a, who] of accounts.entries()) {
        const charged = jobs.filter((each) => each.who === who).reduce((sum, { job }) => sum + job.characters, 0);
        expect(await h.balances(who.id)).toEqual({
          credit_balance: initial[a].credit_balance - charged,
          credits_reserved: 0,
        });
      }
    } finally {
      process.stdout.write(`[kill/restart timings, ms] ${JSON.stringify(timings)}\n`);
      await worker.kill();
    }
  });
});
