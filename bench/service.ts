import { type WorkflowHandle } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { findPremadeVoice } from '../engines/catalog';
import { run } from '../lib/process';
import { readWavInfo } from '../audio/wav';
import { splitText } from '../engines/text';
import { startIsolatedStack } from '../scripts/isolatedStack';
import { waitFor } from '../scripts/stack';
import { cpuDelta, cpuSnapshot, currentRssMiB, peakRssMiB, type ProcessGroup, summarizeProfile } from './processes';
import { mapLimit } from '../lib/concurrency';
import { measureGoals, measureLongText, measureStatusReads, statusReadRow } from './goals';
import { measureMemoryGoal } from './rss';
import { BENCH_WORKER_SCRIPT, benchTaskQueue, startBenchWorker } from './orchestration/worker';
import { table } from './report';

/**
 * The whole service measured against its own limits, in one run, on its own
 * isolated stack (ports, database, data directory). Every figure is printed
 * with the baseline measured in the same run and their ratio: the machine is
 * shared and noisy, so only ratios compare across runs.
 *
 * Run: npm run bench:service
 *   BENCH_N=2        scales the sample sizes
 *   BENCH_PROFILE=0  skips the CPU-profiled run of the api and worker
 *   BENCH_SCALING=0  skips the worker/concurrency scaling runs
 *   BENCH_POLL_MS    the clients' status poll interval (default 20)
 *   BENCH_GOALS_ONLY=1  only the goal figures (bench/goals.ts); =status, =long, =goals only the status reads, the long text, the rest;
 *                    =memory only the worker's memory under 20 parallel long neural syntheses (bench/rss.ts)
 *   BENCH_LONG_VOICES  the long text's voices (default en-us-slt,en-us-joe)
 */

const N = Number(process.env.BENCH_N ?? 1);
const PROFILE = process.env.BENCH_PROFILE !== '0';
const SCALING = process.env.BENCH_SCALING !== '0';
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 20);
const GOALS_ONLY = Boolean(process.env.BENCH_GOALS_ONLY);
const VOICE = 'en-us-slt';
/** A fast engine (espeak-ng, ~20 ms a sentence): what the orchestration allows when the engine costs little. */
const FAST_VOICE = 'en-us-espeak-f';
const TEXT_100 =
  'The morning train left on time, and every passenger found a seat by the window before the first stop.';
const PATIENT_POLL_MS = 250;
/** Clients submitting and polling at once in the throughput phases. */
const CLIENTS = 12;

type Row = [figure: string, value: string, baseline: string, ratio: string, target: string];
const fmt = (value: number, digits = 1) => value.toFixed(digits);
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

/** When a workflow history event happened, in epoch milliseconds (the client's clock is on the same machine). */
const eventMs = (event: HistoryEvent) =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + Math.round((event.eventTime?.nanos ?? 0) / 1e6);

/** The stack's processes, named for CPU accounting; the worker's exited children are the engines and ffmpeg. */
function processGroups(ports: { temporal: number; minio: number }): ProcessGroup[] {
  return [
    { name: 'api', match: (stat) => stat.cmdline.includes(path.join('dist', 'api', 'main.js')) },
    // The benchmark's own worker (the orchestration baselines) counts as a worker too.
    {
      name: 'worker',
      match: (stat) =>
        stat.cmdline.includes(path.join('dist', 'worker', 'main.js')) || stat.cmdline.includes(BENCH_WORKER_SCRIPT),
      childrenName: 'engines+ffmpeg',
    },
    // The worker's kept Festival interpreters count while they live; when one exits its time moves into the worker's children.
    { name: 'engines+ffmpeg', match: (stat) => stat.comm === 'festival' && stat.cmdline.includes('--pipe') },
    {
      name: 'temporal',
      match: (stat) => stat.comm === 'temporal' && stat.cmdline.includes(`--port ${ports.temporal} `),
    },
    { name: 'postgres', match: (stat) => stat.comm === 'postgres' || stat.cmdline.startsWith('postgres:') },
    { name: 'minio', match: (stat) => stat.comm === 'minio' && stat.cmdline.includes(`127.0.0.1:${ports.minio} `) },
    { name: 'bench client', match: (stat) => stat.pid === process.pid },
  ];
}
const GROUP_ORDER = ['api', 'worker', 'engines+ffmpeg', 'temporal', 'postgres', 'minio', 'bench client'];

interface Measured<T> {
  result: T;
  seconds: number;
  /** CPU seconds per process group during the phase. */
  cpu: Map<string, number>;
}

async function main() {
  // The workers' metrics ports would collide with each other (two workers) and with other stacks on the machine.
  process.env.WORKER_METRICS_PORT ??= '0';
  const stack = await startIsolatedStack({ name: `bench_${process.pid}` });
  const { config, db, temporal, apiUrl, dataDir } = stack;
  const profileDir = path.join(dataDir, 'profiles');
  const groups = processGroups(stack.ports);
  const rows: Row[] = [];
  const sections: string[] = [];
  const peakRss = { api: 0, worker: 0 };
  const notePeakRss = () => {
    const api = stack.api();
    if (api?.pid) peakRss.api = Math.max(peakRss.api, peakRssMiB(api.pid));
    for (const worker of stack.workers())
      if (worker.pid) peakRss.worker = Math.max(peakRss.worker, peakRssMiB(worker.pid));
  };

  const measured = async <T>(work: () => Promise<T>): Promise<Measured<T>> => {
    const before = cpuSnapshot(groups);
    const started = performance.now();
    const result = await work();
    const seconds = (performance.now() - started) / 1000;
    return { result, seconds, cpu: cpuDelta(before, cpuSnapshot(groups)) };
  };

  try {
    const startWorkers = async (count: number, concurrency?: number, profileAs?: string) => {
      notePeakRss();
      await stack.startWorkers(count, { concurrency, profileAs });
    };
    const startApi = async (profileAs?: string) => {
      notePeakRss();
      await stack.startApi({ profileAs });
    };
    await startWorkers(1);
    await startApi();

    // Accounts enough that no plan's max_concurrent_syntheses caps the load.
    const accounts = await stack.createAccounts(24, { credits: 10_000_000 });
    let accountIndex = 0;
    const nextAccount = () => accounts[accountIndex++ % accounts.length];

    const synthesize = async (text: string, account = nextAccount(), pollMs = POLL_MS, voiceId = VOICE) => {
      const started = performance.now();
      const submittedAt = Date.now();
      const response = await fetch(`${apiUrl}/api/v1/tts/synthesize/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${account.token}` },
        body: JSON.stringify({ text, voice_id: voiceId }),
      });
      if (response.status !== 202) throw new Error(`submit answered ${response.status}: ${await response.text()}`);
      const accepted = (await response.json()) as { id: string; status_url: string };
      const answeredAt = Date.now();
      for (;;) {
        const status = (await (
          await fetch(`${apiUrl}${accepted.status_url}`, { headers: { Authorization: `Bearer ${account.token}` } })
        ).json()) as { status: string; duration_seconds: number };
        if (status.status === 'completed')
          return {
            id: accepted.id,
            ms: performance.now() - started,
            audioSeconds: status.duration_seconds,
            submittedAt,
            answeredAt,
            seenAt: Date.now(),
          };
        if (status.status !== 'queued' && status.status !== 'processing')
          throw new Error(`synthesis ${accepted.id} ${status.status}`);
        await sleep(pollMs);
      }
    };
    const throughput = async <T>(count: number, run: () => Promise<T>) => {
      const phase = await measured(() => mapLimit(Array.from({ length: count }), CLIENTS, run));
      return { ...phase, rate: count / phase.seconds };
    };
    const syntheses = (count: number, pollMs = POLL_MS, voiceId = VOICE) =>
      throughput(count, () => synthesize(TEXT_100, undefined, pollMs, voiceId));
    /**
     * Where each synthesis's wall time went under load, from its workflow
     * history and the client's clock: mean and p95 per stage, in ms.
     */
    const latencyBreakdown = async (results: Awaited<ReturnType<typeof synthesize>>[]) => {
      const stages = new Map<string, number[]>();
      const add = (stage: string, ms: number) => stages.set(stage, [...(stages.get(stage) ?? []), ms]);
      for (const result of results) {
        const events = (await temporal.workflow.getHandle(`synthesis:${result.id}`).fetchHistory()).events ?? [];
        const at = (event: HistoryEvent | undefined) => (event ? eventMs(event) : NaN);
        const first = (key: string) => events.find((event) => (event as Record<string, unknown>)[key]);
        const started = at(first('workflowExecutionStartedEventAttributes'));
        const firstTask = at(first('workflowTaskStartedEventAttributes'));
        const scheduled = at(first('activityTaskScheduledEventAttributes'));
        const running = at(first('activityTaskStartedEventAttributes'));
        const rendered = at(first('activityTaskCompletedEventAttributes'));
        const closed = at(first('workflowExecutionCompletedEventAttributes'));
        add('POST → 202 (checks, start, reserve)', result.answeredAt - result.submittedAt);
        add('workflow start → first workflow task picked up', firstTask - started);
        add('first task → render scheduled (slot, local activity)', scheduled - firstTask);
        add('render waiting for a CPU slot', running - scheduled);
        add('render running (engine, ffmpeg, finish, store)', rendered - running);
        add('render done → workflow closed (capture child, record)', closed - rendered);
        add('closed → client saw completed (poll)', result.seenAt - closed);
        add('total', result.seenAt - result.submittedAt);
      }
      const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
      return table(
        ['stage', 'mean ms', 'p95 ms'],
        [...stages].map(([stage, values]) => [stage, fmt(mean(values), 0), fmt(percentile(values, 0.95), 0)]),
      );
    };
    const cpuPerItem = (cpu: Map<string, number>, count: number) =>
      GROUP_ORDER.map((name) => fmt(((cpu.get(name) ?? 0) * 1000) / count, 0));

    // Warm-up: engines, caches, JIT.
    await mapLimit(accounts.slice(0, 4), 4, (account) => synthesize(TEXT_100, account));

    // The goals first: on a quiet, freshly started stack (BENCH_GOALS_ONLY=status: the status reads alone).
    const goals = { stack, accounts, rows, sections, N, apiRssMiB: () => currentRssMiB(stack.api()?.pid) };
    const only = process.env.BENCH_GOALS_ONLY;
    if (only !== 'status' && only !== 'long' && only !== 'memory') await measureGoals(goals);
    if (only !== 'status' && only !== 'goals' && only !== 'memory') await measureLongText(goals);
    if (only !== 'long' && only !== 'goals' && only !== 'memory') await measureStatusReads(goals);
    if (!only || only === '1' || only === 'memory') await measureMemoryGoal(goals);

    // The whole service: orchestration limits, breakdowns, burst, status polls, scaling, profiles.
    phases: {
      if (GOALS_ONLY) break phases;
      // 1. Orchestration limit, on the benchmark's own worker (its workflows are not in the service's bundle).
      const benchWorker = await startBenchWorker(stack.env, temporal);
      const benchQueue = benchTaskQueue(config);
      const trivial = () =>
        throughput(60 * N, () =>
          temporal.workflow.execute('benchNoop', { taskQueue: benchQueue, workflowId: `bench-noop-${randomUUID()}` }),
        );
      const firstNoop = await trivial();
      const chunks = splitText(TEXT_100, 400).length;
      const shape = await throughput(60 * N, () =>
        temporal.workflow.execute('benchSynthesisShape', {
          taskQueue: benchQueue,
          workflowId: `bench-shape-${randomUUID()}`,
          args: [chunks],
        }),
      );
      const e2eCount = 36 * N;
      const e2e = await syntheses(e2eCount);
      // The same load from clients that poll every 250 ms: the service's capacity rather than the status endpoint's.
      const patient = await syntheses(e2eCount, PATIENT_POLL_MS);
      await synthesize(TEXT_100, undefined, PATIENT_POLL_MS, FAST_VOICE); // warm the engine
      const fast = await syntheses(e2eCount, PATIENT_POLL_MS, FAST_VOICE);
      // The baseline is measured before and after, and the faster run counts (the harder ratio).
      const secondNoop = await trivial();
      await benchWorker.stop();
      const noop = firstNoop.rate >= secondNoop.rate ? firstNoop : secondNoop;
      rows.push([
        'orchestration: trivial workflow (1 no-op activity)',
        `${fmt(noop.rate)} wf/s`,
        `runs: ${fmt(firstNoop.rate)}, ${fmt(secondNoop.rate)}`,
        '-',
        '',
      ]);
      rows.push([
        'orchestration: synthesis graph, no-op activities',
        `${fmt(shape.rate)} wf/s`,
        `${fmt(noop.rate)} wf/s`,
        fmt(shape.rate / noop.rate, 2),
        '',
      ]);
      rows.push([
        `syntheses end to end via HTTP (100 chars, wav, ${CLIENTS} clients polling every ${POLL_MS} ms)`,
        `${fmt(e2e.rate, 2)} /s`,
        `${fmt(noop.rate)} wf/s`,
        fmt(e2e.rate / noop.rate, 3),
        '>= 0.6',
      ]);
      rows.push([
        `same, clients polling every ${PATIENT_POLL_MS} ms`,
        `${fmt(patient.rate, 2)} /s`,
        `${fmt(noop.rate)} wf/s`,
        fmt(patient.rate / noop.rate, 3),
        '>= 0.6',
      ]);
      rows.push([
        `same, ${PATIENT_POLL_MS} ms polls, fast engine (${FAST_VOICE}): the orchestration's own limit`,
        `${fmt(fast.rate, 2)} /s`,
        `${fmt(noop.rate)} wf/s`,
        fmt(fast.rate / noop.rate, 3),
        '',
      ]);
      sections.push(
        `CPU per item (ms) in the throughput phases, by process (${GROUP_ORDER.join(', ')}):\n\n` +
          table(
            ['phase', 'items/s', ...GROUP_ORDER, 'machine busy'],
            [
              ['trivial workflow', fmt(noop.rate), ...cpuPerItem(noop.cpu, 60 * N), busy(noop.cpu, noop.seconds)],
              [
                'synthesis graph, no-op',
                fmt(shape.rate),
                ...cpuPerItem(shape.cpu, 60 * N),
                busy(shape.cpu, shape.seconds),
              ],
              [
                `synthesis end to end, polls every ${POLL_MS} ms`,
                fmt(e2e.rate, 2),
                ...cpuPerItem(e2e.cpu, e2eCount),
                busy(e2e.cpu, e2e.seconds),
              ],
              [
                `synthesis end to end, polls every ${PATIENT_POLL_MS} ms`,
                fmt(patient.rate, 2),
                ...cpuPerItem(patient.cpu, e2eCount),
                busy(patient.cpu, patient.seconds),
              ],
              [
                `same, ${FAST_VOICE}`,
                fmt(fast.rate, 2),
                ...cpuPerItem(fast.cpu, e2eCount),
                busy(fast.cpu, fast.seconds),
              ],
            ],
          ),
      );

      sections.push(
        `Where a synthesis's time goes under load (${CLIENTS} clients polling every ${PATIENT_POLL_MS} ms, ${fmt(patient.rate, 2)}/s):\n\n${await latencyBreakdown(patient.result)}`,
      );

      // Workflow history sizes: every event is a round trip's worth of server work.
      const one = await synthesize(TEXT_100);
      const historyEvents = async (workflowId: string) =>
        ((await temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? []).length;
      // Every workflow a synthesis has ever had (older versions ran reserve and release as workflows of their own).
      const candidates = [
        `synthesis:${one.id}`,
        `credits:reserve:${one.id}`,
        `credits:capture:${one.id}`,
        `credits:release:${one.id}`,
      ];
      const found = (
        await Promise.all(candidates.map(async (id) => [id, await historyEvents(id).catch(() => 0)] as const))
      ).filter(([, events]) => events > 0);
      const executions = found.length;
      const events = found.reduce((sum, [, count]) => sum + count, 0);
      rows.push([
        'workflow executions / history events per 100-char synthesis',
        `${executions} / ${events}`,
        found.map(([id, count]) => `${id.split(':').slice(0, -1).join(':')} ${count}`).join(', '),
        '-',
        '<= 2 executions',
      ]);

      // A burst: 100 parallel submits from 50 accounts on a quiet stack. Every answer should be 202 (never a 503);
      // the figure is how long the client waits for it.
      const burstAccounts = await stack.createAccounts(50, { credits: 1_000_000 });
      const burstStatuses = new Map<number, number>();
      const burstIds: string[] = [];
      const burst = await measured(() =>
        Promise.all(
          Array.from({ length: 100 }, async (_, index) => {
            const account = burstAccounts[index % burstAccounts.length];
            const started = performance.now();
            const response = await fetch(`${apiUrl}/api/v1/tts/synthesize/`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${account.token}` },
              body: JSON.stringify({ text: TEXT_100, voice_id: FAST_VOICE }),
            });
            const ms = performance.now() - started;
            burstStatuses.set(response.status, (burstStatuses.get(response.status) ?? 0) + 1);
            if (response.status === 202) burstIds.push(((await response.json()) as { id: string }).id);
            else await response.text();
            return ms;
          }),
        ),
      );
      const answered = [...burstStatuses].map(([status, count]) => `${count} × ${status}`).join(', ');
      rows.push([
        'submit latency p50 / p99, 100 parallel submits from 50 accounts',
        `${fmt(percentile(burst.result, 0.5), 0)} / ${fmt(percentile(burst.result, 0.99), 0)} ms`,
        answered,
        '-',
        'no 503',
      ]);
      // Let the burst drain before the next phase measures anything.
      await waitFor(
        'the burst to drain',
        async () =>
          Number(
            (
              await db('syntheses')
                .whereIn('id', burstIds)
                .whereIn('status', ['queued', 'processing'])
                .count<{ count: string }[]>({ count: '*' })
            )[0].count,
          ) === 0,
        600_000,
      );

      // 2. Overhead at light load, against the raw engine CLI for the same text and voice.
      // The raw engine: one text2wave process per text, as Festival ships it.
      const voice = findPremadeVoice(VOICE)!;
      const text2wave = async (text: string, outPath: string) => {
        writeFileSync(`${outPath}.txt`, text);
        await run('text2wave', ['-eval', `(voice_${voice.engineVoice})`, '-o', outPath, `${outPath}.txt`]);
      };
      const rawTimes: number[] = [];
      const e2eTimes: number[] = [];
      let lastLight: Awaited<ReturnType<typeof synthesize>> | undefined;
      /** Each history event of the synthesis's workflows, and what the client saw, on one clock. */
      const timeline = async ({ id, submittedAt, answeredAt, seenAt }: NonNullable<typeof lastLight>) => {
        const marks: [number, string][] = [
          [0, 'client: POST sent'],
          [answeredAt - submittedAt, 'client: 202 received'],
          [seenAt - submittedAt, 'client: status completed seen'],
        ];
        for (const workflowId of [`credits:reserve:${id}`, `synthesis:${id}`, `credits:capture:${id}`]) {
          // (credits:reserve exists only for syntheses of older versions: fetchHistory fails and adds nothing.)
          const events =
            (
              await temporal.workflow
                .getHandle(workflowId)
                .fetchHistory()
                .catch(() => ({ events: [] }))
            ).events ?? [];
          for (const event of events) {
            const kind =
              Object.keys(event).find(
                (key) => key.endsWith('EventAttributes') && (event as Record<string, unknown>)[key],
              ) ?? 'event';
            marks.push([
              eventMs(event) - submittedAt,
              `${workflowId.split(':').slice(0, -1).join(':')}: ${kind.replace(/EventAttributes$/, '')}`,
            ]);
          }
        }
        return table(
          ['ms', 'event'],
          marks.sort((a, b) => a[0] - b[0]).map(([ms, what]) => [String(ms), what]),
        );
      };
      for (let i = 0; i < 12 * N; i++) {
        const out = path.join(dataDir, `raw-${i}.wav`);
        const started = performance.now();
        await text2wave(TEXT_100, out);
        rawTimes.push(performance.now() - started);
        lastLight = await synthesize(TEXT_100);
        e2eTimes.push(lastLight.ms);
      }
      sections.push(
        `Timeline of one synthesis at light load (ms after the client sent it):\n\n${await timeline(lastLight!)}`,
      );
      /** Each activity of a synthesis workflow: when it was scheduled, started (a worker took it) and completed. */
      const activitySpans = async ({ id, submittedAt, seenAt }: NonNullable<typeof lastLight>) => {
        const events = (await temporal.workflow.getHandle(`synthesis:${id}`).fetchHistory()).events ?? [];
        const at = (event: HistoryEvent) => eventMs(event) - submittedAt;
        const spans = new Map<string, { name: string; times: number[] }>();
        for (const event of events) {
          if (event.activityTaskScheduledEventAttributes)
            spans.set(String(event.eventId), {
              name: event.activityTaskScheduledEventAttributes.activityType?.name ?? '?',
              times: [at(event)],
            });
          const done = event.activityTaskStartedEventAttributes ?? event.activityTaskCompletedEventAttributes;
          if (done) spans.get(String(done.scheduledEventId))?.times.push(at(event));
        }
        const rows = [...spans.values()].map(({ name, times }) => [
          name,
          ...times.map(String),
          String((times[2] ?? NaN) - (times[1] ?? NaN)),
        ]);
        rows.push(['client: status completed seen', '', '', String(seenAt - submittedAt), '']);
        return table(['activity', 'scheduled', 'started', 'completed', 'ran ms'], rows);
      };
      const rawP50 = percentile(rawTimes, 0.5);
      const rawP95 = percentile(rawTimes, 0.95);
      // Against the raw CLI's median: its own p95 is one slow spawn among few samples, not the engine's cost.
      rows.push([
        `overhead p50: submit→completed minus raw CLI (poll ${POLL_MS} ms)`,
        `${fmt(percentile(e2eTimes, 0.5) - rawP50, 0)} ms`,
        `${fmt(rawP50, 0)} ms raw p50 (p95 ${fmt(rawP95, 0)})`,
        fmt(percentile(e2eTimes, 0.5) / rawP50, 2),
        '<= 100 ms',
      ]);
      rows.push([
        'overhead p95: submit→completed p95 minus raw CLI p50',
        `${fmt(percentile(e2eTimes, 0.95) - rawP50, 0)} ms`,
        `${fmt(rawP50, 0)} ms raw p50`,
        fmt(percentile(e2eTimes, 0.95) / rawP50, 2),
        '',
      ]);

      // 3. Long text: parallel chunks against one serial CLI run over the same text.
      const longText = Array.from(
        { length: 90 },
        (_, i) => `Sentence number ${i + 1} tells a little more of the story, slowly.`,
      )
        .join(' ')
        .slice(0, 5000);
      const rawLongStarted = performance.now();
      const rawLongPath = path.join(dataDir, 'raw-long.wav');
      await text2wave(longText, rawLongPath);
      const rawLongRtf =
        (await readWavInfo(rawLongPath)).durationSeconds / ((performance.now() - rawLongStarted) / 1000);
      const long = await synthesize(longText);
      const longRtf = long.audioSeconds / (long.ms / 1000);
      sections.push(
        `Activities of the long-text synthesis (ms after the client sent it; scheduled → started → completed):\n\n${await activitySpans(long)}`,
      );
      rows.push([
        `long text (${longText.length} chars, ${VOICE}): audio s per wall s`,
        fmt(longRtf, 2),
        `${fmt(rawLongRtf, 2)} raw serial`,
        fmt(longRtf / rawLongRtf, 2),
        '>= 1.6',
      ]);

      // 4. API: authenticated status polls of a completed synthesis against a bare Koa JSON handler.
      rows.push(
        await statusReadRow('API: status polls (completed, JWT)', apiUrl, long.id, {
          token: accounts[0].token,
          warm: false,
        }),
      );

      // 5. Memory during 1-4.
      notePeakRss();
      rows.push(['peak RSS api (1-4)', `${fmt(peakRss.api, 0)} MiB`, '-', '-', '']);
      rows.push(['peak RSS worker (1-4)', `${fmt(peakRss.worker, 0)} MiB`, '-', '-', '']);

      // 6. Scaling: worker processes × engine activity concurrency per process.
      const scaling: string[][] = [];
      const scaleCount = 24 * N;
      let single: number | undefined;
      for (const [count, concurrency] of SCALING
        ? ([
            [1, 1],
            [1, 2],
            [1, 4],
            [2, 1],
            [2, 2],
          ] as const)
        : []) {
        await startWorkers(count, concurrency);
        await synthesize(TEXT_100); // warm the new processes
        const run = await syntheses(scaleCount, PATIENT_POLL_MS);
        single ??= run.rate;
        scaling.push([
          String(count),
          String(concurrency),
          fmt(run.rate, 2),
          fmt(run.rate / single, 2),
          ...cpuPerItem(run.cpu, scaleCount),
          busy(run.cpu, run.seconds),
        ]);
      }
      if (SCALING)
        sections.push(
          `Scaling (${scaleCount} syntheses of 100 chars, ${CLIENTS} clients polling every ${PATIENT_POLL_MS} ms); CPU ms per synthesis by process; machine busy = CPU used / (wall × cores):\n\n` +
            table(['workers', 'concurrency each', 'syntheses/s', 'vs 1×1', ...GROUP_ORDER, 'machine busy'], scaling),
        );

      // Where the time goes inside the Node processes: a CPU profile of the end-to-end phase.
      if (PROFILE) {
        await startWorkers(1, undefined, 'worker');
        await startApi('api');
        await synthesize(TEXT_100);
        await syntheses(e2eCount);
        await stack.stopWorkers();
        await stack.stopApi();
        for (const name of ['api', 'worker']) {
          const dir = path.join(profileDir, name);
          mkdirSync(dir, { recursive: true });
          for (const file of readdirSync(dir)) {
            const { byOwner, byFunction, seconds } = summarizeProfile(path.join(dir, file));
            sections.push(
              `CPU profile of the ${name} during ${e2eCount} syntheses (${fmt(seconds)} s busy; self time):\n\n` +
                table(
                  ['where', 'share'],
                  byOwner.map(([where, share]) => [where, `${fmt(share * 100)} %`]),
                ) +
                '\n' +
                table(
                  ['function', 'share'],
                  byFunction.map(([where, share]) => [where, `${fmt(share * 100)} %`]),
                ),
            );
          }
        }
      }
    }
  } finally {
    await stack.close();
  }

  process.stdout.write(
    `\nOpenVox service benchmark — ${new Date().toISOString()}, node ${process.version}, BENCH_N=${N}\n\n`,
  );
  process.stdout.write(table(['figure', 'value', 'baseline (same run)', 'ratio', 'target'], rows));
  for (const section of sections) process.stdout.write(`\n${section}`);
}

/** Share of the machine's CPU a phase used. */
function busy(cpu: Map<string, number>, seconds: number): string {
  const total = [...cpu.values()].reduce((sum, value) => sum + value, 0);
  return `${fmt((total / (seconds * availableCores)) * 100, 0)} %`;
}
const availableCores = availableParallelism();

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
