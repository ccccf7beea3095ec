import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import type { Account } from '../../../db/models/Account';
import { Project } from '../../../db/models/Project';
import { SubscriptionPlan } from '../../../db/models/SubscriptionPlan';
import { Voice } from '../../../db/models/Voice';
import { awaitBriefly, cpuTaskQueue, requestCancel, startRemoval } from '../../../lib/temporal';
import {
  reserveUpdate,
  synthesisDeletionWorkflowId,
  synthesisWorkflowId,
  type SynthesisInput,
  type SynthesisRequest,
} from '../../../synthesis/contracts';
import type { SynthesisStatus } from '../../../synthesis/status';
import { creditsFor } from '../../../synthesis/cost';
import { recordDeleted } from '../../../synthesis/lifecycle';
import { synthesis } from '../../../workflows/synthesis';
import { synthesisDeletion } from '../../../workflows/deletion';
import type { ApiDeps } from '../../deps';
import { notFound, serviceUnavailable, validationError, voiceConsentRevoked, voiceNotReady } from '../../errors';
import { creditShortfall } from '../../credits';
import type { SynthesizeBody } from './schema';
import { resolveDictionaryIds } from '../pronunciationDictionaries/commands';
import { statusCacheOf } from './statusCache';
import { readOnThread } from '../../text/thread';
import type { ReadText, TextOutcome } from '../../text/reading';
import { STATUS_COLUMNS, Synthesis, type SynthesisRow, type SynthesisStatusRow } from '../../../db/models/Synthesis';

/** A workflow that does not answer by then (no live worker) gets the client a 503 with Retry-After, not a hung request. */
const deadline = (deps: ApiDeps) => Date.now() + deps.config.SUBMIT_TIMEOUT_SECONDS * 1000;

/** The text as it is charged and spoken: trimmed and NFC-normalized; its length in code points. */
function normalizeText(raw: string): { text: string; characters: number } {
  const text = raw.trim().normalize('NFC');
  return { text, characters: [...text].length };
}

async function checkRequest(deps: ApiDeps, account: Account, body: SynthesizeBody) {
  const plan = await SubscriptionPlan.query(deps.db).findById(account.subscription_tier).throwIfNotFound();
  const { text, characters } = normalizeText(body.text);
  if (characters === 0) throw validationError({ text: ['Must not be empty.'] });
  if (characters > plan.max_text_length) {
    throw validationError({
      text: [`Must be at most ${plan.max_text_length} characters on the ${plan.name} plan (got ${characters}).`],
    });
  }
  if (!/[\p{L}\p{N}]/u.test(text)) throw validationError({ text: ['Must contain a letter or a digit.'] });
  if (!plan.output_formats.includes(body.output_format)) {
    throw validationError({ output_format: [`Not available on the ${plan.name} plan.`] });
  }
  const voice = await Voice.query(deps.db)
    .modify('visibleTo', account)
    .findById(body.voice_id)
    .select('id', 'status', 'language');
  if (!voice) throw validationError({ voice_id: ['Unknown voice.'] });
  if (voice.status === 'revoked') throw voiceConsentRevoked();
  if (voice.status !== 'ready') throw voiceNotReady();
  if (body.project_id !== undefined && body.project_id !== null) {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(body.project_id);
    const project = uuid
      ? await Project.query(deps.db).modify('ownedBy', account).findById(body.project_id).select('id')
      : null;
    if (!project) throw validationError({ project_id: ['Unknown project.'] });
  }
  const pronunciationDictionaryIds = await resolveDictionaryIds(
    deps.db,
    account,
    body.pronunciation_dictionary_ids,
    body.project_id,
  );
  const { textType, warnings, spokenCharacters, voices } = readOrRefuse(
    await readOnThread(
      deps.db,
      { text, askedType: body.text_type, language: voice.language },
      pronunciationDictionaryIds,
    ),
  );
  await checkDocumentVoices(deps, account, voices);
  checkSpokenLength(spokenCharacters, characters, plan);
  return { text, characters, spokenCharacters, pronunciationDictionaryIds, textType, warnings };
}

/**
 * The voices an SSML document's <voice name> elements name: each must be one
 * the account may use and ready, as the request's own voice must (another
 * account's clone is as unknown as a made-up id). Checked before anything is reserved.
 */
async function checkDocumentVoices(deps: ApiDeps, account: Account, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await Voice.query(deps.db)
    .modify('visibleTo', account)
    .whereIn('id', [...ids])
    .select('id', 'status');
  const problems = ids.flatMap((id) => {
    const voice = found.find((candidate) => candidate.id === id);
    if (!voice) return [`<voice name="${id}">: unknown voice (GET /voices/ lists the ones you can use).`];
    if (voice.status === 'revoked') return [`<voice name="${id}">: its consent was revoked.`];
    if (voice.status !== 'ready') return [`<voice name="${id}">: the voice is not ready yet.`];
    return [];
  });
  if (problems.length > 0) throw validationError({ text: problems });
}

/** What the text thread read, or the 400 it gives: an invalid SSML document (its line and column), or one with nothing to say. */
export function readOrRefuse(outcome: TextOutcome): ReadText {
  if ('refused' in outcome) throw validationError({ text: [outcome.refused] });
  return outcome.read;
}

/**
 * The plan's text limit holds for what is said, not only for what is
 * written: a dictionary whose aliases make a text say more than the limit is
 * refused before anything is reserved (what it says within the limit is
 * charged: synthesis/cost.ts).
 */
export function checkSpokenLength(
  spoken: number,
  written: number,
  plan: Pick<SubscriptionPlan, 'max_text_length' | 'name'>,
): void {
  if (spoken <= plan.max_text_length || spoken <= written) return;
  throw validationError({
    text: [
      `With your pronunciation dictionaries' aliases this text says ${spoken} characters; the ${plan.name} plan allows at most ${plan.max_text_length}.`,
    ],
  });
}

/**
 * Checks the request, then hands it to its own `synthesis:<id>` workflow with
 * Update-with-Start: the workflow reserves the credits and records the
 * synthesis in one transaction and answers the `reserve` update (402 when the
 * balance is short). The API holds nothing: if it dies or times out after
 * the start, the workflow still settles its reservation, and a repeat with
 * the same id (an Idempotency-Key binds one) reaches the same workflow and
 * gets the same answer.
 */
export async function submitSynthesis(
  deps: ApiDeps,
  account: Account,
  body: SynthesizeBody,
  id: string = randomUUID(),
  { streaming = false, partOf }: { streaming?: boolean; partOf?: SynthesisRequest['partOf'] } = {},
): Promise<{ row: SynthesisRow; warnings: string[] }> {
  const { db, temporal, config } = deps;
  const { text, characters, spokenCharacters, pronunciationDictionaryIds, textType, warnings } = await checkRequest(
    deps,
    account,
    body,
  );
  const request: SynthesisRequest = {
    synthesisId: id,
    accountId: account.id,
    projectId: body.project_id ?? null,
    voiceId: body.voice_id,
    text,
    characters,
    ...(spokenCharacters > characters && { spokenCharacters }),
    speed: body.speed,
    pitch: body.pitch,
    emotion: body.emotion,
    outputFormat: body.output_format,
    ...(streaming && { streaming }),
    textNormalization: body.text_normalization,
    ...(pronunciationDictionaryIds.length > 0 && { pronunciationDictionaryIds }),
    ...(textType === 'ssml' && { textType }),
    ...(partOf && { partOf }),
  };
  const input: SynthesisInput = { request, cpuTaskQueue: cpuTaskQueue(config) };
  const start = new WithStartWorkflowOperation(synthesis, {
    workflowId: synthesisWorkflowId(id),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    args: [input],
    searchAttributes: { Account: [account.id], VoiceId: [body.voice_id], Characters: [characters] },
    // One workflow per synthesis id, ever: a repeat joins the running one, and an ended one is never started again.
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
  });
  let reserved: boolean;
  try {
    const { outcome } = await temporal.connection.withDeadline(deadline(deps), () =>
      temporal.workflow.executeUpdateWithStart(reserveUpdate, { startWorkflowOperation: start, updateId: 'reserve' }),
    );
    reserved = outcome === 'reserved';
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    // A repeat after the workflow ended: its row exists if and only if it reserved.
    reserved = (await Synthesis.query(db).findById(id).select('id')) !== undefined;
  }
  if (!reserved) throw await creditShortfall(db, account.id, 'This synthesis', creditsFor(request));
  return { row: await Synthesis.query(db).findById(id).throwIfNotFound(), warnings };
}

/** The caller's synthesis (deleted ones and other accounts' are not found): all columns, or the given ones. */
async function findOwn<Row>(
  { db }: ApiDeps,
  account: Account,
  id: string,
  columns: readonly string[] = ['*'],
): Promise<Row> {
  const row = await Synthesis.query(db).modify('ownedBy', account).modify('live').findById(id).select(columns);
  if (!row) throw notFound('No such synthesis.');
  return row as Row;
}

export const findSynthesis = (deps: ApiDeps, account: Account, id: string) => findOwn<SynthesisRow>(deps, account, id);

/** The columns its status shows: a poll, the hottest request, does not fetch the text. */
export const findSynthesisStatus = (deps: ApiDeps, account: Account, id: string) =>
  findOwn<SynthesisStatusRow>(deps, account, id, STATUS_COLUMNS);

/** How long a cancel waits between two reads of the row when no notification comes (the listener is down). */
const CANCEL_FALLBACK_MS = 500;
const ENDED_STATUSES: ReadonlySet<SynthesisStatus> = new Set(['completed', 'failed', 'canceled']);

/**
 * Asks a running synthesis to cancel and waits until its row says it has
 * ended: `canceled` (its credits released), or `completed` when the audio
 * existed before the cancel landed (it stays charged), or `failed`. The
 * workflow records a cancel as soon as it has it, while its renders are
 * still being stopped, so this does not wait for a render to finish.
 */
export async function cancelSynthesis(deps: ApiDeps, id: string): Promise<SynthesisStatus> {
  const { db, temporal, progress } = deps;
  const handle = temporal.workflow.getHandle<typeof synthesis>(synthesisWorkflowId(id));
  const until = deadline(deps);
  // Watching before the cancel, so no notification after it is missed.
  const watch = await progress.watch(id);
  try {
    // Durable once the server has it: the workflow cancels even if this request dies now.
    // One that has already ended needs nothing: its row says how it ended.
    await temporal.connection.withDeadline(until, () => requestCancel(handle));
    for (;;) {
      const row = await Synthesis.query(db).findById(id).select('status');
      if (!row) throw notFound('No such synthesis.');
      if (ENDED_STATUSES.has(row.status)) return row.status;
      if (Date.now() >= until) throw serviceUnavailable('temporal');
      await watch.wait(Math.min(CANCEL_FALLBACK_MS, until - Date.now()));
    }
  } finally {
    watch.close();
  }
}

/**
 * Removes an entry from history. A queued or processing synthesis is canceled
 * first and the answer waits for how it ended: `canceled` (credits released)
 * or `completed` (it finished before the cancel landed: it stays charged).
 * The removal itself is a workflow, so a storage outage delays it but never
 * leaves the audio behind. Returns the synthesis's final status.
 */
export async function deleteSynthesis(deps: ApiDeps, account: Account, id: string): Promise<SynthesisStatus> {
  const { db, temporal } = deps;
  const row = await findSynthesisStatus(deps, account, id);
  let status = row.status;
  if (status === 'queued' || status === 'processing') status = await cancelSynthesis(deps, id);
  // Started before the row is marked: if this process dies in between, the entry is still there to delete again.
  const removal = await startRemoval(deps, {
    workflow: synthesisDeletion,
    workflowId: synthesisDeletionWorkflowId(id),
    id,
  });
  await recordDeleted(db, id);
  // Before the answer: this process's status cache forgets it at once (the others hear the trigger's NOTIFY).
  statusCacheOf(deps).forget(id);
  await awaitBriefly(temporal, removal);
  return status;
}
