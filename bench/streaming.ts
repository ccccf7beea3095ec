import { Client, Connection } from '@temporalio/client';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { createTokenService } from '../api/auth/tokens';
import { hashPassword } from '../api/auth/passwords';
import { renderChunk } from '../audio/render';
import { splitSentences } from '../engines/text';
import { createDb } from '../db/knex';
import { migrate } from '../db/migrate';
import { findPremadeVoice } from '../engines/catalog';
import { sharedEngines } from '../engines/registry';
import { mapLimit } from '../lib/concurrency';
import { loadConfig, ROOT } from '../lib/config';
import { cpuTaskQueue } from '../lib/temporal';
import {
  dropDatabase,
  ensurePostgres,
  freePort,
  type Managed,
  recreateDatabase,
  startMinio,
  startTemporal,
  stopChild,
  waitFor,
} from '../scripts/stack';
import { TRAIN_SENTENCES } from './texts';
import { table } from './report';

/**
 * The OpenAI-compatible endpoint's streaming, measured on its own isolated
 * stack (api and worker processes, as deployed): time to the first audio
 * byte at light load (one request at a time) against the engine's time for
 * the first sentence alone in the same run, and streaming throughput with 8
 * clients at once. The machine is shared and noisy: compare the ratios.
 *
 * Run: npm run bench:streaming   (BENCH_N=2 doubles the samples; BENCH_VOICE=en-us-joe for the neural voice)
 */

const N = Number(process.env.BENCH_N ?? 1);
const CLIENTS = 8;
// A catalog voice id, not an OpenAI name: the names now follow the installed neural voices, and the history of these figures is en-us-slt's.
const ENGINE_VOICE = process.env.BENCH_VOICE ?? 'en-us-slt';
const VOICE = ENGINE_VOICE;
const TEXT = TRAIN_SENTENCES.join(' ');

const fmt = (value: number, digits = 0) => value.toFixed(digits);
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))];

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'openvox-bench-streaming-'));
  const logDir = path.join(dataDir, 'logs');
  const [temporalPort, minioPort, minioConsole, apiPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const devUrl = loadConfig().DATABASE_URL;
  const benchUrl = devUrl.replace(/\/([^/]+)$/, '/$1_bench_streaming');
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
    // No voice previews: a new stack's worker renders one per premade voice at start, into the first rounds.
    VOICE_PREVIEWS: 'false',
  };
  const config = loadConfig(env);
  const services: Managed[] = [];
  const children: ChildProcess[] = [];
  const startNode = (name: 'api' | 'worker') => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', name, 'main.js')], {
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.push(child);
    return child;
  };
  const rows: string[][] = [];
  try {
    services.push(await ensurePostgres(devUrl));
    await recreateDatabase(benchUrl);
    services.push(await startTemporal({ port: temporalPort, uiPort: 0, headless: true, logDir }));
    services.push(
      await startMinio({
        port: minioPort,
        consolePort: minioConsole,
        dataDir: path.join(dataDir, 'minio'),
        accessKey: 'bench',
        secretKey: 'bench-secret',
        logDir,
      }),
    );
    const db = createDb(config);
    await migrate(db, config);
    const temporal = new Client({ connection: await Connection.connect({ address: config.TEMPORAL_ADDRESS }) });
    const worker = startNode('worker');
    const identity = `${worker.pid}@${hostname()}`;
    const polling = async (queue: string, type: number) =>
      (
        await temporal.workflowService.describeTaskQueue({
          namespace: config.TEMPORAL_NAMESPACE,
          taskQueue: { name: queue },
          taskQueueType: type,
        })
      ).pollers?.some((poller) => poller.identity === identity) ?? false;
    await waitFor(
      'worker',
      async () => (await polling(config.TEMPORAL_TASK_QUEUE, 1)) && (await polling(cpuTaskQueue(config), 2)),
      120_000,
    );
    startNode('api');
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    await waitFor('API', async () => (await fetch(`${apiUrl}/readyz`)).ok, 120_000);

    const tokens = createTokenService(config, new TextEncoder().encode(env.JWT_SECRET));
    const passwordHash = await hashPassword('bench password');
    const accounts = await Promise.all(
      Array.from({ length: CLIENTS }, async (_, index) => {
        const id = randomUUID();
        await db('accounts').insert({
          id,
          email: `bench-${index}-${id}@example.com`,
          password_hash: passwordHash,
          email_verified_at: new Date(),
          credit_balance: 10_000_000,
        });
        return tokens.issueAccess(id);
      }),
    );

    /** One streamed request: when the headers, the first audio byte and the last came, and the audio seconds it carried. */
    const stream = async (token: string, format = 'mp3') => {
      const started = performance.now();
      const response = await fetch(`${apiUrl}/v1/audio/speech`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ model: 'tts-1', voice: VOICE, input: TEXT, response_format: format }),
      });
      if (!response.ok) throw new Error(`speech answered ${response.status}: ${await response.text()}`);
      const reader = response.body!.getReader();
      let firstByteMs = NaN;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (value.length && Number.isNaN(firstByteMs)) firstByteMs = performance.now() - started;
      }
      const totalMs = performance.now() - started;
      const id = response.headers.get('x-synthesis-id')!;
      await waitFor(
        'completion',
        async () => (await db('syntheses').where({ id }).first('status')).status !== 'processing',
        60_000,
      );
      const { duration_seconds: audioSeconds } = await db('syntheses').where({ id }).first('duration_seconds');
      return { firstByteMs, totalMs, audioSeconds: Number(audioSeconds) };
    };

    // Warm-up: the worker's Festival interpreters load their voice once (~0.5 s), as in steady use.
    await stream(accounts[0]);
    await stream(accounts[0]);

    // The engine alone on the first sentence, in this process (its own warm interpreter), between the runs.
    const engines = sharedEngines({ enableNonFree: config.ENABLE_NONFREE_ENGINES, modelsDir: config.MODELS_DIR });
    const firstSentence = splitSentences(TEXT, 400)[0];
    const engineMs: number[] = [];
    const renderFirst = async () => {
      const started = performance.now();
      await renderChunk({
        voice: findPremadeVoice(ENGINE_VOICE)!,
        text: firstSentence,
        emotion: 'neutral',
        outPath: path.join(dataDir, 'first.wav'),
        engines,
      });
      return performance.now() - started;
    };
    await renderFirst();

    const light: Awaited<ReturnType<typeof stream>>[] = [];
    for (let i = 0; i < 10 * N; i++) {
      light.push(await stream(accounts[0]));
      engineMs.push(await renderFirst());
    }
    const firstBytes = light.map((run) => run.firstByteMs);
    const totals = light.map((run) => run.totalMs);
    const engineP50 = percentile(engineMs, 0.5);
    rows.push([
      'first audio byte, light load (p50 / p95)',
      `${fmt(percentile(firstBytes, 0.5))} / ${fmt(percentile(firstBytes, 0.95))} ms`,
      `engine, first sentence alone: ${fmt(engineP50)} / ${fmt(percentile(engineMs, 0.95))} ms`,
      `${fmt(percentile(firstBytes, 0.5) / engineP50, 1)}×`,
    ]);
    rows.push([
      'whole 12-sentence stream, light load (p50)',
      `${fmt(percentile(totals, 0.5))} ms`,
      `first byte at ${fmt((percentile(firstBytes, 0.5) / percentile(totals, 0.5)) * 100)} % of it`,
      '',
    ]);

    // 8 clients streaming at once, each from its own account (the free plan's concurrency limit is per account).
    const perClient = 2 * N;
    const started = performance.now();
    const loaded = await mapLimit(
      Array.from({ length: CLIENTS * perClient }, (_, index) => accounts[index % CLIENTS]),
      CLIENTS,
      (token) => stream(token),
    );
    const wallSeconds = (performance.now() - started) / 1000;
    const audioSeconds = loaded.reduce((sum, run) => sum + run.audioSeconds, 0);
    const loadedFirst = loaded.map((run) => run.firstByteMs);
    rows.push([
      `throughput, ${CLIENTS} clients (${loaded.length} streams)`,
      `${fmt(audioSeconds / wallSeconds, 1)} audio-s per s`,
      `${fmt(loaded.length / wallSeconds, 2)} streams/s`,
      '',
    ]);
    rows.push([
      `first audio byte, ${CLIENTS} clients (p50 / p95)`,
      `${fmt(percentile(loadedFirst, 0.5))} / ${fmt(percentile(loadedFirst, 0.95))} ms`,
      `light load p50 ${fmt(percentile(firstBytes, 0.5))} ms`,
      `${fmt(percentile(loadedFirst, 0.5) / percentile(firstBytes, 0.5), 1)}×`,
    ]);
    const realTime = loaded.map((run) => run.audioSeconds / (run.totalMs / 1000));
    rows.push([
      `per-stream speed, ${CLIENTS} clients (p50 / min)`,
      `${fmt(percentile(realTime, 0.5), 1)}× / ${fmt(Math.min(...realTime), 1)}× real time`,
      'a stream above 1× never starves its player',
      '',
    ]);

    await temporal.connection.close();
    await db.destroy();
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    for (const service of services.reverse()) await service.stop().catch(() => undefined);
    await dropDatabase(benchUrl).catch(() => undefined);
  }
  process.stdout.write(
    `\nOpenVox streaming benchmark — ${new Date().toISOString()}, node ${process.version}, BENCH_N=${N}, voice ${VOICE}\n\n`,
  );
  process.stdout.write(table(['figure', 'value', 'baseline (same run)', 'ratio'], rows));
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
