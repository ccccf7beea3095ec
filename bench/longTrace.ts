import { startIsolatedStack } from '../scripts/isolatedStack';
import { goalClients, LONG_TEXT, ONE_SENTENCE, rawEngine } from './goals';

/**
 * Where a long text's time goes: one 5000-character synthesis on one worker,
 * then one serial run of the raw engine over the same text (the goal's
 * baseline), then every activity of its workflow with when it was scheduled, started and
 * completed (ms after the workflow started), and how many ran at once.
 *
 * Run: npm run build && node dist/bench/longTrace.js   (LONG_VOICE, default en-us-slt)
 */
const VOICE = process.env.LONG_VOICE ?? 'en-us-slt';

type Event = { eventId?: unknown; eventTime?: { seconds?: unknown; nanos?: number | null } | null } & Record<
  string,
  any
>;
const eventMs = (event: Event) =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + Math.round((event.eventTime?.nanos ?? 0) / 1e6);

async function main() {
  process.env.WORKER_METRICS_PORT ??= '0';
  const stack = await startIsolatedStack({ name: `longtrace_${process.pid}`, childOutput: 'log' });
  try {
    await stack.startWorkers(1);
    await stack.startApi();
    const [account] = await stack.createAccounts(1, { credits: 10_000_000 });
    const { synthesizeSse } = goalClients(stack);
    await synthesizeSse(account, ONE_SENTENCE, VOICE); // warm
    const run = await synthesizeSse(account, LONG_TEXT, VOICE);
    // The goal's baseline in the same run: one serial engine run over the same text.
    const [raw] = await rawEngine(stack, VOICE, LONG_TEXT, 1, stack.dataDir);
    process.stdout.write(
      `client: ${run.ms.toFixed(0)} ms; raw engine, serial: ${raw.toFixed(0)} ms (${(raw / run.ms).toFixed(2)} x)\n`,
    );
    const id = (run as unknown as { id?: string }).id;
    const list = stack.temporal.workflow.list({ query: `WorkflowType = 'synthesis'` });
    let newest: { workflowId: string; startTime: Date } | undefined;
    for await (const info of list) if (!newest || info.startTime > newest.startTime) newest = info;
    const events = ((
      await stack.temporal.workflow.getHandle(id ? `synthesis:${id}` : newest!.workflowId).fetchHistory()
    ).events ?? []) as Event[];
    const t0 = eventMs(events[0]);
    const byScheduled = new Map<
      string,
      { name: string; input: string; scheduled: number; started?: number; completed?: number }
    >();
    for (const event of events) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled)
        byScheduled.set(String(event.eventId), {
          name: scheduled.activityType?.name,
          input: '',
          scheduled: eventMs(event) - t0,
        });
      const started = event.activityTaskStartedEventAttributes;
      if (started) byScheduled.get(String(started.scheduledEventId))!.started = eventMs(event) - t0;
      const completed = event.activityTaskCompletedEventAttributes;
      if (completed) byScheduled.get(String(completed.scheduledEventId))!.completed = eventMs(event) - t0;
      if (event.workflowExecutionCompletedEventAttributes)
        process.stdout.write(`workflow completed at ${eventMs(event) - t0} ms\n`);
    }
    for (const a of byScheduled.values())
      process.stdout.write(
        `${a.name.padEnd(24)} sched ${String(a.scheduled).padStart(6)} start ${String(a.started).padStart(6)} done ${String(a.completed).padStart(6)} took ${String((a.completed ?? NaN) - (a.started ?? NaN)).padStart(6)}\n`,
      );
  } finally {
    await stack.close();
  }
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
