import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { mapLimit } from '../lib/concurrency';
import type { IsolatedStack, StackAccount } from '../scripts/isolatedStack';
import {
  type Answer,
  deleteSynthesis,
  formatTally,
  type Outcome,
  type RetryBound,
  submit,
  submitWithKey,
  tally,
  untilAnswered,
  type SynthesizeBody,
  call,
} from './client';
import { expect, type Findings } from './checks';
import { cloneUploadForm, makeCloneSample } from './load';
import { createStorage } from '../lib/storage';
import { bookMarkdown, textOfLength } from './texts';

/**
 * The faults of issue 13, one scenario each. A scenario makes its own
 * accounts, loads the stack, injects its fault, and reports which synthesis
 * ids its clients saw accepted; the suite then waits for quiescence and checks
 * the invariants. Scenario-specific expectations go into `findings`.
 */

interface ScenarioContext {
  stack: IsolatedStack;
  /** Scenario-specific checks and notes. */
  findings: Findings;
  log(message: string): void;
}

interface ScenarioRun {
  accounts: StackAccount[];
  /** Every answer to a submit (all attempts), for the 503 count. */
  answers: Answer[];
  /** Synthesis ids a client got a 202 for. */
  accepted: Set<string>;
  /** Every accepted job must end completed (the fault must be waited out, not turned into failures). */
  expectAllCompleted: boolean;
  /** 503s are violations: the stack was healthy. */
  no503: boolean;
  /** The only error code a failed job may carry (what the fault was), when set. */
  failureCode?: string;
}

export interface Scenario {
  name: string;
  run(context: ScenarioContext): Promise<ScenarioRun>;
}

/** The fast engine (espeak-ng) for the heavy loads; SLT (Festival HTS) where the render should take a while. */
const FAST_VOICE = 'en-us-espeak-f';
const SLOW_VOICE = 'en-us-slt';
const SHORT = 100;
/** Three chunks of at most 400 characters: chunk objects in storage while it renders. */
const LONG = 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const run = promisify(execFile);
/** The book scenario: chapters (a heading and two or three short paragraphs each), the neural voice, the storage outage. */
const BOOK_CHAPTERS = 10;
const BOOK_VOICE = 'en-us-joe';
const BOOK_OUTAGE_MS = 15_000;
/** The cloning scenario: clones at once (two accounts), the storage outage. */
const CLONES = 4;
const CLONE_OUTAGE_MS = 30_000;
/** Clients keep retrying at most this long: above today's 60 s Idempotency-Key lock, so even that ends. */
const BOUND: RetryBound = { maxAttempts: 400, deadlineMs: 150_000 };

function acceptedIds(outcomes: Outcome[]): Set<string> {
  const ids = new Set<string>();
  for (const outcome of outcomes)
    for (const answer of outcome.attempts) if (answer.status === 202 && answer.id) ids.add(answer.id);
  return ids;
}

/** Every client with a key settled on a 202 (credits are ample in these scenarios), each key on one synthesis. */
function expectKeyedAccepted(findings: Findings, outcomes: Outcome[]): void {
  for (const outcome of outcomes) {
    const ids = new Set(outcome.attempts.filter((answer) => answer.status === 202).map((answer) => answer.id));
    expect(
      findings,
      !outcome.exhausted && outcome.final.status === 202,
      'key not settled on 202',
      () =>
        `key ${outcome.key}: ${outcome.exhausted ? 'never answered within the bound' : 'settled on'} ${outcome.final.status} ${outcome.final.code ?? ''} after ${outcome.attempts.length} attempts (${formatTally(tally(outcome.attempts))})`,
    );
    expect(
      findings,
      ids.size <= 1,
      'key answered with several syntheses',
      () => `key ${outcome.key}: 202s name ${ids.size} different syntheses (${[...ids].join(', ')})`,
    );
  }
}

/** Syntheses and reservations per key: a retried key must not make a second one. */
async function expectOnePerKey(
  stack: IsolatedStack,
  findings: Findings,
  accounts: StackAccount[],
  outcomes: Outcome[],
): Promise<void> {
  const ids = accounts.map((account) => account.id);
  const [{ rows }] = await stack.db('syntheses').whereIn('account_id', ids).count<{ rows: string }[]>({ rows: '*' });
  const [{ reserves }] = await stack
    .db('credit_ledger')
    .whereIn('account_id', ids)
    .where({ kind: 'reserve' })
    .count<{ reserves: string }[]>({ reserves: '*' });
  expect(
    findings,
    Number(rows) <= outcomes.length,
    'more syntheses than keys',
    () => `${outcomes.length} keys made ${rows} syntheses (a retry with the same key got a new synthesis)`,
  );
  expect(
    findings,
    Number(reserves) <= outcomes.length,
    'more reservations than keys',
    () => `${outcomes.length} keys made ${reserves} reservations`,
  );
}

const inFlight = async (stack: IsolatedStack, accounts: StackAccount[]) => {
  const [{ open }] = await stack
    .db('syntheses')
    .whereIn(
      'account_id',
      accounts.map((account) => account.id),
    )
    .whereIn('status', ['queued', 'processing'])
    .count<{ open: string }[]>({ open: '*' });
  return Number(open);
};

/** Submits every job with its own key, at most `concurrency` at a time; `during` runs the fault alongside. */
async function keyedLoad(
  context: ScenarioContext,
  jobs: { account: StackAccount; body: SynthesizeBody }[],
  concurrency: number,
  during: (progress: () => number) => Promise<void>,
) {
  let settled = 0;
  const load = mapLimit(jobs, concurrency, async ({ account, body }) => {
    const outcome = await submitWithKey(context.stack.apiUrl, account, body, BOUND);
    settled += 1;
    return outcome;
  });
  const [outcomes] = await Promise.all([load, during(() => settled)]);
  return outcomes;
}

const mix = (accounts: StackAccount[], count: number, voice: string, longEvery: number) =>
  Array.from({ length: count }, (_, index) => ({
    account: accounts[index % accounts.length],
    body: { text: textOfLength(longEvery && index % longEvery === 0 ? LONG : SHORT, index), voice_id: voice },
  }));

const finish = (accounts: StackAccount[], outcomes: Outcome[], extra: Partial<ScenarioRun> = {}): ScenarioRun => ({
  accounts,
  answers: outcomes.flatMap((outcome) => outcome.attempts),
  accepted: acceptedIds(outcomes),
  expectAllCompleted: true,
  no503: false,
  ...extra,
});

/** Waits (at most 10 minutes) until no voice preview workflow runs. */
async function untilPreviewsDone(stack: IsolatedStack): Promise<void> {
  const deadline = Date.now() + 600_000;
  const running = async () => {
    for await (const _ of stack.temporal.workflow.list({
      query: `WorkflowType = 'voicePreview' AND ExecutionStatus = 'Running'`,
    }))
      return true;
    return false;
  };
  while ((await running()) && Date.now() < deadline) await sleep(1_000);
}

export const scenarios: Scenario[] = [
  {
    name: 'kill -9 worker (≥ 50 in flight), restart',
    async run(context) {
      const { stack, findings } = context;
      // Free plan: 2 renders per account at once, the rest queued; SLT keeps each render busy for a while.
      const accounts = await stack.createAccounts(10, { credits: 100_000 });
      let atKill = 0;
      // More jobs than the 50 wanted in flight: some complete while the rest are still being submitted.
      const jobs = 72;
      const outcomes = await keyedLoad(context, mix(accounts, jobs, SLOW_VOICE, 0), 16, async (settled) => {
        const deadline = Date.now() + 60_000;
        while (settled() < jobs && Date.now() < deadline && (await inFlight(stack, accounts)) < 50) await sleep(200);
        atKill = await inFlight(stack, accounts);
        context.log(`worker killed with ${atKill} in flight`);
        await stack.killWorkers();
        await sleep(3_000);
        await stack.startWorkers(1);
      });
      expect(
        findings,
        atKill >= 50,
        '[setup] fewer than 50 in flight at the kill',
        () => `[setup] only ${atKill} syntheses in flight when the worker was killed (want ≥ 50)`,
      );
      findings.notes.push(`${atKill} in flight at the kill`);
      expectKeyedAccepted(findings, outcomes);
      await expectOnePerKey(stack, findings, accounts, outcomes);
      return finish(accounts, outcomes);
    },
  },
  {
    name: 'kill -9 API ×2 while clients submit with keys and retry',
    async run(context) {
      const { stack, findings } = context;
      const accounts = await stack.createAccounts(8, { credits: 100_000, plan: 'pro' });
      let backAt = 0;
      const outcomes = await keyedLoad(context, mix(accounts, 40, FAST_VOICE, 4), 8, async () => {
        for (let kill = 0; kill < 2; kill++) {
          await sleep(1_200);
          await stack.killApi();
          context.log('api killed');
          await stack.startApi();
          backAt = Date.now();
        }
      });
      const inUse = outcomes
        .flatMap((outcome) => outcome.attempts)
        .filter((answer) => answer.code === 'idempotency_key_in_use').length;
      findings.notes.push(`${inUse} × 409 idempotency_key_in_use answered to retries`);
      // A claim held by a request that died must be taken over within seconds.
      for (const outcome of outcomes.filter((candidate) => candidate.attempts.length > 1)) {
        const waited = (outcome.settledAt - Math.max(backAt, outcome.startedAt)) / 1000;
        expect(
          findings,
          waited <= 15,
          'key locked > 15 s after the API was back',
          () =>
            `key ${outcome.key}: answered ${waited.toFixed(1)} s after the API was back (${formatTally(tally(outcome.attempts))})`,
        );
      }
      expectKeyedAccepted(findings, outcomes);
      await expectOnePerKey(stack, findings, accounts, outcomes);
      return finish(accounts, outcomes);
    },
  },
  {
    name: 'kill -9 Temporal server, restart on its sqlite file',
    async run(context) {
      const { stack, findings } = context;
      const accounts = await stack.createAccounts(6, { credits: 100_000, plan: 'pro' });
      const outcomes = await keyedLoad(context, mix(accounts, 36, FAST_VOICE, 3), 6, async (settled) => {
        const deadline = Date.now() + 20_000;
        while (settled() < 12 && Date.now() < deadline) await sleep(100);
        await stack.killTemporal();
        context.log(`temporal killed after ${settled()} answered submits`);
        await sleep(5_000);
        await stack.startTemporal();
        context.log('temporal back');
      });
      expectKeyedAccepted(findings, outcomes);
      await expectOnePerKey(stack, findings, accounts, outcomes);
      return finish(accounts, outcomes);
    },
  },
  {
    name: 'MinIO stopped 30 s, light load (10 jobs, 2 DELETEs)',
    async run(context) {
      const { stack, findings } = context;
      const accounts = await stack.createAccounts(5, { credits: 100_000 });
      // Two finished syntheses to delete while storage is down: their audio must still go.
      const doomed = await mapLimit(accounts.slice(0, 2), 2, (account) =>
        submitWithKey(stack.apiUrl, account, { text: textOfLength(SHORT), voice_id: FAST_VOICE }, BOUND),
      );
      const doomedIds = [...acceptedIds(doomed)];
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const done = await stack.db('syntheses').whereIn('id', doomedIds).where({ status: 'completed' });
        if (done.length === doomedIds.length) break;
        await sleep(250);
      }
      let deletes: Answer[][] = [];
      // Storage goes first and the jobs arrive during the outage: with a fast engine they would otherwise be done before it starts.
      await stack.stopMinio();
      const stoppedAt = Date.now();
      context.log('minio stopped');
      const outcomes = await keyedLoad(context, mix(accounts, 10, FAST_VOICE, 3), 10, async () => {
        deletes = await Promise.all(
          doomed.map(
            async (outcome) =>
              (
                await untilAnswered(() => deleteSynthesis(stack.apiUrl, outcome.account, outcome.final.id!), {
                  maxAttempts: 100,
                  deadlineMs: 25_000,
                })
              ).attempts,
          ),
        );
        await sleep(Math.max(0, 30_000 - (Date.now() - stoppedAt)));
        await stack.startMinio();
        context.log('minio back');
      });
      for (const [index, attempts] of deletes.entries()) {
        const last = attempts[attempts.length - 1];
        findings.notes.push(`DELETE ${doomed[index].final.id} during the outage: ${formatTally(tally(attempts))}`);
        expect(
          findings,
          last.status === 204 || last.status === 202,
          'DELETE during the outage not accepted',
          () =>
            `DELETE ${doomed[index].final.id} during the outage settled on ${last.status} ${last.code ?? ''} (${formatTally(tally(attempts))})`,
        );
      }
      expectKeyedAccepted(findings, outcomes);
      const run = finish(accounts, outcomes, { failureCode: 'storage_unavailable' });
      // The deleted ones are accepted jobs too (they completed before the outage).
      for (const id of doomedIds) run.accepted.add(id);
      run.answers.push(...doomed.flatMap((outcome) => outcome.attempts));
      return run;
    },
  },
  {
    name: 'MinIO stopped 30 s, heavy load (60 jobs)',
    async run(context) {
      const { stack, findings } = context;
      const accounts = await stack.createAccounts(10, { credits: 100_000, plan: 'pro' });
      const outcomes = await keyedLoad(context, mix(accounts, 60, FAST_VOICE, 3), 12, async (settled) => {
        const deadline = Date.now() + 30_000;
        while (settled() < 20 && Date.now() < deadline) await sleep(100);
        await stack.stopMinio();
        context.log(`minio stopped after ${settled()} answered submits`);
        await sleep(30_000);
        await stack.startMinio();
        context.log('minio back');
      });
      expectKeyedAccepted(findings, outcomes);
      return finish(accounts, outcomes, { failureCode: 'storage_unavailable' });
    },
  },
  {
    name: '100 parallel submits, credits for exactly 50',
    async run(context) {
      const { stack, findings } = context;
      const accounts = await stack.createAccounts(50, { credits: SHORT });
      const submits = accounts.flatMap((account, index) =>
        [0, 1].map((copy) => ({ account, body: { text: textOfLength(SHORT, index + copy), voice_id: FAST_VOICE } })),
      );
      const answers = await Promise.all(submits.map(({ account, body }) => submit(stack.apiUrl, account, body)));
      findings.notes.push(`answers: ${formatTally(tally(answers))}`);
      const accepted = answers.filter((answer) => answer.status === 202);
      expect(
        findings,
        answers.every((answer) => answer.status === 202 || answer.status === 402),
        'answers other than 202/402',
        () =>
          `answers other than 202/402: ${formatTally(tally(answers.filter((answer) => answer.status !== 202 && answer.status !== 402)))}`,
      );
      expect(
        findings,
        accepted.length === 50,
        'accepted ≠ credits for 50',
        () => `${accepted.length} submits accepted, want exactly 50 (one per account's credits)`,
      );
      for (const [index, account] of accounts.entries()) {
        const mine = answers.slice(index * 2, index * 2 + 2).filter((answer) => answer.status === 202).length;
        expect(
          findings,
          mine <= 1,
          'account accepted beyond its credits',
          () => `account ${account.id}: ${mine} submits accepted with credits for one`,
        );
      }
      return {
        accounts,
        answers,
        accepted: new Set(accepted.map((answer) => answer.id!)),
        expectAllCompleted: true,
        no503: true,
      };
    },
  },
  {
    name: '50 concurrent submits, one Idempotency-Key',
    async run(context) {
      const { stack, findings } = context;
      const [account] = await stack.createAccounts(1, { credits: 10_000 });
      const body = { text: textOfLength(SHORT), voice_id: FAST_VOICE };
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => submit(stack.apiUrl, account, body, 'chaos-one-key')),
      );
      findings.notes.push(`answers: ${formatTally(tally(answers))}`);
      const accepted = new Set(answers.filter((answer) => answer.status === 202).map((answer) => answer.id!));
      expect(
        findings,
        answers.every((answer) => answer.status === 202 || answer.status === 409),
        'answers other than 202/409',
        () =>
          `answers other than 202/409: ${formatTally(tally(answers.filter((answer) => answer.status !== 202 && answer.status !== 409)))}`,
      );
      expect(
        findings,
        accepted.size === 1,
        'one key, several syntheses',
        () => `the 202s name ${accepted.size} syntheses, want exactly 1`,
      );
      const [{ rows }] = await stack
        .db('syntheses')
        .where({ account_id: account.id })
        .count<{ rows: string }[]>({ rows: '*' });
      const [{ reserves }] = await stack
        .db('credit_ledger')
        .where({ account_id: account.id, kind: 'reserve' })
        .count<{ reserves: string }[]>({ reserves: '*' });
      expect(
        findings,
        Number(rows) === 1,
        'one key, several synthesis rows',
        () => `one key made ${rows} syntheses, want 1`,
      );
      expect(
        findings,
        Number(reserves) === 1,
        'one key, several reservations',
        () => `one key made ${reserves} reservations, want 1`,
      );
      return { accounts: [account], answers, accepted, expectAllCompleted: true, no503: true };
    },
  },
  {
    name: 'book: kill -9 worker mid-chapter, MinIO stopped 15 s mid-book',
    async run(context) {
      const { stack, findings, log } = context;
      const [account] = await stack.createAccounts(1, { credits: 100_000, plan: 'pro' });
      const api = (method: string, url: string, body?: unknown) =>
        call(stack.apiUrl, account, method, `/api/v1/projects/${url}`, body);
      const { markdown, titles } = bookMarkdown(BOOK_CHAPTERS, 300, 120);
      const created = await api('POST', '', { name: 'Chaos book' });
      const projectId = created.body?.id as string;
      if (created.status !== 201 || !projectId) throw new Error(`project not created: ${created.status}`);
      const patched = await api('PATCH', `${projectId}/`, { default_voice_id: BOOK_VOICE });
      const imported = await api('POST', `${projectId}/content/`, { format: 'markdown', text: markdown });
      if (patched.status !== 200 || imported.status !== 200)
        throw new Error(`project not set up: PATCH ${patched.status}, import ${imported.status}`);
      const blocks: { id: string; characters: number; title: string; chapter_index: number }[] = await stack
        .db('project_blocks')
        .join('project_chapters', 'project_chapters.id', 'project_blocks.chapter_id')
        .where('project_chapters.project_id', projectId)
        .orderBy(['project_chapters.index', 'project_blocks.index'])
        .select(
          'project_blocks.id',
          'project_blocks.characters',
          'project_chapters.title',
          'project_chapters.index as chapter_index',
        );
      const firstChapter = blocks.filter((block) => block.chapter_index === blocks[0].chapter_index).length;
      const characters = blocks.reduce((sum, block) => sum + block.characters, 0);
      findings.notes.push(
        `${BOOK_CHAPTERS} chapters, ${blocks.length} blocks, ${characters} characters, ${BOOK_VOICE}`,
      );

      const started = await api('POST', `${projectId}/convert/`, {});
      const snapshotId = started.body?.id as string;
      if (started.status !== 202 || !snapshotId) throw new Error(`convert answered ${started.status}`);
      const snapshot = async () =>
        (await stack.db('project_snapshots').where({ id: snapshotId }).first()) as {
          status: string;
          blocks_rendered: number;
          chapters: unknown[];
          credits_charged: number;
          characters_rendered: number;
          blocks_reused: number;
          error: unknown;
        };
      const until = async (what: string, done: (row: Awaited<ReturnType<typeof snapshot>>) => boolean, ms: number) => {
        const deadline = Date.now() + ms;
        for (;;) {
          const row = await snapshot();
          if (done(row)) return row;
          if (Date.now() > deadline || ['completed', 'failed', 'canceled'].includes(row.status))
            throw new Error(`${what}: not reached (snapshot ${row.status}, ${row.blocks_rendered} blocks rendered)`);
          await sleep(100);
        }
      };

      // Mid-chapter: the second chapter's heading is recorded, its paragraphs are rendering.
      const atKill = await until('mid-chapter', (row) => row.blocks_rendered >= firstChapter + 1, 300_000);
      await stack.killWorkers();
      log(`worker killed with ${atKill.blocks_rendered} of ${blocks.length} blocks rendered`);
      findings.notes.push(`worker killed after ${atKill.blocks_rendered} of ${blocks.length} blocks`);
      await sleep(2_000);
      await stack.startWorkers(1);

      // Mid-book: half the chapters assembled.
      const atStop = await until('mid-book', (row) => row.chapters.length >= BOOK_CHAPTERS / 2, 600_000);
      await stack.stopMinio();
      log(`minio stopped with ${atStop.chapters.length} chapters converted`);
      findings.notes.push(`MinIO stopped ${BOOK_OUTAGE_MS / 1000} s after ${atStop.chapters.length} chapters`);
      await sleep(BOOK_OUTAGE_MS);
      await stack.startMinio();
      log('minio back');

      const deadline = Date.now() + 600_000;
      let done = await snapshot();
      while (['queued', 'converting'].includes(done.status) && Date.now() < deadline) {
        await sleep(500);
        done = await snapshot();
      }
      while (
        Date.now() < deadline &&
        (await stack.temporal.workflow.getHandle(`project-conversion:${snapshotId}`).describe()).status.name ===
          'RUNNING'
      )
        await sleep(500);

      expect(
        findings,
        done.status === 'completed',
        'conversion not completed',
        () => `snapshot ${snapshotId}: ${done.status} ${JSON.stringify(done.error)}`,
      );
      // Every block rendered and charged once, its own characters; nothing reused.
      const captures: { reference: string; amount: string }[] = await stack
        .db('credit_ledger')
        .where({ account_id: account.id, kind: 'capture' })
        .select('reference', 'amount');
      const charged = new Map<string, number[]>();
      for (const row of captures)
        charged.set(row.reference, [...(charged.get(row.reference) ?? []), Number(row.amount)]);
      for (const block of blocks) {
        const amounts = charged.get(`block:${snapshotId}:${block.id}`) ?? [];
        expect(
          findings,
          amounts.length === 1 && amounts[0] === block.characters,
          'block not charged exactly once',
          () =>
            `block ${block.id} (${block.title}): charged [${amounts.join(', ')}], its characters ${block.characters}`,
        );
      }
      expect(
        findings,
        captures.length === blocks.length,
        'captures for other blocks',
        () => `${captures.length} captures for ${blocks.length} blocks`,
      );
      expect(
        findings,
        done.blocks_rendered === blocks.length &&
          done.blocks_reused === 0 &&
          done.characters_rendered === characters &&
          done.credits_charged === characters,
        'snapshot counts',
        () =>
          `blocks_rendered ${done.blocks_rendered} / reused ${done.blocks_reused} of ${blocks.length}; characters_rendered ${done.characters_rendered}, credits_charged ${done.credits_charged}, want ${characters}`,
      );
      const [{ rows: audioRows }] = await stack
        .db('block_audio')
        .where({ account_id: account.id })
        .count<{ rows: string }[]>({ rows: '*' });
      expect(
        findings,
        Number(audioRows) === blocks.length,
        'block audio rows ≠ blocks',
        () => `${audioRows} block_audio rows for ${blocks.length} blocks of distinct text`,
      );
      const row = await stack.db('accounts').where({ id: account.id }).first('credit_balance', 'credits_reserved');
      expect(
        findings,
        Number(row.credit_balance) === 100_000 - characters && Number(row.credits_reserved) === 0,
        'balance moved by other than the characters',
        () =>
          `balance ${row.credit_balance} (granted 100000, characters ${characters}), reserved ${row.credits_reserved}`,
      );

      // The M4B, as a client downloads it: its chapters are the book's.
      const m4b = await fetch(
        `${stack.apiUrl}/api/v1/projects/${projectId}/snapshots/${snapshotId}/audio/?format=m4b`,
        {
          headers: { Authorization: `Bearer ${account.token}` },
        },
      );
      let chapterTitles: (string | undefined)[] = [];
      if (m4b.ok) {
        const dir = await mkdtemp(path.join(tmpdir(), 'chaos-book-'));
        try {
          const file = path.join(dir, 'book.m4b');
          await writeFile(file, Buffer.from(await m4b.arrayBuffer()));
          const { stdout } = await run('ffprobe', ['-v', 'error', '-show_chapters', '-of', 'json', file]);
          chapterTitles = (JSON.parse(stdout) as { chapters: { tags?: { title?: string } }[] }).chapters.map(
            (chapter) => chapter.tags?.title,
          );
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }
      expect(
        findings,
        m4b.status === 200 && JSON.stringify(chapterTitles) === JSON.stringify(titles),
        'M4B chapters',
        () =>
          `GET audio?format=m4b ${m4b.status}; its chapters ${JSON.stringify(chapterTitles)}, want ${JSON.stringify(titles)}`,
      );
      return { accounts: [account], answers: [], accepted: new Set(), expectAllCompleted: true, no503: false };
    },
  },
  {
    name: 'cloning: kill -9 worker mid-clone, MinIO stopped 30 s as the clones are retried',
    async run(context) {
      const { stack, findings, log } = context;
      const accounts = await stack.createAccounts(2, { credits: 100_000, plan: 'pro' });
      // The premade voices' previews, rendered once at the stack's first start, would hold the CPU queue's slots
      // and move when the clones' steps run: they are done first.
      await untilPreviewsDone(stack);
      const sample = await makeCloneSample();
      const upload = async (account: StackAccount, n: number) => {
        const response = await fetch(`${stack.apiUrl}/api/v1/voices/upload/`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${account.token}` },
          body: cloneUploadForm(sample, `Chaos clone ${n}`),
        });
        const body = (await response.json()) as { id?: string };
        if (response.status !== 202 || !body.id) throw new Error(`clone upload answered ${response.status}`);
        return { account, voiceId: body.id };
      };
      const clones = await Promise.all(
        Array.from({ length: CLONES }, (_, n) => upload(accounts[n % accounts.length], n)),
      );
      findings.notes.push(`${clones.length} clones of a ${(sample.length / 32_000).toFixed(1)} s sample`);
      // Mid-clone: every sample decoded and stored (its normalized WAV), the profiles being built.
      const storage = createStorage(stack.config);
      const decoded = async () =>
        (
          await Promise.all(clones.map((c) => storage.size(`samples/${c.account.id}/${c.voiceId}/normalized.wav`)))
        ).every((size) => size !== null);
      const decodedBy = Date.now() + 180_000;
      while (!(await decoded()) && Date.now() < decodedBy) await sleep(200);
      await stack.killWorkers();
      log(`worker killed with ${clones.length} clones building their profiles`);
      await sleep(2_000);
      // A worker needs storage to start: storage goes once it is back, and stays down past the killed steps'
      // heartbeat timeout (20 s), when they are retried and read the sample again.
      await stack.startWorkers(1);
      await stack.stopMinio();
      log('minio stopped');
      await sleep(CLONE_OUTAGE_MS);
      await stack.startMinio();
      log('minio back');

      const voices = async () =>
        (await stack.db('voices').whereIn(
          'id',
          clones.map((clone) => clone.voiceId),
        )) as { id: string; account_id: string; status: string; similarity: number | null; error: unknown }[];
      const deadline = Date.now() + 600_000;
      let rows = await voices();
      while (rows.some((row) => row.status === 'processing') && Date.now() < deadline) {
        await sleep(500);
        rows = await voices();
      }
      for (const row of rows) {
        expect(
          findings,
          row.status === 'ready' && row.similarity !== null,
          'clone not ready',
          () => `voice ${row.id}: ${row.status}, similarity ${row.similarity} ${JSON.stringify(row.error)}`,
        );
        for (const file of ['original', 'normalized.wav']) {
          const key = `samples/${row.account_id}/${row.id}/${file}`;
          expect(
            findings,
            (await storage.size(key)) !== null,
            'ready clone without its sample',
            () => `${key} missing`,
          );
        }
      }
      // Nothing in storage for a voice that does not exist.
      const known = new Set(rows.map((row) => row.id));
      for (const account of accounts)
        for (const key of await storage.list(`samples/${account.id}/`))
          expect(findings, known.has(key.split('/')[2]), 'orphan sample object', () => `${key}: no such voice`);

      // A clone speaks: one synthesis with it, checked with the others (charged once, its audio stored).
      const accepted = new Set<string>();
      const [first] = clones;
      const spoken = await call(stack.apiUrl, first.account, 'POST', '/api/v1/tts/synthesize/', {
        text: 'The clone speaks after the fault.',
        voice_id: first.voiceId,
      });
      expect(findings, spoken.status === 202, 'synthesis with the clone refused', () => `answered ${spoken.status}`);
      if (spoken.body?.id) accepted.add(spoken.body.id as string);
      return { accounts, answers: [], accepted, expectAllCompleted: true, no503: false };
    },
  },
];
