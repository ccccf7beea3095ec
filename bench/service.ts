import { Client, Connection } from '@temporalio/client';
import autocannon from 'autocannon';
import Koa from 'koa';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serve } from '../api/listen';
import { createTokenService } from '../api/auth/tokens';
import { hashPassword } from '../api/auth/passwords';
import { createDb } from '../db/knex';
import { migrate } from '../db/migrate';
import { createEngines } from '../engines/registry';
import { findPremadeVoice } from '../engines/catalog';
import { readWavInfo } from '../audio/wav';
import { splitText } from '../audio/text';
import { loadConfig, ROOT } from '../lib/config';
import { dropDatabase, ensurePostgres, freePort, type Managed, recreateDatabase, startMinio, startTemporal, stopChild, waitFor } from '../scripts/stack';

/**
 * The whole service measured against its own limits, in one run, on its own
 * isolated stack (ports, database, data directory). Every figure is printed
 * with the baseline measured in the same run and their ratio: the machine is
 * shared and noisy, so only ratios compare across runs.
 * Run: npm run bench:service  (BENCH_N scales the sample sizes).
 */

const N = Number(process.env.BENCH_N ?? 1);
const VOICE = 'en-us-slt';
const TEXT_100 = 'The morning train left on time, and every passenger found a seat by the window before the first stop.';

type Row = [figure: string, value: string, baseline: string, ratio: string, target: string];
const rows: Row[] = [];
const fmt = (value: number, digits = 1) => value.toFixed(digits);
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))];

async function mapLimit<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]);
      }
    }),
  );
  return results;
}

/** Peak resident memory of a process (Linux VmHWM), MiB. */
function peakRssMiB(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'openvox-bench-'));
  const logDir = path.join(dataDir, 'logs');
  const [temporalPort, minioPort, minioConsole, apiPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const devUrl = loadConfig().DATABASE_URL;
  const benchUrl = devUrl.replace(/\/([^/]+)$/, '/$1_bench');
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    DATABASE_URL: benchUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    MINIO_ENDPOINT: `http://127.0.0.1:${minioPort}`,
    MINIO_ACCESS_KEY: 'bench',
    MINIO_SECRET_KEY: 'bench-secret',
    PORT: String(apiPort),
    JWT_SECRET: randomUUID() + randomUUID(),
  };
  const config = loadConfig(env);
  const services: Managed[] = [];
  const children: ChildProcess[] = [];
  try {
    services.push(await ensurePostgres(devUrl));
    await recreateDatabase(benchUrl);
    services.push(await startTemporal({ port: temporalPort, uiPort: 0, headless: true, logDir }));
    services.push(await startMinio({ port: minioPort, consolePort: minioConsole, dataDir: path.join(dataDir, 'minio'), accessKey: 'bench', secretKey: 'bench-secret', logDir }));
    const db = createDb(config);
    await migrate(db, config);

    for (const name of ['worker', 'api']) {
      children.push(spawn(process.execPath, [path.join(ROOT, 'dist', name, 'main.js')], { env, stdio: ['ignore', 'inherit', 'inherit'] }));
    }
    const [worker, api] = children;
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    await waitFor('API', async () => (await fetch(`${apiUrl}/readyz`)).ok, 120_000);

    // Accounts enough that no plan's max_concurrent_syntheses caps the load.
    const tokens = createTokenService(config, new TextEncoder().encode(env.JWT_SECRET));
    const passwordHash = await hashPassword('bench password');
    const accounts = await Promise.all(
      Array.from({ length: 24 }, async (_, index) => {
        const id = randomUUID();
        await db('accounts').insert({ id, email: `bench-${index}-${id}@example.com`, password_hash: passwordHash, email_verified_at: new Date(), credit_balance: 10_000_000 });
        return { id, token: await tokens.issueAccess(id) };
      }),
    );

    const temporal = new Client({ connection: await Connection.connect({ address: config.TEMPORAL_ADDRESS }) });
    const synthesize = async (text: string, account: { token: string }) => {
      const started = performance.now();
      const response = await fetch(`${apiUrl}/api/v1/tts/synthesize/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${account.token}` },
        body: JSON.stringify({ text, voice_id: VOICE }),
      });
      const accepted = (await response.json()) as { id: string; status_url: string };
      for (;;) {
        const status = (await (await fetch(`${apiUrl}${accepted.status_url}`, { headers: { Authorization: `Bearer ${account.token}` } })).json()) as { status: string; duration_seconds: number };
        if (status.status === 'completed') return { id: accepted.id, ms: performance.now() - started, audioSeconds: status.duration_seconds };
        if (status.status !== 'queued' && status.status !== 'processing') throw new Error(`synthesis ${accepted.id} ${status.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const workflowsPerSecond = async (count: number, concurrency: number, run: () => Promise<unknown>) => {
      const started = performance.now();
      await mapLimit(Array.from({ length: count }), concurrency, run);
      return count / ((performance.now() - started) / 1000);
    };

    // Warm-up: engines, caches, JIT.
    await mapLimit(accounts.slice(0, 4), 4, (account) => synthesize(TEXT_100, account));

    // 1. Orchestration limit.
    const CONCURRENCY = 12;
    const noopRate = await workflowsPerSecond(60 * N, CONCURRENCY, () =>
      temporal.workflow.execute('benchNoop', { taskQueue: config.TEMPORAL_TASK_QUEUE, workflowId: `bench-noop-${randomUUID()}` }),
    );
    const chunks = splitText(TEXT_100, 400).length;
    const shapeRate = await workflowsPerSecond(60 * N, CONCURRENCY, () =>
      temporal.workflow.execute('benchSynthesisShape', { taskQueue: config.TEMPORAL_TASK_QUEUE, workflowId: `bench-shape-${randomUUID()}`, args: [chunks] }),
    );
    let accountIndex = 0;
    const e2eRate = await workflowsPerSecond(36 * N, CONCURRENCY, () => synthesize(TEXT_100, accounts[accountIndex++ % accounts.length]));
    rows.push(['orchestration: trivial workflow (1 no-op activity)', `${fmt(noopRate)} wf/s`, '-', '-', '']);
    rows.push(['orchestration: synthesis graph, no-op activities', `${fmt(shapeRate)} wf/s`, `${fmt(noopRate)} wf/s`, fmt(shapeRate / noopRate, 2), '']);
    rows.push(['syntheses end to end via HTTP (100 chars, wav)', `${fmt(e2eRate)} /s`, `${fmt(noopRate)} wf/s`, fmt(e2eRate / noopRate, 2), '>= 0.6']);

    // 2. Overhead at light load, against the raw engine CLI for the same text and voice.
    const engines = createEngines();
    const festival = engines.get('festival')!;
    const voice = findPremadeVoice(VOICE)!;
    const rawTimes: number[] = [];
    const e2eTimes: number[] = [];
    for (let i = 0; i < 8 * N; i++) {
      const out = path.join(dataDir, `raw-${i}.wav`);
      const started = performance.now();
      await festival.synthesize({ text: TEXT_100, voice: voice.engineVoice, outPath: out });
      rawTimes.push(performance.now() - started);
      e2eTimes.push((await synthesize(TEXT_100, accounts[i % accounts.length])).ms);
    }
    const rawP50 = percentile(rawTimes, 0.5);
    rows.push(['overhead p50: submit→completed minus raw CLI', `${fmt(percentile(e2eTimes, 0.5) - rawP50, 0)} ms`, `${fmt(rawP50, 0)} ms raw`, fmt(percentile(e2eTimes, 0.5) / rawP50, 2), '<= 100 ms']);
    rows.push(['overhead p95: submit→completed minus raw CLI', `${fmt(percentile(e2eTimes, 0.95) - percentile(rawTimes, 0.95), 0)} ms`, `${fmt(percentile(rawTimes, 0.95), 0)} ms raw`, fmt(percentile(e2eTimes, 0.95) / percentile(rawTimes, 0.95), 2), '']);

    // 3. Long text: parallel chunks against one serial CLI run over the same text.
    const longText = Array.from({ length: 90 }, (_, i) => `Sentence number ${i + 1} tells a little more of the story, slowly.`).join(" ").slice(0, 5000);
    const rawLongStarted = performance.now();
    const rawLongPath = path.join(dataDir, 'raw-long.wav');
    await festival.synthesize({ text: longText, voice: voice.engineVoice, outPath: rawLongPath });
    const rawLongRtf = (await readWavInfo(rawLongPath)).durationSeconds / ((performance.now() - rawLongStarted) / 1000);
    const long = await synthesize(longText, accounts[0]);
    const longRtf = long.audioSeconds / (long.ms / 1000);
    rows.push([`long text (${longText.length} chars, ${VOICE}): audio s per wall s`, fmt(longRtf, 2), `${fmt(rawLongRtf, 2)} raw serial`, fmt(longRtf / rawLongRtf, 2), '>= 1.6']);

    // 4. API: authenticated status polls of a completed synthesis against a bare Koa JSON handler.
    const bare = await serve(new Koa().use((ctx) => void (ctx.body = { id: long.id, status: 'completed', progress: 1 })));
    const load = async (url: string, headers: Record<string, string> = {}) =>
      (await autocannon({ url, connections: 10, duration: 5, headers })).requests.average;
    const bareRps = await load(bare.url);
    const pollRps = await load(`${apiUrl}/api/v1/tts/history/${long.id}/status/`, { Authorization: `Bearer ${accounts[0].token}` });
    await bare.close();
    rows.push(['API: status polls (completed, JWT)', `${fmt(pollRps, 0)} req/s`, `${fmt(bareRps, 0)} req/s bare Koa`, fmt(pollRps / bareRps, 2), '>= 0.3']);

    // 5. Memory.
    rows.push(['peak RSS api', `${fmt(peakRssMiB(api.pid!), 0)} MiB`, '-', '-', '']);
    rows.push(['peak RSS worker', `${fmt(peakRssMiB(worker.pid!), 0)} MiB`, '-', '-', '']);

    await temporal.connection.close();
    await db.destroy();
  } finally {
    for (const child of children) await stopChild(child);
    for (const service of services.reverse()) await service.stop().catch(() => undefined);
    await dropDatabase(benchUrl).catch(() => undefined);
  }

  process.stdout.write(`\nOpenVox service benchmark — ${new Date().toISOString()}, node ${process.version}, BENCH_N=${N}\n\n`);
  process.stdout.write('| figure | value | baseline (same run) | ratio | target |\n|---|---|---|---|---|\n');
  for (const row of rows) process.stdout.write(`| ${row.join(' | ')} |\n`);
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
