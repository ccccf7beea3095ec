import autocannon from 'autocannon';
import Koa from 'koa';
import { writeFileSync } from 'node:fs';
import { serve } from '../api/listen';
import path from 'node:path';
import { findPremadeVoice } from '../engines/catalog';
import { createEngines } from '../engines/registry';
import type { EngineName } from '../engines/types';
import { mapLimit } from '../lib/concurrency';
import type { IsolatedStack, StackAccount } from '../scripts/isolatedStack';
import { cpuDelta, cpuSnapshot, type ProcessGroup } from './processes';
import { table } from './report';

/**
 * The service's performance goals, each against a baseline measured in the
 * same run: the orchestration's CPU against the engine's own, light-load
 * latency and the streaming endpoint's first audio against the raw engine
 * (warm, in this process), and the API's memory under streaming load.
 * Clients follow a synthesis with the status endpoint's Server-Sent Events,
 * so no poll interval enters a figure.
 */

export type Row = [figure: string, value: string, baseline: string, ratio: string, target: string];
const fmt = (value: number, digits = 1) => value.toFixed(digits);
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))];
export const median = (values: number[]) => percentile(values, 0.5);

export const ONE_SENTENCE =
  'The morning train left on time, and every passenger found a seat by the window before the first stop.';
const FIRST_SENTENCE = 'The morning train left on time.';
const STREAMED = `${FIRST_SENTENCE} Every passenger found a seat by the window before the first stop. The conductor walked through the cars and smiled at the children. Outside, the fields went by in long green stripes.`;

/**
 * The stack's processes for CPU accounting, limited to this stack's own (the
 * machine runs other stacks): the engine (kept Festival interpreters and Piper
 * hosts of this stack's workers), the encoder and short-lived engine runs (the
 * workers' exited children), and everything else that a synthesis costs.
 */
export function stackGroups(stack: IsolatedStack): ProcessGroup[] {
  const workerPids = () => new Set(stack.workers().map((child) => child.pid));
  const database = stack.config.DATABASE_URL.replace(/.*\//, '');
  return [
    {
      name: 'engine',
      match: (stat) =>
        (stat.comm === 'festival' || stat.cmdline.includes(path.join('piper', 'host'))) && workerPids().has(stat.ppid),
    },
    { name: 'api', match: (stat) => stat.pid === stack.api()?.pid },
    // Piper's kept espeak-ng (engines/piper/espeakProcess.ts) counts where the process per clause it replaced did.
    { name: 'encoder+spawned', match: (stat) => stat.comm === 'espeak-ng' && workerPids().has(stat.ppid) },
    { name: 'worker', match: (stat) => workerPids().has(stat.pid), childrenName: 'encoder+spawned' },
    {
      name: 'temporal',
      match: (stat) => stat.comm === 'temporal' && stat.cmdline.includes(`--port ${stack.ports.temporal} `),
    },
    {
      name: 'postgres',
      match: (stat) => stat.cmdline.startsWith('postgres:') && stat.cmdline.includes(` ${database} `),
    },
    {
      name: 'minio',
      match: (stat) => stat.comm === 'minio' && stat.cmdline.includes(`127.0.0.1:${stack.ports.minio} `),
    },
  ];
}
const TAX = ['api', 'worker', 'temporal', 'postgres', 'minio'];

/** Reads Server-Sent Events until `until` says stop; resolves with the data of the last event read. */
export async function followEvents(response: Response, until: (event: string, data: string) => boolean): Promise<void> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error('event stream ended early');
      buffer += value;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
        const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
        // A comment (keep-alive) says nothing.
        if (!event && !data) continue;
        if (until(event, data)) return;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Statements PostgreSQL ran for this stack's database so far (each autocommit statement is a transaction). */
async function transactions(stack: IsolatedStack): Promise<number> {
  const row = await stack.db.raw(
    'select xact_commit + xact_rollback as count from pg_stat_database where datname = current_database()',
  );
  return Number(row.rows[0].count);
}

/** History events of a synthesis's workflows: the synthesis and its credit capture. */
async function historyEvents(stack: IsolatedStack, id: string): Promise<string> {
  const count = async (workflowId: string) =>
    ((await stack.temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? []).length;
  const [synthesis, capture] = await Promise.all([
    count(`synthesis:${id}`),
    count(`credits:capture:${id}`).catch(() => 0),
  ]);
  return `${synthesis} + ${capture}`;
}

export function goalClients(stack: IsolatedStack) {
  /** Submit, then follow the status as SSE until completed: the client's wall time, no poll interval in it. */
  const synthesizeSse = async (account: StackAccount, text: string, voiceId: string) => {
    const started = performance.now();
    const auth = { Authorization: `Bearer ${account.token}` };
    const accepted = await submit(stack.apiUrl, account, text, voiceId);
    let audioSeconds = 0;
    await followEvents(
      await fetch(`${stack.apiUrl}${accepted.status_url}`, { headers: { ...auth, Accept: 'text/event-stream' } }),
      (event, data) => {
        if (event !== 'status') throw new Error(`status stream: ${event} ${data}`);
        const status = JSON.parse(data) as { status: string; duration_seconds: number };
        if (status.status === 'failed' || status.status === 'canceled')
          throw new Error(`synthesis ${accepted.id} ${status.status}`);
        audioSeconds = status.duration_seconds;
        return status.status === 'completed';
      },
    );
    return { id: accepted.id, ms: performance.now() - started, audioSeconds };
  };
  /** POST /v1/audio/speech (streamed mp3): when the first audio byte came, and when the last. */
  const speech = async (account: StackAccount, text: string, voice: string) => {
    const started = performance.now();
    const response = await fetch(`${stack.apiUrl}/v1/audio/speech`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${account.token}` },
      body: JSON.stringify({ model: 'tts-1', voice, input: text, response_format: 'mp3' }),
    });
    if (response.status !== 200) throw new Error(`speech answered ${response.status}: ${await response.text()}`);
    const reader = response.body!.getReader();
    let firstMs = NaN;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.length && Number.isNaN(firstMs)) firstMs = performance.now() - started;
    }
    return { firstMs, totalMs: performance.now() - started };
  };
  return { synthesizeSse, speech };
}

/** The engine alone, warm, in this process (Festival's kept interpreter, Piper's kept host): ms per render of `text`. */
export async function rawEngine(
  stack: IsolatedStack,
  voiceId: string,
  text: string,
  runs: number,
  dir: string,
): Promise<number[]> {
  const voice = findPremadeVoice(voiceId)!;
  const engines = createEngines({ modelsDir: stack.config.MODELS_DIR });
  const engine = engines.get(voice.engine as EngineName)!;
  const outPath = path.join(dir, `raw-${voiceId}.wav`);
  await engine.synthesize({ text, voice: voice.engineVoice, outPath }); // warm
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await engine.synthesize({ text, voice: voice.engineVoice, outPath });
    times.push(performance.now() - started);
  }
  return times;
}

export interface GoalContext {
  stack: IsolatedStack;
  accounts: StackAccount[];
  rows: Row[];
  sections: string[];
  N: number;
  /** The api's resident memory now, MiB. */
  apiRssMiB: () => number;
}

/** Each figure printed as it is measured too: a later failure loses none. */
const noted = (rows: Row[]) => ({
  push(row: Row) {
    process.stdout.write(`| ${row.join(' | ')} |\n`);
    rows.push(row);
  },
});

export async function measureGoals(context: GoalContext): Promise<void> {
  const { stack, accounts, sections, N, apiRssMiB } = context;
  const rows = noted(context.rows);
  const groups = stackGroups(stack);
  const { synthesizeSse, speech } = goalClients(stack);
  const dir = stack.dataDir;
  writeFileSync(path.join(dir, 'goals.txt'), STREAMED);

  // 1. Orchestration tax: CPU outside the engine per synthesis, against the engine's own CPU.
  const taxRows: string[][] = [];
  for (const voiceId of ['en-us-slt', 'en-us-joe']) {
    await mapLimit(accounts.slice(0, 4), 4, (account) => synthesizeSse(account, ONE_SENTENCE, voiceId)); // warm
    const count = 24 * N;
    const transactionsBefore = await transactions(stack);
    const before = cpuSnapshot(groups);
    const done = await mapLimit(
      Array.from({ length: count }, (_, i) => accounts[i % accounts.length]),
      4,
      (account) => synthesizeSse(account, ONE_SENTENCE, voiceId),
    );
    const cpu = cpuDelta(before, cpuSnapshot(groups));
    // PostgreSQL publishes a backend's counts within a second or so of its last transaction.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const perSynthesisTransactions = ((await transactions(stack)) - transactionsBefore) / count;
    const events = await historyEvents(stack, done.at(-1)!.id);
    const per = (name: string) => ((cpu.get(name) ?? 0) * 1000) / count;
    const tax = TAX.reduce((sum, name) => sum + per(name), 0);
    rows.push([
      `orchestration tax: CPU outside engine+encoder per synthesis (${ONE_SENTENCE.length} chars, ${voiceId}, 4 SSE clients)`,
      `${fmt(tax, 0)} ms`,
      `${fmt(per('engine'), 0)} ms engine`,
      fmt(tax / per('engine'), 2),
      '<= 0.5',
    ]);
    taxRows.push([
      voiceId,
      ...['engine', 'encoder+spawned', ...TAX].map((name) => fmt(per(name), 0)),
      fmt(perSynthesisTransactions, 1),
      events,
    ]);
  }
  sections.push(
    `CPU ms per synthesis (${ONE_SENTENCE.length} chars, 4 SSE clients), this stack's processes only:\n\n${table(['voice', 'engine', 'encoder+spawned', ...TAX, 'PostgreSQL statements', 'history events (synthesis + capture)'], taxRows)}`,
  );
  process.stdout.write(sections.at(-1)!);

  // 2. Light-load overhead, one client following the status by SSE, against the raw engine (warm).
  for (const voiceId of ['en-us-slt', 'en-us-joe']) {
    const raw = await rawEngine(stack, voiceId, ONE_SENTENCE, 10 * N, dir);
    const e2e: number[] = [];
    for (let i = 0; i < 10 * N; i++)
      e2e.push((await synthesizeSse(accounts[i % accounts.length], ONE_SENTENCE, voiceId)).ms);
    rows.push([
      `light-load overhead p50: submit→completed (SSE) minus raw engine, ${voiceId}`,
      `${fmt(median(e2e) - median(raw), 0)} ms`,
      `${fmt(median(raw), 0)} ms raw engine p50`,
      fmt(median(e2e) / median(raw), 2),
      '<= 50 ms',
    ]);
  }

  // 3. Time to first audio on POST /v1/audio/speech (mp3, streamed), against the raw engine's first sentence.
  const rawFirst = median(await rawEngine(stack, 'en-us-slt', FIRST_SENTENCE, 10 * N, dir));
  const light: number[] = [];
  for (let i = 0; i < 10 * N; i++)
    light.push((await speech(accounts[i % accounts.length], STREAMED, 'en-us-slt')).firstMs);
  rows.push([
    'time to first audio p50, /v1/audio/speech mp3, 1 client (en-us-slt)',
    `${fmt(median(light), 0)} ms`,
    `${fmt(rawFirst, 0)} ms raw engine, first sentence`,
    `+${fmt(median(light) - rawFirst, 0)} ms`,
    '<= +100 ms',
  ]);
  let peakApi = 0;
  const sampleRss = () => {
    const rss = apiRssMiB();
    if (rss > peakApi) peakApi = rss;
  };
  const sampler = setInterval(sampleRss, 100);
  const loaded = await mapLimit(
    Array.from({ length: 32 * N }, (_, i) => accounts[i % accounts.length]),
    8,
    (account) => speech(account, STREAMED, 'en-us-slt'),
  );
  clearInterval(sampler);
  const firsts = loaded.map((result) => result.firstMs);
  rows.push([
    'time to first audio p50 / p95, 8 streaming clients',
    `${fmt(median(firsts), 0)} / ${fmt(percentile(firsts, 0.95), 0)} ms`,
    `${fmt(rawFirst, 0)} ms raw engine`,
    '-',
    'report',
  ]);
  rows.push([
    'API RSS under 8 streaming clients (sampled every 100 ms)',
    `${fmt(peakApi, 0)} MiB`,
    '-',
    '-',
    '<= 250 MiB',
  ]);
}

export const LONG_TEXT = Array.from(
  { length: 90 },
  (_, i) => `Sentence number ${i + 1} tells a little more of the story, slowly.`,
)
  .join(' ')
  .slice(0, 5000);

/**
 * Long text: the service (chunks rendered in parallel, then joined) against
 * one serial run of the raw engine over the same text; then the same
 * synthesis with two worker processes instead of one.
 */
export async function measureLongText(context: GoalContext): Promise<void> {
  const { stack, accounts, sections } = context;
  const rows = noted(context.rows);
  const { synthesizeSse } = goalClients(stack);
  const scaling: string[][] = [];
  for (const voiceId of (process.env.BENCH_LONG_VOICES ?? 'en-us-slt,en-us-joe').split(',')) {
    // (A raw run can fail on a loaded machine, e.g. a Piper call past its timeout: the service's figures still count.)
    const raw = await rawEngine(stack, voiceId, LONG_TEXT, 1, stack.dataDir).then(
      ([ms]) => ms,
      (error) => (process.stdout.write(`raw ${voiceId} failed: ${error}\n`), NaN),
    );
    const one = await synthesizeSse(accounts[0], LONG_TEXT, voiceId);
    rows.push([
      `long text (${LONG_TEXT.length} chars, ${voiceId}): speed-up over one serial engine run`,
      `${fmt(one.ms / 1000)} s`,
      `${fmt(raw / 1000)} s raw engine, serial`,
      fmt(raw / one.ms, 2),
      '>= 1.8',
    ]);
    // Each its own metrics port would collide: off.
    await stack.startWorkers(2, { extraEnv: { WORKER_METRICS_PORT: '0' } });
    await synthesizeSse(accounts[1], ONE_SENTENCE, voiceId); // the new processes warm
    const two = await synthesizeSse(accounts[0], LONG_TEXT, voiceId);
    await stack.startWorkers(1);
    scaling.push([voiceId, fmt(one.ms / 1000), fmt(two.ms / 1000), fmt(one.ms / two.ms, 2)]);
    process.stdout.write(`| long text, 1 vs 2 worker processes | ${scaling.at(-1)!.join(' | ')} |\n`);
  }
  sections.push(
    `Long text (${LONG_TEXT.length} chars) with 1 and 2 worker processes on this machine (the same cores):\n\n${table(['voice', '1 worker s', '2 workers s', 'speed-up'], scaling)}`,
  );
}

/**
 * Status reads: authenticated polls of a completed synthesis (JWT, and an
 * API key) against a bare Koa handler answering the same JSON, 10 connections.
 */
export async function measureStatusReads(context: GoalContext): Promise<void> {
  const { stack, accounts } = context;
  const rows = noted(context.rows);
  const { synthesizeSse } = goalClients(stack);
  const done = await synthesizeSse(accounts[0], ONE_SENTENCE, 'en-us-slt');
  rows.push(
    await statusReadRow('status reads of a completed synthesis (JWT), 10 connections', stack.apiUrl, done.id, {
      token: accounts[0].token,
      warm: true,
    }),
  );
  for (const row of await queuedStatusRows(stack, accounts, done.id)) rows.push(row);
}

/** A synthesis submitted as `account` (its id and status URL). */
async function submit(apiUrl: string, account: StackAccount, text: string, voiceId = 'en-us-slt') {
  const response = await fetch(`${apiUrl}/api/v1/tts/synthesize/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${account.token}` },
    body: JSON.stringify({ text, voice_id: voiceId }),
  });
  if (response.status !== 202) throw new Error(`submit answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { id: string; status_url: string };
}

/**
 * A client's view of a job waiting for a render slot: one status poll's
 * latency (p50 of 100 in a row) and the time to the first Server-Sent Event
 * of the status stream (p50 of 10 connections), for a synthesis still
 * queued behind other accounts' long jobs, against the same reads of the
 * completed synthesis `doneId` in the same run.
 */
async function queuedStatusRows(stack: IsolatedStack, accounts: StackAccount[], doneId: string): Promise<Row[]> {
  const auth = (account: StackAccount) => ({ Authorization: `Bearer ${account.token}` });
  /** The p50 of `count` timed calls of `read`, one after another. */
  const p50Ms = async (count: number, read: () => Promise<void>) => {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await read();
      times.push(performance.now() - started);
    }
    return median(times);
  };
  const pollMs = (url: string, account: StackAccount) =>
    p50Ms(100, async () => {
      const response = await fetch(url, { headers: auth(account) });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`status poll answered ${response.status}`);
    });
  const firstEventMs = (url: string, account: StackAccount) =>
    p50Ms(10, async () =>
      followEvents(await fetch(url, { headers: { ...auth(account), Accept: 'text/event-stream' } }), () => true),
    );
  // Every render slot taken by other accounts' long texts, then one sentence that waits behind them.
  const long = Array.from({ length: 8 }, (_, i) => `${STREAMED} Part ${i + 1}. ${STREAMED}`.repeat(3));
  const blockers = await Promise.all(
    long.map(async (text, i) => {
      const account = accounts[1 + (i % 3)];
      return { account, id: (await submit(stack.apiUrl, account, text)).id };
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const queued = await submit(stack.apiUrl, accounts[0], ONE_SENTENCE);
  const queuedUrl = `${stack.apiUrl}${queued.status_url}`;
  const doneUrl = `${stack.apiUrl}/api/v1/tts/history/${doneId}/status/`;
  const statusNow = async () =>
    ((await (await fetch(queuedUrl, { headers: auth(accounts[0]) })).json()) as { status: string }).status;
  const before = await statusNow();
  const queuedPoll = await pollMs(queuedUrl, accounts[0]);
  const queuedEvent = await firstEventMs(queuedUrl, accounts[0]);
  const after = await statusNow();
  const donePoll = await pollMs(doneUrl, accounts[0]);
  const doneEvent = await firstEventMs(doneUrl, accounts[0]);
  // Deleted (canceled first): nothing after this waits for them.
  await Promise.all(
    [...blockers, { account: accounts[0], id: queued.id }].map(({ account, id }) =>
      fetch(`${stack.apiUrl}/api/v1/tts/history/${id}/`, { method: 'DELETE', headers: auth(account) }),
    ),
  );
  const state = `(the job ${before} → ${after} while measured)`;
  return [
    [
      `status poll p50, a queued job ${state}`,
      `${fmt(queuedPoll)} ms`,
      `${fmt(donePoll)} ms completed`,
      fmt(queuedPoll / donePoll, 2),
      'unchanged or better',
    ],
    [
      `SSE first event p50, a queued job ${state}`,
      `${fmt(queuedEvent)} ms`,
      `${fmt(doneEvent)} ms completed`,
      fmt(queuedEvent / doneEvent, 2),
      'unchanged or better',
    ],
  ];
}

/**
 * One row: requests per second of authenticated reads (as `token`) of the
 * status of completed synthesis `id` against a bare Koa handler answering
 * the same JSON, 10 connections for 5 s each; `warm` reads the status for 5 s first.
 */
export async function statusReadRow(
  label: string,
  apiUrl: string,
  id: string,
  options: { token: string; warm: boolean },
): Promise<Row> {
  const statusUrl = `${apiUrl}/api/v1/tts/history/${id}/status/`;
  const bare = await serve(new Koa().use((ctx) => void (ctx.body = { id, status: 'completed', progress: 1 })));
  const load = async (url: string, headers: Record<string, string> = {}) =>
    (await autocannon({ url, connections: 10, duration: 5, headers })).requests.average;
  const auth = { Authorization: `Bearer ${options.token}` };
  if (options.warm) await load(statusUrl, auth);
  const bareRps = await load(bare.url);
  const rps = await load(statusUrl, auth);
  await bare.close();
  return [label, `${fmt(rps, 0)} req/s`, `${fmt(bareRps, 0)} req/s bare Koa`, fmt(rps / bareRps, 2), '>= 0.3'];
}
