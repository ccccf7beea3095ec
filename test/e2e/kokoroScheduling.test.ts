import { cpuTaskQueue } from '../../lib/temporal';
import { heavyTaskQueue, synthesisWorkflowId } from '../../synthesis/contracts';
import { call } from '../helpers/http';
import { installKokoroModels } from '../helpers/kokoroMirror';
import { useAccount, useStack } from '../helpers/stack';
import { waitForSynthesis } from '../helpers/synthesis';
import { type HistoryEvent, historyOf } from '../helpers/workflowWorker';

/**
 * Kokoro renders (~10× Piper's CPU per audio second) queue on a task queue of their own with half the render
 * slots, so while one renders and others wait, a Piper synthesis still gets a slot of the CPU queue at once:
 * with two render slots and a Kokoro synthesis of several chunks (a render per lane asking at once), a Piper
 * synthesis submitted after it has rendered before any Kokoro chunk has. When Kokoro renders
 * shared the CPU queue, two of them held both slots (one rendering, one waiting for the only Kokoro host)
 * and the Piper render waited for a Kokoro chunk to finish.
 */

const { deps, api } = useStack({
  worker: true,
  database: 'kokoro_scheduling',
  models: (dir) => installKokoroModels(dir),
  env: {
    VOICE_PREVIEWS: 'false',
    // Two render slots: the heavy queue has one, as the Kokoro engine has one host.
    SYNTHESIS_CONCURRENCY: '2',
  },
  startTimeoutMs: 120_000,
});
// Slots of a plan are per account: one account each, so the Piper synthesis is never queued behind the Kokoro one.
const kokoroOwner = useAccount(deps, { credits: 100_000 });
const piperOwner = useAccount(deps, { credits: 100_000 });

type Events = HistoryEvent[];

const eventsOf = (synthesisId: string): Promise<Events> =>
  historyOf(deps.temporal.workflow.getHandle(synthesisWorkflowId(synthesisId)));

/** Each activity the workflow scheduled: its type and the task queue it went to. */
const scheduled = (events: Events) =>
  events.flatMap((event) => {
    const attributes = event.activityTaskScheduledEventAttributes;
    return attributes ? [{ type: attributes.activityType!.name!, queue: attributes.taskQueue!.name! }] : [];
  });

/** When the server recorded each of the workflow's activities as completed (ms since the epoch). */
const completions = (events: Events) =>
  events
    .filter((event) => event.activityTaskCompletedEventAttributes)
    .map((event) => Number(event.eventTime!.seconds) * 1000 + (event.eventTime!.nanos ?? 0) / 1e6);

it('renders Kokoro on the heavy queue, and a Piper synthesis submitted behind Kokoro renders does not wait for them', async () => {
  const voice = await call(api.url, 'GET', '/api/v1/voices/en-us-kokoro-alpha/', undefined, kokoroOwner.access);
  expect(voice.body).toMatchObject({ engine: 'kokoro', status: 'ready' });
  // Twelve sentences (1,140 characters): several chunks, so several renders (one per parallel lane) ask for a slot at once.
  const sentence = 'The committee will meet again next week to review the plans for the new library and the park. ';
  const kokoroText = sentence.repeat(12).trim();
  const kokoro = await call(
    api.url,
    'POST',
    '/api/v1/tts/synthesize/',
    { text: kokoroText, voice_id: 'en-us-kokoro-alpha', output_format: 'wav' },
    kokoroOwner.access,
  );
  expect(kokoro.status).toBe(202);
  // Its renders are scheduled (at least three lanes) before the Piper synthesis is submitted.
  for (;;) {
    const renders = scheduled(await eventsOf(kokoro.body.id)).filter(
      (activity) => activity.type === 'renderSynthesisChunk',
    );
    if (renders.length >= 3) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  const piper = await call(
    api.url,
    'POST',
    '/api/v1/tts/synthesize/',
    { text: 'A short sentence for Piper.', voice_id: 'en-us-joe', output_format: 'wav' },
    piperOwner.access,
  );
  expect(piper.status).toBe(202);
  const piperDone = await waitForSynthesis(api.url, piper.body.status_url, piperOwner.access, 300_000);
  expect(piperDone.status).toBe('completed');
  // Slots, when the Piper synthesis is done: the Kokoro renders are all still pending (at least the three seen
  // scheduled, none completed), one of them running (the heavy queue's one slot) and the others scheduled, waiting
  // for it outside any worker slot.
  const { raw } = await deps.temporal.workflow.getHandle(synthesisWorkflowId(kokoro.body.id)).describe();
  const pending = raw.pendingActivities ?? [];
  expect(pending.length).toBeGreaterThanOrEqual(3);
  expect(pending.map((activity) => activity.activityType?.name)).toEqual(
    Array(pending.length).fill('renderSynthesisChunk'),
  );
  // PendingActivityState: 1 scheduled, 2 started.
  expect(pending.filter((activity) => Number(activity.state) === 2)).toHaveLength(1);
  // Canceled (nothing charged): the test need not wait for all of Kokoro's chunks.
  expect(
    (await call(api.url, 'DELETE', `/api/v1/tts/history/${kokoro.body.id}/`, undefined, kokoroOwner.access)).status,
  ).toBe(204);

  // Ordering, not timing (both from the server's history): the Piper render had completed before any Kokoro chunk
  // did. Had Kokoro renders held the CPU queue's two slots, Piper's could only start once one of them completed.
  const [piperEvents, kokoroEvents] = await Promise.all([eventsOf(piper.body.id), eventsOf(kokoro.body.id)]);
  const [piperRendered] = completions(piperEvents);
  expect(piperRendered).toBeGreaterThan(0);
  for (const chunkRendered of completions(kokoroEvents)) expect(chunkRendered).toBeGreaterThan(piperRendered);

  const queue = cpuTaskQueue(deps.config);
  const kokoroScheduled = scheduled(kokoroEvents);
  expect(kokoroScheduled.length).toBeGreaterThanOrEqual(3);
  expect(kokoroScheduled).toEqual(
    Array(kokoroScheduled.length).fill({ type: 'renderSynthesisChunk', queue: heavyTaskQueue(queue) }),
  );
  expect(scheduled(piperEvents)).toEqual([{ type: 'renderShortSynthesis', queue }]);
}, 600_000);
