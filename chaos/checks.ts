import { WorkflowNotFoundError } from '@temporalio/client';
import { timestampsKey } from '../synthesis/objects';
import { accountBlocksPrefix, accountSnapshotsPrefix, blockWordsKey } from '../studio/conversion';
import { createStorage } from '../lib/storage';
import { creditsFor } from '../synthesis/cost';
import type { IsolatedStack } from '../scripts/isolatedStack';

/** What the checks read: the stack's database, Temporal client and storage settings (one host or many). */
export type Observed = Pick<IsolatedStack, 'db' | 'temporal' | 'config'>;

/**
 * What must hold after every scenario, read from outside: PostgreSQL (the
 * ledger is the truth), MinIO, and Temporal only to ask whether a workflow
 * still runs. Nothing here knows how the service got there.
 */

export interface Violation {
  /** Which invariant or expectation: violations are grouped by it. */
  check: string;
  detail: string;
}

export interface Findings {
  /** Assertions evaluated. */
  checks: number;
  violations: Violation[];
  notes: string[];
}

export const newFindings = (): Findings => ({ checks: 0, violations: [], notes: [] });

/** Counts one assertion; records a violation of `check` when it does not hold. */
export function expect(findings: Findings, holds: boolean, check: string, detail: () => string): void {
  findings.checks += 1;
  if (!holds) findings.violations.push({ check, detail: detail() });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Ledger references of Studio (db/models/ProjectSnapshot.ts, studio/conversion.ts): not syntheses. */
const STUDIO_REFERENCE = /^(conversion|block|block-render):/;
const ENDED = new Set(['completed', 'failed', 'canceled']);

interface SynthesisRecord {
  id: string;
  account_id: string;
  status: string;
  characters: number;
  credits_charged: number;
  audio_key: string | null;
  output_format: string;
  deleted_at: Date | null;
  error: { code?: string } | null;
}

interface LedgerRecord {
  account_id: string;
  kind: 'grant' | 'reserve' | 'capture' | 'release';
  reference: string;
  amount: string;
}

/** Workflow ids running now; `synthesis:`, `credits:` and any other the service started. */
export async function runningWorkflows(stack: Observed): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const execution of stack.temporal.workflow.list({ query: 'ExecutionStatus="Running"' }))
    ids.add(execution.workflowId);
  return ids;
}

async function workflowRunning(stack: Observed, workflowId: string): Promise<boolean> {
  try {
    return (await stack.temporal.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * Waits (bounded) until the scenario's syntheses have all ended and no
 * workflow is running beyond those that already ran before the scenario
 * and those matching `longLived` (entity workflows that never end, e.g. an
 * account's ledger, started for the scenario's new accounts). `tick` runs on
 * every round (the suite restarts crashed processes there, as a supervisor would).
 * Returns how long it took, or null when the bound ran out.
 */
export async function waitQuiescent(
  stack: Observed,
  accountIds: string[],
  before: Set<string>,
  timeoutMs: number,
  tick: () => Promise<void>,
  longLived?: RegExp,
): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    await tick();
    try {
      const [{ open }] = await stack
        .db('syntheses')
        .whereIn('account_id', accountIds)
        .whereIn('status', ['queued', 'processing'])
        .count<{ open: string }[]>({ open: '*' });
      if (Number(open) === 0) {
        const running = [...(await runningWorkflows(stack))].filter((id) => !before.has(id) && !longLived?.test(id));
        if (running.length === 0) return Date.now() - started;
      }
    } catch {
      // Temporal restarting: ask again.
    }
    await sleep(1_000);
  }
  return null;
}

export interface Scope {
  /** The scenario's accounts: every check reads only their rows and objects. */
  accountIds: string[];
  /** Synthesis ids a client received a 202 for. */
  accepted: Set<string>;
  /** Object keys already reported by an earlier scenario (an orphan is reported once). */
  reportedKeys: Set<string>;
}

export interface Tally {
  completed: number;
  failed: number;
  canceled: number;
  /** Error codes of the failed ones. */
  failureCodes: Map<string, number>;
}

/** Every invariant of the issue, over the scenario's accounts. */
export async function checkInvariants(stack: Observed, scope: Scope, findings: Findings): Promise<Tally> {
  const { db } = stack;
  const syntheses: SynthesisRecord[] = await db('syntheses')
    .whereIn('account_id', scope.accountIds)
    .select(
      'id',
      'account_id',
      'status',
      'characters',
      'credits_charged',
      'audio_key',
      'output_format',
      'deleted_at',
      'error',
    );
  const ledger: LedgerRecord[] = await db('credit_ledger')
    .whereIn('account_id', scope.accountIds)
    .select('account_id', 'kind', 'reference', 'amount');
  const accounts: { id: string; credit_balance: string; credits_reserved: string }[] = await db('accounts')
    .whereIn('id', scope.accountIds)
    .select('id', 'credit_balance', 'credits_reserved');
  const byId = new Map(syntheses.map((row) => [row.id, row]));
  const steps = new Map<string, LedgerRecord[]>();
  for (const row of ledger)
    if (row.kind !== 'grant')
      steps.set(`${row.account_id}/${row.reference}`, [
        ...(steps.get(`${row.account_id}/${row.reference}`) ?? []),
        row,
      ]);
  const stepsOf = (accountId: string, reference: string) => steps.get(`${accountId}/${reference}`) ?? [];
  const count = (rows: LedgerRecord[], kind: LedgerRecord['kind']) => rows.filter((row) => row.kind === kind).length;
  const tally: Tally = { completed: 0, failed: 0, canceled: 0, failureCodes: new Map() };

  // 1. Every accepted job ended: completed and charged once, or failed/canceled with its credits released.
  for (const id of scope.accepted) {
    const row = byId.get(id);
    expect(
      findings,
      row !== undefined,
      'accepted job has no synthesis',
      () => `accepted job ${id}: no synthesis row (202 answered for a synthesis that does not exist)`,
    );
    if (!row) continue;
    expect(
      findings,
      ENDED.has(row.status),
      'accepted job never ended',
      () => `accepted job ${id}: still ${row.status} after the quiescence wait`,
    );
    const rows = stepsOf(row.account_id, id);
    if (row.status === 'completed') {
      tally.completed += 1;
      expect(
        findings,
        count(rows, 'capture') === 1 && count(rows, 'release') === 0,
        'completed job not captured exactly once',
        () =>
          `accepted job ${id}: completed but ledger has ${count(rows, 'capture')} capture / ${count(rows, 'release')} release`,
      );
      expect(
        findings,
        Number(row.credits_charged) === creditsFor(row),
        'completed job charged a wrong amount',
        () => `accepted job ${id}: completed with credits_charged ${row.credits_charged}, cost ${creditsFor(row)}`,
      );
    } else if (row.status === 'failed' || row.status === 'canceled') {
      tally[row.status] += 1;
      if (row.status === 'failed') {
        const code = row.error?.code ?? '(none)';
        tally.failureCodes.set(code, (tally.failureCodes.get(code) ?? 0) + 1);
      }
      expect(
        findings,
        count(rows, 'release') === 1 && count(rows, 'capture') === 0,
        'failed/canceled job not released exactly once',
        () =>
          `accepted job ${id}: ${row.status} but ledger has ${count(rows, 'release')} release / ${count(rows, 'capture')} capture`,
      );
      expect(
        findings,
        Number(row.credits_charged) === 0,
        'failed/canceled job charged',
        () => `accepted job ${id}: ${row.status} with credits_charged ${row.credits_charged}`,
      );
    }
  }

  // 2. Syntheses nobody was told about (the answer was lost) must have ended too.
  for (const row of syntheses) {
    if (scope.accepted.has(row.id)) continue;
    expect(
      findings,
      ENDED.has(row.status) || (await workflowRunning(stack, `synthesis:${row.id}`)),
      'unacknowledged synthesis open with no workflow',
      () => `synthesis ${row.id} (no 202 seen by its client): ${row.status} with no running workflow`,
    );
  }

  // 3. No reservation without an owner; no double charge. (Studio's references are checkStudio's.)
  for (const [scopeKey, rows] of steps) {
    const [accountId, reference] = scopeKey.split('/');
    if (STUDIO_REFERENCE.test(reference)) continue;
    const reserves = count(rows, 'reserve');
    const captures = count(rows, 'capture');
    const releases = count(rows, 'release');
    expect(
      findings,
      captures <= 1,
      'double charge',
      () => `reference ${reference}: ${captures} captures (double charge)`,
    );
    expect(
      findings,
      !(captures > 0 && releases > 0),
      'captured and released',
      () => `reference ${reference}: both captured and released`,
    );
    expect(
      findings,
      reserves === 1 || captures + releases === 0,
      'settlement without reservation',
      () => `reference ${reference}: ${captures + releases} settlements without a reservation`,
    );
    const amounts = new Set(rows.map((row) => row.amount));
    expect(
      findings,
      amounts.size === 1,
      'ledger amounts differ',
      () => `reference ${reference}: ledger amounts differ (${[...amounts].join(', ')})`,
    );
    if (reserves === 1) {
      expect(
        findings,
        byId.has(reference),
        'reservation for no synthesis',
        () =>
          `reference ${reference}: reservation of ${rows[0].amount} credits for a synthesis that does not exist (account ${accountId})`,
      );
      if (captures + releases === 0) {
        const live = await workflowRunning(stack, `synthesis:${reference}`);
        expect(
          findings,
          live,
          'reservation held with no live workflow',
          () =>
            `reference ${reference}: ${rows[0].amount} credits reserved, never captured or released, and no running workflow synthesis:${reference}`,
        );
        if (live) findings.notes.push(`reference ${reference}: reservation still held by its running workflow`);
      }
    }
  }

  // 4. Per account: balance + reserved + captured == granted, nothing negative, reserved == open reservations.
  for (const account of accounts) {
    const rows = ledger.filter((row) => row.account_id === account.id);
    const sum = (kind: LedgerRecord['kind']) =>
      rows.filter((row) => row.kind === kind).reduce((total, row) => total + Number(row.amount), 0);
    const balance = Number(account.credit_balance);
    const reserved = Number(account.credits_reserved);
    const [granted, captured] = [sum('grant'), sum('capture')];
    expect(
      findings,
      balance + reserved + captured === granted,
      'balance + reserved + captured ≠ granted',
      () =>
        `account ${account.id}: balance ${balance} + reserved ${reserved} + captured ${captured} = ${balance + reserved + captured} ≠ granted ${granted}`,
    );
    expect(
      findings,
      balance >= 0 && reserved >= 0,
      'negative balance',
      () => `account ${account.id}: negative balance ${balance} or reserved ${reserved}`,
    );
    const open = sum('reserve') - captured - sum('release');
    expect(
      findings,
      reserved === open,
      'credits_reserved ≠ open reservations',
      () => `account ${account.id}: credits_reserved ${reserved} but open reservations in the ledger total ${open}`,
    );
  }

  // 5. MinIO: no orphan object, no lost audio.
  const storage = createStorage(stack.config);
  const ownKeys = new Set<string>();
  for (const accountId of scope.accountIds)
    for (const key of await storage.list(`syntheses/${accountId}/`)) ownKeys.add(key);
  for (const key of ownKeys) {
    // Its audio, and the word timestamps beside it (engines that give timing): `<id>.<format>`, `<id>.timestamps.json`.
    const id = /^syntheses\/[^/]+\/([^/.]+)\.[a-z0-9.]+$/.exec(key)?.[1];
    const row = id ? byId.get(id) : undefined;
    const owned =
      !!row &&
      row.status === 'completed' &&
      !row.deleted_at &&
      (row.audio_key === key || timestampsKey(row.account_id, row.id) === key);
    if (!owned && scope.reportedKeys.has(key)) continue;
    expect(
      findings,
      owned,
      'orphan audio object',
      () =>
        `orphan object ${key}: ${row ? `synthesis is ${row.status}${row.deleted_at ? ', deleted' : ''}, audio_key ${row.audio_key ?? 'null'}` : 'no such synthesis'}`,
    );
    if (!owned) scope.reportedKeys.add(key);
  }
  for (const row of syntheses) {
    if (row.status !== 'completed' || row.deleted_at) continue;
    expect(
      findings,
      !!row.audio_key && ownKeys.has(row.audio_key),
      'lost audio',
      () =>
        `synthesis ${row.id}: completed and not deleted, but its audio ${row.audio_key ?? '(no key)'} is not in storage`,
    );
  }
  // Chunk objects of every synthesis (chunks are keyed by synthesis id only): none may outlive its synthesis.
  const chunkIds = new Map<string, string[]>();
  for (const key of await storage.list('work/syntheses/')) {
    const id = key.split('/')[2];
    chunkIds.set(id, [...(chunkIds.get(id) ?? []), key]);
  }
  for (const [id, keys] of chunkIds) {
    const row = byId.get(id) ?? (await db('syntheses').where({ id }).first('id', 'status'));
    const open = row && !ENDED.has(row.status);
    if (!open && keys.every((key) => scope.reportedKeys.has(key))) continue;
    expect(
      findings,
      !!open,
      'orphan chunk objects',
      () =>
        `orphan chunk objects work/syntheses/${id}/ (${keys.length}): synthesis ${row ? `is ${row.status}` : 'does not exist'}`,
    );
    if (!open) for (const key of keys) scope.reportedKeys.add(key);
  }
  return tally;
}

export interface Settling extends Scope {
  /** Workflow ids that ran before the load (not waited for). */
  before: Set<string>;
  /** The bound on the wait for quiescence. */
  quiesceMs: number;
  /** Runs on every round of the wait (see waitQuiescent); nothing by default. */
  tick?: () => Promise<void>;
  /** Workflow ids that never end (see waitQuiescent). */
  longLived?: RegExp;
  /** Every accepted job must have completed (no fault should have failed one). */
  allCompleted: boolean;
}

/**
 * After a load: waits until it is quiet, then checks every invariant over its
 * accounts, and (with `allCompleted`) that every accepted job completed.
 * Violations and notes go to `findings`.
 */
export async function settle(stack: Observed, settling: Settling, findings: Findings): Promise<Tally> {
  const { accountIds, before, quiesceMs, tick = async () => undefined, longLived } = settling;
  const quietAfter = await waitQuiescent(stack, accountIds, before, quiesceMs, tick, longLived);
  expect(
    findings,
    quietAfter !== null,
    'not quiescent',
    () => `not quiescent within ${quiesceMs / 1000} s (syntheses still open or workflows still running)`,
  );
  if (quietAfter !== null) findings.notes.push(`quiescent ${(quietAfter / 1000).toFixed(1)} s after the load`);
  const tally = await checkInvariants(stack, settling, findings);
  if (settling.allCompleted) {
    const notCompleted = settling.accepted.size - tally.completed;
    expect(
      findings,
      notCompleted === 0,
      'accepted jobs not completed',
      () =>
        `${notCompleted} of ${settling.accepted.size} accepted jobs did not complete (failure codes: ${[...tally.failureCodes].map(([code, n]) => `${n} × ${code}`).join(', ') || 'none'}; canceled: ${tally.canceled})`,
    );
  }
  return tally;
}

/** One run of a load under a fault, as the suite and the multi-node harness print it. */
export interface RunRow {
  name: string;
  accepted: number;
  completed: number;
  failed: number;
  canceled: number;
  findings: Findings;
  seconds: number;
}

/**
 * The violations (grouped by check, `shown` details each) and notes of every
 * row that has any, as text; then the total violation count.
 */
export function findingsReport(rows: RunRow[], shown: number): { text: string; violations: number } {
  let text = '';
  for (const { name, findings } of rows) {
    if (!findings.violations.length && !findings.notes.length) continue;
    text += `\n${name}\n`;
    const groups = new Map<string, string[]>();
    for (const { check, detail } of findings.violations) groups.set(check, [...(groups.get(check) ?? []), detail]);
    for (const [check, details] of groups) {
      text += `  VIOLATION ${check} (${details.length})\n`;
      for (const detail of details.slice(0, shown)) text += `    - ${detail}\n`;
      if (details.length > shown) text += `    - … and ${details.length - shown} more\n`;
    }
    for (const note of findings.notes) text += `  note: ${note}\n`;
  }
  return { text, violations: rows.reduce((sum, row) => sum + row.findings.violations.length, 0) };
}

interface SnapshotRecord {
  id: string;
  account_id: string;
  project_id: string;
  status: string;
  credits_charged: number;
  characters_rendered: number;
  blocks_rendered: number;
  outputs: Record<string, unknown>;
}

/** Every object key a snapshot's `outputs` names: the book's files and each converted chapter's WAV and captions. */
export function snapshotFiles(outputs: Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const [name, value] of Object.entries(outputs)) {
    if (name === 'captions' && value && typeof value === 'object') {
      for (const files of Object.values(value as Record<string, Record<string, string>>))
        keys.push(...Object.values(files).filter((key): key is string => typeof key === 'string'));
    } else if (typeof value === 'string') keys.push(value);
  }
  return keys;
}

/**
 * Studio's credit and storage invariants over the accounts' conversions and
 * block renders (db/models/ProjectSnapshot.ts; the key layout of
 * studio/conversion.ts), read from outside once the system is quiet:
 *
 * - a conversion reserved once (`conversion:<snapshot>`); once ended it
 *   released once what its blocks did not take (reserve = captures +
 *   release); while it runs, its workflow is live;
 * - each block captured at most once (`block:<snapshot>:<block>`, never
 *   released), the captures adding up to the snapshot's `credits_charged`
 *   and counting its `blocks_rendered`;
 * - an on-demand render (`block-render:<id>`) settled once, or still running;
 * - storage: every object under `blocks/<account>/` is a `block_audio` row's
 *   audio or its words; every object under `snapshots/<account>/<snapshot>/`
 *   is a file its snapshot's `outputs` names; every file a completed snapshot
 *   names, and every row's block audio, exists.
 */
export async function checkStudio(
  stack: Observed,
  scope: Pick<Scope, 'accountIds' | 'reportedKeys'>,
  findings: Findings,
): Promise<void> {
  const { db } = stack;
  const snapshots: SnapshotRecord[] = await db('project_snapshots')
    .whereIn('account_id', scope.accountIds)
    .select(
      'id',
      'account_id',
      'project_id',
      'status',
      'credits_charged',
      'characters_rendered',
      'blocks_rendered',
      'outputs',
    );
  const ledger: LedgerRecord[] = await db('credit_ledger')
    .whereIn('account_id', scope.accountIds)
    .where((query) =>
      query
        .where('reference', 'like', 'conversion:%')
        .orWhere('reference', 'like', 'block:%')
        .orWhere('reference', 'like', 'block-render:%'),
    )
    .select('account_id', 'kind', 'reference', 'amount');
  const byReference = new Map<string, LedgerRecord[]>();
  for (const row of ledger) byReference.set(row.reference, [...(byReference.get(row.reference) ?? []), row]);
  const count = (rows: LedgerRecord[], kind: LedgerRecord['kind']) => rows.filter((row) => row.kind === kind).length;
  const total = (rows: LedgerRecord[], kind: LedgerRecord['kind']) =>
    rows.filter((row) => row.kind === kind).reduce((sum, row) => sum + Number(row.amount), 0);
  const snapshotIds = new Set(snapshots.map((snapshot) => snapshot.id));

  for (const snapshot of snapshots) {
    const own = byReference.get(`conversion:${snapshot.id}`) ?? [];
    const blocks = ledger.filter((row) => row.reference.startsWith(`block:${snapshot.id}:`));
    const ended = ENDED.has(snapshot.status);
    const [reserves, releases, captured] = [count(own, 'reserve'), count(own, 'release'), total(blocks, 'capture')];
    expect(
      findings,
      reserves === 1 && count(own, 'capture') === 0,
      'conversion not reserved once',
      () => `snapshot ${snapshot.id}: ${reserves} reserves and ${count(own, 'capture')} captures of its own reference`,
    );
    if (ended) {
      expect(
        findings,
        releases === 1 && total(own, 'reserve') === captured + total(own, 'release'),
        'conversion reservation not settled',
        () =>
          `snapshot ${snapshot.id} (${snapshot.status}): reserved ${total(own, 'reserve')}, its blocks captured ${captured}, ${releases} releases of ${total(own, 'release')}`,
      );
    } else {
      expect(
        findings,
        releases === 0 && (await workflowRunning(stack, `project-conversion:${snapshot.id}`)),
        'open conversion with no workflow',
        () => `snapshot ${snapshot.id}: ${snapshot.status}, ${releases} releases, no running workflow`,
      );
    }
    const perBlock = new Map<string, LedgerRecord[]>();
    for (const row of blocks) perBlock.set(row.reference, [...(perBlock.get(row.reference) ?? []), row]);
    for (const [reference, rows] of perBlock)
      expect(
        findings,
        count(rows, 'capture') === 1 && rows.length === 1,
        'block charged more than once',
        () => `${reference}: ${rows.map((row) => `${row.kind} ${row.amount}`).join(', ')}`,
      );
    expect(
      findings,
      Number(snapshot.credits_charged) === captured && Number(snapshot.blocks_rendered) === perBlock.size,
      'snapshot counts ≠ its captures',
      () =>
        `snapshot ${snapshot.id}: credits_charged ${snapshot.credits_charged}, blocks_rendered ${snapshot.blocks_rendered}; the ledger has ${perBlock.size} block captures totalling ${captured}`,
    );
  }
  for (const [reference, rows] of byReference) {
    if (reference.startsWith('block:') && !snapshotIds.has(reference.split(':')[1]))
      expect(findings, false, 'block charged for no snapshot', () => `${reference}: no such snapshot`);
    if (!reference.startsWith('block-render:')) continue;
    const settled = count(rows, 'capture') + count(rows, 'release');
    expect(
      findings,
      count(rows, 'reserve') === 1 && settled <= 1,
      'block render not settled once',
      () => `${reference}: ${rows.map((row) => `${row.kind} ${row.amount}`).join(', ')}`,
    );
    if (settled === 0) findings.notes.push(`${reference}: reservation still open`);
  }

  const storage = createStorage(stack.config);
  const audio: { account_id: string; content_hash: string; audio_key: string }[] = await db('block_audio')
    .whereIn('account_id', scope.accountIds)
    .select('account_id', 'content_hash', 'audio_key');
  const blockKeys = new Set(audio.flatMap((row) => [row.audio_key, blockWordsKey(row.account_id, row.content_hash)]));
  const named = new Set(snapshots.flatMap((snapshot) => snapshotFiles(snapshot.outputs)));
  const stored = new Set<string>();
  for (const accountId of scope.accountIds) {
    for (const key of await storage.list(accountBlocksPrefix(accountId))) stored.add(key);
    for (const key of await storage.list(accountSnapshotsPrefix(accountId))) stored.add(key);
  }
  for (const key of stored) {
    const owned = key.startsWith('blocks/') ? blockKeys.has(key) : named.has(key);
    if (!owned && scope.reportedKeys.has(key)) continue;
    expect(findings, owned, 'orphan Studio object', () => {
      const snapshotId = key.split('/')[2];
      return `orphan object ${key}: ${key.startsWith('blocks/') ? 'no block_audio row' : snapshotIds.has(snapshotId) ? 'not named by its snapshot' : 'no such snapshot'}`;
    });
    if (!owned) scope.reportedKeys.add(key);
  }
  for (const row of audio)
    expect(
      findings,
      stored.has(row.audio_key),
      'lost block audio',
      () => `block_audio ${row.content_hash}: ${row.audio_key} is not in storage`,
    );
  for (const snapshot of snapshots.filter((one) => one.status === 'completed'))
    for (const key of snapshotFiles(snapshot.outputs))
      expect(
        findings,
        stored.has(key),
        'lost snapshot file',
        () => `snapshot ${snapshot.id}: ${key} is not in storage`,
      );
}
