import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import type { Account } from '../../../db/models/Account';
import { cpuTaskQueue } from '../../../lib/temporal';
import type { CreditStepInput, CreditStepResult } from '../../../activities/credits';
import type { SynthesisInput } from '../../../workflows/synthesis';
import { creditWorkflowId } from '../../../workflows/creditDeduction';
import type { ApiDeps } from '../../deps';
import { insufficientCredits, notFound, validationError, voiceNotReady } from '../../errors';
import type { SynthesizeBody } from './schema';
import { STATUS_COLUMNS, type SynthesisRow, type SynthesisStatusRow } from '../../../db/models/Synthesis';

const synthesisWorkflowId = (id: string) => `synthesis:${id}`;
/** Waiting on a workflow step needs a worker; without one the client gets a 503, not a hung request. */
const STEP_DEADLINE_MS = 15_000;

/** The text as it is charged and spoken: trimmed and NFC-normalized; its length in code points. */
export function normalizeText(raw: string): { text: string; characters: number } {
  const text = raw.trim().normalize('NFC');
  return { text, characters: [...text].length };
}

async function checkRequest(deps: ApiDeps, account: Account, body: SynthesizeBody) {
  const plan = await deps.db('subscription_plans').where({ id: account.subscription_tier }).first();
  const { text, characters } = normalizeText(body.text);
  if (characters === 0) throw validationError({ text: ['Must not be empty.'] });
  if (characters > plan.max_text_length) {
    throw validationError({ text: [`Must be at most ${plan.max_text_length} characters on the ${plan.name} plan (got ${characters}).`] });
  }
  if (!/[\p{L}\p{N}]/u.test(text)) throw validationError({ text: ['Must contain a letter or a digit.'] });
  if (!plan.output_formats.includes(body.output_format)) {
    throw validationError({ output_format: [`Not available on the ${plan.name} plan.`] });
  }
  const voice = await deps.db('voices')
    .where({ id: body.voice_id })
    .whereNull('deleted_at')
    .andWhere((query) => query.where({ category: 'premade', available: true }).orWhere({ category: 'cloned', account_id: account.id }))
    .first('id', 'status');
  if (!voice) throw validationError({ voice_id: ['Unknown voice.'] });
  if (voice.status !== 'ready') throw voiceNotReady();
  if (body.project_id !== undefined && body.project_id !== null) {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(body.project_id);
    const project = uuid ? await deps.db('projects').where({ id: body.project_id, account_id: account.id }).first('id') : null;
    if (!project) throw validationError({ project_id: ['Unknown project.'] });
  }
  return { text, characters };
}

/**
 * Checks the request, reserves the credits through the creditDeduction
 * workflow (402 when the balance is short), then records the synthesis and
 * starts its workflow. Nothing is recorded for a rejected request.
 */
export async function submitSynthesis(deps: ApiDeps, account: Account, body: SynthesizeBody, id: string = randomUUID()): Promise<SynthesisRow> {
  const { db, temporal, config } = deps;
  const { text, characters } = await checkRequest(deps, account, body);
  const reserve: CreditStepInput = { step: 'reserve', accountId: account.id, reference: id, amount: characters };
  const reserved = await temporal.connection.withDeadline(Date.now() + STEP_DEADLINE_MS, () =>
    temporal.workflow.execute<(input: CreditStepInput) => Promise<CreditStepResult>>('creditDeduction', {
      workflowId: creditWorkflowId('reserve', id),
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      args: [reserve],
    }),
  );
  if (reserved.outcome === 'insufficient') {
    throw insufficientCredits(`This synthesis costs ${characters} credits; the available balance is lower.`);
  }

  // The row is committed before the workflow starts: its first activity reads it.
  // A repeat of an Idempotency-Key whose first request died half-way finds its row here.
  await db('syntheses')
    .insert({
      id,
      account_id: account.id,
      project_id: body.project_id ?? null,
      voice_id: body.voice_id,
      text,
      characters,
      speed: body.speed,
      pitch: body.pitch,
      emotion: body.emotion,
      output_format: body.output_format,
    })
    .onConflict('id')
    .ignore();
  const input: SynthesisInput = { synthesisId: id, accountId: account.id, credits: characters, cpuTaskQueue: cpuTaskQueue(config) };
  try {
    await temporal.workflow.start<(input: SynthesisInput) => Promise<string>>('synthesis', {
      workflowId: synthesisWorkflowId(id),
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      args: [input],
      searchAttributes: { Account: [account.id], VoiceId: [body.voice_id], Characters: [characters] },
      // One workflow per synthesis id, ever: a repeat joins the running one and never starts a second.
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) {
      // The synthesis never started: forget it and give the reservation back.
      await db('syntheses').where({ id, status: 'queued' }).delete();
      await temporal.workflow
        .execute('creditDeduction', {
          workflowId: creditWorkflowId('release', id),
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          args: [{ ...reserve, step: 'release' }],
        })
        .catch((releaseError) => deps.logger.error({ err: releaseError, synthesisId: id }, 'could not release an unused reservation'));
      throw error;
    }
  }
  return db('syntheses').where({ id }).first();
}

/** The caller's synthesis (deleted ones and other accounts' are not found): all columns, or the given ones. */
async function findOwn<Row>({ db }: ApiDeps, account: Account, id: string, columns: readonly string[] = ['*']): Promise<Row> {
  const row = await db('syntheses').where({ id, account_id: account.id }).whereNull('deleted_at').first(columns);
  if (!row) throw notFound('No such synthesis.');
  return row;
}

export const findSynthesis = (deps: ApiDeps, account: Account, id: string) => findOwn<SynthesisRow>(deps, account, id);

/** The columns its status shows: a poll, the hottest request, does not fetch the text. */
export const findSynthesisStatus = (deps: ApiDeps, account: Account, id: string) => findOwn<SynthesisStatusRow>(deps, account, id, STATUS_COLUMNS);

/** Removes an entry from history: a running synthesis is canceled first (its workflow releases the credits and objects). */
export async function deleteSynthesis(deps: ApiDeps, account: Account, id: string): Promise<void> {
  const row = await findSynthesis(deps, account, id);
  if (row.status === 'queued' || row.status === 'processing') {
    try {
      await deps.temporal.connection.withDeadline(Date.now() + STEP_DEADLINE_MS, () =>
        deps.temporal.workflow.getHandle(synthesisWorkflowId(id)).cancel(),
      );
    } catch (error) {
      // Already finished: then its audio is removed below.
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
  await deps.db('syntheses').where({ id }).update({ deleted_at: deps.db.fn.now(), updated_at: deps.db.fn.now() });
  // Read after marking: a synthesis that completed meanwhile sees deleted_at and removes its own audio.
  const latest = await deps.db('syntheses').where({ id }).first('audio_key');
  if (latest?.audio_key) {
    await deps.storage.remove(latest.audio_key);
    await deps.db('syntheses').where({ id }).update({ audio_key: null });
  }
}
