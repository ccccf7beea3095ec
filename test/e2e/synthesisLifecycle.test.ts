import { splitText } from '../../engines/text';
import { CHUNK_CHARS } from '../../synthesis/speechPlan';
import { chunkPrefix } from '../../synthesis/objects';
import { synthesisWorkflowId } from '../../synthesis/contracts';
import { until } from '../helpers/eventually';
import { createAccount, type TestAccount } from '../helpers/factories';
import { call } from '../helpers/http';
import { useStack } from '../helpers/stack';
import { waitForSynthesis } from '../helpers/synthesis';

/**
 * A synthesis's life as its owner sees it, on a worker with one render slot
 * (SYNTHESIS_CONCURRENCY=1) and an account whose plan runs ten at once: a job
 * the plan admits stays `queued` until its render starts; its progress moves
 * with each sentence and carries an ETA; a cancel stops the render in progress.
 */

jest.setTimeout(240_000);

/** The recommended HTS voice (Festival): slow enough that a render is seen in progress. */
const VOICE = 'en-us-slt';

const SENTENCES = [
  'The quick brown fox jumps over the lazy dog near the quiet river bank.',
  'A gentle breeze carried the scent of rain across the open fields.',
  'Our train leaves the station at half past seven every weekday morning.',
  'She painted the old wooden fence a bright shade of summer blue.',
];

/** Whole sentences, at least `chars` characters. */
function prose(chars: number, offset = 0): string {
  const parts: string[] = [];
  for (let index = offset; parts.join(' ').length < chars; index++) parts.push(SENTENCES[index % SENTENCES.length]);
  return parts.join(' ');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a synthesis from queued to its end', () => {
  const { deps, api } = useStack({ worker: true, env: { SYNTHESIS_CONCURRENCY: '1' } });
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await createAccount(deps, { credits: 200_000 });
    // Ten at once: the plan does not hold these jobs back, the machine's one render slot does.
    await deps.db('accounts').where({ id: owner.id }).update({ subscription_tier: 'pro' });
  });
  const submit = async (text: string) => {
    const reply = await call(api.url, 'POST', '/api/v1/tts/synthesize/', { text, voice_id: VOICE }, owner.access);
    expect({ status: reply.status, body: reply.body }).toMatchObject({ status: 202 });
    return reply.body.id as string;
  };
  const status = async (id: string) =>
    (await call(api.url, 'GET', `/api/v1/tts/history/${id}/status/`, undefined, owner.access)).body;

  it('a job the plan admits waits `queued` while the render slot is taken, and is `processing` once its render starts', async () => {
    const ids = await Promise.all([0, 1, 2].map((offset) => submit(prose(300, offset))));
    // The plan let every one of them run (each took one of its ten slots).
    const admitted = await deps.db('syntheses').whereIn('id', ids).whereNotNull('slot_taken_at').count({ n: '*' });
    expect(Number(admitted[0].n)).toBe(3);

    const seen = await until('one job queued behind another that renders', async () => {
      const statuses = await Promise.all(ids.map(status));
      const waiting = statuses.find((body) => body.status === 'queued');
      return waiting && statuses.some((body) => body.status === 'processing') ? waiting : null;
    });
    expect(seen).toMatchObject({ status: 'queued', progress: 0, started_at: null, eta_seconds: null });

    for (const id of ids) {
      const done = await waitForSynthesis(api.url, `/api/v1/tts/history/${id}/status/`, owner.access, 180_000);
      expect(done).toMatchObject({ status: 'completed', progress: 1, eta_seconds: null });
      expect(Date.parse(done.started_at)).toBeGreaterThanOrEqual(Date.parse(done.created_at));
    }
  });

  it('progress moves with each sentence rendered (more steps than 400-character chunks), with an ETA while it renders', async () => {
    const text = prose(1_100);
    const chunksOfOld = splitText(text, CHUNK_CHARS).length;
    const id = await submit(text);
    const progress: number[] = [];
    const etas: unknown[] = [];
    for (let poll = 0; ; poll++) {
      // The row every 30 ms (no step is missed), the status object (its ETA) every 300 ms.
      const row = await deps.db('syntheses').where({ id }).first('status', 'progress');
      if (row.progress !== progress.at(-1)) progress.push(row.progress);
      if (row.status !== 'queued' && row.status !== 'processing') break;
      if (poll % 10 === 0) {
        const body = await status(id);
        if (body.status === 'processing' && body.progress > 0) etas.push(body.eta_seconds);
      }
      await sleep(30);
    }
    expect(progress.at(-1)).toBe(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    const steps = progress.filter((value) => value > 0 && value < 1);
    expect(steps.length).toBeGreaterThan(chunksOfOld);
    expect(etas.length).toBeGreaterThan(0);
    for (const eta of etas) expect(Number.isInteger(eta) && (eta as number) >= 0).toBe(true);
  });

  it('DELETE of a long running job stops the render in progress and answers canceled, its credits released and nothing left', async () => {
    // Sentences of ~390 characters, each a render of some seconds: the cancel lands while one renders.
    const long = `${'and the river ran on past the mill and the meadow '.repeat(7).trim()}.`;
    const id = await submit(Array.from({ length: 12 }, () => long).join(' '));
    // Right after a sentence was stored, the next one has just started rendering.
    await until('a sentence to be rendered', async () => ((await status(id)).progress > 0 ? true : null));
    const deleted = await call(api.url, 'DELETE', `/api/v1/tts/history/${id}/`, undefined, owner.access);
    expect(deleted.status).toBe(204);
    expect(deleted.headers.get('synthesis-status')).toBe('canceled');
    const row = await deps.db('syntheses').where({ id }).first('status', 'credits_charged');
    expect(row).toEqual({ status: 'canceled', credits_charged: 0 });
    const ledger = await deps.db('credit_ledger').where({ reference: id }).orderBy('id').select('kind');
    expect(ledger.map((entry) => entry.kind)).toEqual(['reserve', 'release']);

    const handle = deps.temporal.workflow.getHandle(synthesisWorkflowId(id));
    await handle.result().catch(() => undefined);
    const events = (await handle.fetchHistory()).events ?? [];
    const requested = events.findIndex((event) => event.workflowExecutionCancelRequestedEventAttributes);
    expect(requested).toBeGreaterThan(0);
    const after = events.slice(requested);
    // The render in progress was stopped (its activity ended canceled), and none ran to its end after the cancel.
    expect(after.some((event) => event.activityTaskCanceledEventAttributes)).toBe(true);
    expect(after.filter((event) => event.activityTaskCompletedEventAttributes)).toEqual([]);
    expect(await deps.storage.list(chunkPrefix(id))).toEqual([]);
  });
});
