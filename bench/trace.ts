import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mapLimit } from '../lib/concurrency';
import { startIsolatedStack } from '../scripts/isolatedStack';
import { goalClients, ONE_SENTENCE, rawEngine, stackGroups } from './goals';
import { sseTimelines } from './traceSse';
import { cpuDelta, cpuSnapshot, summarizeProfile } from './processes';
import { table } from './report';

/**
 * Where a synthesis's time goes, for the goal figures' profile-first work:
 * one streamed request's timeline (client POST → workflow start → first
 * task → chunk 0 scheduled, started, done → the client's first audio byte),
 * and the worker's and API's CPU profiles (`node --cpu-prof`) over a 4-client
 * run of one-sentence syntheses, with the CPU per synthesis per process group.
 *
 * Then the same for a one-sentence synthesis followed by SSE (bench/traceSse.ts).
 *
 * Run: npm run build && node dist/bench/trace.js   (TRACE_VOICE, TRACE_COUNT, TRACE_TIMELINES;
 * TRACE_PROFILE=0 skips the profiles, TRACE_ONLY=sse or =stream one timeline)
 */
const VOICE = process.env.TRACE_VOICE ?? 'en-us-slt';
const COUNT = Number(process.env.TRACE_COUNT ?? 24);
const TIMELINES = Number(process.env.TRACE_TIMELINES ?? 8);
const FIRST_SENTENCE = 'The morning train left on time.';
const STREAMED = `${FIRST_SENTENCE} Every passenger found a seat by the window before the first stop. The conductor walked through the cars and smiled at the children.`;

type Event = { eventTime?: { seconds?: unknown; nanos?: number | null } | null } & Record<string, unknown>;
const eventMs = (event: Event) =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + Math.round((event.eventTime?.nanos ?? 0) / 1e6);

async function main() {
  process.env.WORKER_METRICS_PORT ??= '0';
  const stack = await startIsolatedStack({ name: `trace_${process.pid}`, childOutput: 'log' });
  const out: string[] = [];
  const say = (text: string) => (process.stdout.write(text + '\n'), out.push(text));
  try {
    await stack.startWorkers(1);
    await stack.startApi();
    const accounts = await stack.createAccounts(8, { credits: 10_000_000 });
    const { synthesizeSse } = goalClients(stack);
    await mapLimit(accounts.slice(0, 4), 4, (account) => synthesizeSse(account, ONE_SENTENCE, VOICE)); // warm

    if (process.env.TRACE_ONLY !== 'stream') await sseTimelines(stack, accounts, VOICE, TIMELINES, say);
    // 1. Streamed timelines, one client at a time.
    const rawFirst = await rawEngine(stack, VOICE, FIRST_SENTENCE, 5, stack.dataDir);
    say(`raw engine, first sentence: ${rawFirst.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    const rows: string[][] = [];
    for (let i = 0; i < (process.env.TRACE_ONLY === 'sse' ? 0 : TIMELINES); i++) {
      const posted = Date.now();
      const response = await fetch(`${stack.apiUrl}/v1/audio/speech`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${accounts[i % accounts.length].token}` },
        body: JSON.stringify({ model: 'tts-1', voice: VOICE, input: STREAMED, response_format: 'mp3' }),
      });
      const headersAt = Date.now();
      const reader = response.body!.getReader();
      let firstByte = NaN;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (value.length && Number.isNaN(firstByte)) firstByte = Date.now();
      }
      const id = response.headers.get('x-synthesis-id')!;
      const events = ((await stack.temporal.workflow.getHandle(`synthesis:${id}`).fetchHistory()).events ??
        []) as Event[];
      const at = (key: string, nth = 0) => {
        const found = events.filter((event) => event[key]);
        return found[nth] ? eventMs(found[nth]) - posted : NaN;
      };
      rows.push([
        String(i),
        ...[
          at('workflowExecutionStartedEventAttributes'),
          at('workflowTaskStartedEventAttributes'),
          at('workflowTaskCompletedEventAttributes'),
          at('activityTaskScheduledEventAttributes'),
          at('activityTaskStartedEventAttributes'),
          at('activityTaskCompletedEventAttributes'),
          headersAt - posted,
          firstByte - posted,
        ].map((ms) => ms.toFixed(0)),
      ]);
    }
    say(
      `\nStreamed request timeline, ms after the client's POST (${VOICE}, mp3):\n\n` +
        table(
          [
            'run',
            'wf started',
            '1st task started',
            '1st task done',
            'chunk 0 scheduled',
            'chunk 0 started',
            'chunk 0 done',
            'headers',
            'first byte',
          ],
          rows,
        ),
    );

    // 2. CPU profiles over a 4-client run.
    if (process.env.TRACE_PROFILE === '0')
      return void writeFileSync(path.join(stack.dataDir, 'trace.md'), out.join('\n'));
    await stack.startWorkers(1, { profileAs: 'worker' });
    await stack.startApi({ profileAs: 'api' });
    await mapLimit(accounts.slice(0, 4), 4, (account) => synthesizeSse(account, ONE_SENTENCE, VOICE)); // warm
    const groups = stackGroups(stack);
    const windowStarted = performance.now();
    const before = cpuSnapshot(groups);
    await mapLimit(
      Array.from({ length: COUNT }, (_, i) => accounts[i % accounts.length]),
      4,
      (account) => synthesizeSse(account, ONE_SENTENCE, VOICE),
    );
    const cpu = cpuDelta(before, cpuSnapshot(groups));
    say(
      `\nCPU ms per synthesis (${COUNT}, ${VOICE}, 4 clients): ${[...cpu].map(([name, s]) => `${name} ${((s * 1000) / COUNT).toFixed(0)}`).join(', ')}`,
    );
    await stack.stopWorkers();
    await stack.stopApi();
    // The profiles end at the processes' exit: keep the measured window, not the start-up.
    const windowSeconds = (performance.now() - windowStarted) / 1000;
    for (const name of ['worker', 'api']) {
      const dir = path.join(stack.dataDir, 'profiles', name);
      for (const file of existsSync(dir) ? readdirSync(dir) : []) {
        const summary = summarizeProfile(path.join(dir, file), 30, windowSeconds);
        say(`\n${name} profile ${file}: ${summary.seconds.toFixed(1)} s busy\n`);
        const perSynthesis = (share: number) =>
          `${(share * 100).toFixed(1)} % | ${((share * summary.seconds * 1000) / COUNT).toFixed(1)}`;
        say(
          table(
            ['owner', 'share', 'ms per synthesis'],
            summary.byOwner.map(([owner, share]) => [owner, perSynthesis(share)]),
          ),
        );
        say(
          table(
            ['function', 'share', 'ms per synthesis'],
            summary.byFunction.map(([fn, share]) => [fn, perSynthesis(share)]),
          ),
        );
      }
    }
    writeFileSync(path.join(stack.dataDir, 'trace.md'), out.join('\n'));
    say(`profiles in ${path.join(stack.dataDir, 'profiles')}`);
  } finally {
    await stack.close();
  }
}

main().catch((error) => {
  process.stderr.write(`trace failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
