import { createActivities } from '../../activities';
import { SynthesisSpeechPlan } from '../../db/models/SynthesisSpeechPlan';
import { Synthesis } from '../../db/models/Synthesis';
import { type SynthesisRequest, synthesisWorkflowId } from '../../synthesis/contracts';
import { chunkPrefix } from '../../synthesis/objects';
import { CHUNK_CHARS } from '../../synthesis/speechPlan';
import type { synthesis } from '../../workflows/synthesis';
import { createAccount, synthesisRequest, type TestAccount } from '../helpers/factories';
import { call } from '../helpers/http';
import { activityDeps, useStack } from '../helpers/stack';
import { SYNTHESIS_ACTIVITIES, useWorkflowWorker } from '../helpers/workflowWorker';

/**
 * A synthesis is planned once (synthesis/speechPlan.ts): its first step stores
 * the plan and every later step reads it. The synthesis workflow runs here
 * with the real activities on a worker of its own, with a step between the
 * reservation and the renders that edits the account's dictionary (as a user
 * may while a synthesis runs), or forgets the stored plan (a synthesis whose
 * slot was taken before plans were stored).
 */

// Generous: on a loaded machine the first render waits for the engines to start.
jest.setTimeout(600_000);

const { deps, api } = useStack();
const wf = useWorkflowWorker([...SYNTHESIS_ACTIVITIES]);
const real = createActivities(activityDeps(deps));

/** Every step real; `afterReserve` runs between the reservation (where the plan is made) and the renders. */
function runReal(afterReserve: (synthesisId: string) => Promise<void>) {
  wf.mock(Object.fromEntries(SYNTHESIS_ACTIVITIES.map((name) => [name, real[name]])));
  wf.mock({
    reserveSynthesis: async (request) => {
      const reserved = await real.reserveSynthesis(request);
      await afterReserve(request.synthesisId);
      return reserved;
    },
  });
}

let owner: TestAccount;
beforeAll(async () => {
  owner = await createAccount(deps);
});

const dictionaries = (path: string, body?: unknown) =>
  call(api.url, 'POST', `/api/v1/pronunciation-dictionaries/${path}`, body, owner.access);

const request = (text: string, extra: Partial<SynthesisRequest> = {}): SynthesisRequest =>
  synthesisRequest(owner.id, text, { voiceId: 'en-us-espeak-m', ...extra });

async function run(input: SynthesisRequest): Promise<string> {
  return wf.client.workflow.execute<typeof synthesis>('synthesis', {
    taskQueue: wf.taskQueue,
    workflowId: synthesisWorkflowId(input.synthesisId),
    args: [{ request: input, cpuTaskQueue: wf.taskQueue }],
  });
}

const storedPlan = (synthesisId: string) => SynthesisSpeechPlan.planOf(deps.db, synthesisId);

describe('the speech plan of a synthesis', () => {
  it('is made once: a dictionary edited between the reservation and the render changes none of its chunks', async () => {
    const dictionary = await dictionaries('', { name: 'Acronyms', entries: [{ grapheme: 'Nguyen', alias: 'Win' }] });
    expect(dictionary.status).toBe(201);
    // An SSML document of one chunk ("WHO" is spelled out: "W H O"); read through a longer alias, it is two.
    const sentence = 'The WHO said so.';
    const sentences = Array.from({ length: Math.floor((CHUNK_CHARS - 80) / (sentence.length + 1)) }, () => sentence);
    const text = `<speak>${sentences.join(' ')}</speak>`;
    const input = request(text, { textType: 'ssml', pronunciationDictionaryIds: [dictionary.body.id] });
    let planned: Awaited<ReturnType<typeof storedPlan>> = null;
    runReal(async (synthesisId) => {
      planned = await storedPlan(synthesisId);
      const added = await dictionaries(`${dictionary.body.id}/entries/`, {
        grapheme: 'WHO',
        alias: 'World Health Organization',
      });
      expect(added.status).toBe(201);
    });

    expect(await run(input)).toBe('completed');
    // Planned with the reservation, with the dictionary as it was then: one chunk, no alias.
    expect(planned!.chunks).toHaveLength(1);
    expect(planned!.chunks[0].text).toContain('said so');
    expect(planned!.chunks[0].text).not.toContain('World Health Organization');
    expect(await storedPlan(input.synthesisId)).toEqual(planned);
    expect(wf.callsOf('renderShortSynthesis')).toContainEqual([{ synthesisId: input.synthesisId }]);
    const row = await Synthesis.query(deps.db).findById(input.synthesisId);
    expect(row).toMatchObject({ status: 'completed', audio_key: expect.any(String) });

    // The edit holds for the next synthesis: planned after it, two chunks.
    const next = request(text, { textType: 'ssml', pronunciationDictionaryIds: [dictionary.body.id] });
    runReal(async () => undefined);
    expect(await run(next)).toBe('completed');
    const nextPlan = (await storedPlan(next.synthesisId))!;
    expect(nextPlan.chunks.length).toBeGreaterThan(1);
    expect(nextPlan.chunks.map((chunk) => chunk.text).join(' ')).toContain('World Health Organization');
  });

  it('of plain text meets its dictionaries at the render: an alias lengthened since fails it as dictionary_changed, uncharged', async () => {
    const dictionary = await dictionaries('', { name: 'Grows', entries: [{ grapheme: 'WHO', alias: 'who' }] });
    expect(dictionary.status).toBe(201);
    const input = request('The WHO said so.', { pronunciationDictionaryIds: [dictionary.body.id] });
    runReal(async () => {
      const added = await dictionaries(`${dictionary.body.id}/entries/`, {
        grapheme: 'said',
        alias: 'said, at great length, '.repeat(20),
      });
      expect(added.status).toBe(201);
    });
    expect(await run(input)).toBe('failed');
    const row = await Synthesis.query(deps.db).findById(input.synthesisId);
    expect(row).toMatchObject({ status: 'failed', credits_charged: 0, error: { code: 'dictionary_changed' } });
    expect(wf.callsOf('captureCredits')).not.toContainEqual([
      expect.objectContaining({ reference: input.synthesisId }),
    ]);
  });

  it('of a synthesis whose slot was taken before plans were stored is made by its next step, and kept', async () => {
    // Plain text of 27 sentences, not streamed: renders, a finish, and stored chunks to remove at the end.
    const text = Array.from(
      { length: 3 },
      (_, index) => `Part ${index + 1}. ${'The quick brown fox jumps over the lazy dog. '.repeat(8).trim()}`,
    ).join(' ');
    const input = request(text);
    runReal(async (synthesisId) => {
      // What a worker from before stored plans leaves: a slot taken, no plan.
      expect(await SynthesisSpeechPlan.query(deps.db).deleteById(synthesisId)).toBe(1);
    });

    expect(await run(input)).toBe('completed');
    const plan = (await storedPlan(input.synthesisId))!;
    // Longer than one chunk: one chunk per sentence (3 × 9).
    expect(plan.chunks).toHaveLength(27);
    expect(plan.chunks.map((chunk) => chunk.text).join(' ')).toBe(text);
    const renders = wf.callsOf('renderSynthesisChunk').map(([step]) => step as { synthesisId: string; index: number });
    expect(renders.filter((step) => step.synthesisId === input.synthesisId).map((step) => step.index)).toEqual(
      expect.arrayContaining(Array.from({ length: 27 }, (_, index) => index)),
    );
    expect(wf.callsOf('finishSynthesis')).toContainEqual([{ synthesisId: input.synthesisId, chunkCount: 27 }]);
    // The clean-up found the chunks (with the plan stored by the first render) and removed them.
    expect(await deps.storage.list(chunkPrefix(input.synthesisId))).toEqual([]);
    const row = await Synthesis.query(deps.db).findById(input.synthesisId);
    expect(row).toMatchObject({ status: 'completed', progress: 1 });
  });
});
