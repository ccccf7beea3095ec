import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePorts, startTemporal, TEMPORAL_DYNAMIC_CONFIG, type TemporalOptions } from '../../scripts/stack';
import { table } from '../report';

/**
 * The Temporal dev server's own settings, measured on the orchestration
 * baselines (./workflows.ts, no-op activities, a worker in this process): for
 * each variant a fresh server on a sqlite file, then
 *
 * - one no-op activity on the workflow's own task queue, one at a time: p50
 *   from start to result (the case eager activity dispatch shortens);
 * - the synthesis graph with one render, one at a time: p50;
 * - the same graph, CONCURRENCY at once: workflows per second.
 *
 * Variants alternate round after round (the machine is shared). Run:
 * npx tsx bench/orchestration/server.ts   (ROUNDS=3, SAMPLES=30, BURST=200)
 */

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SAMPLES = Number(process.env.SAMPLES ?? 30);
const BURST = Number(process.env.BURST ?? 200);
const CONCURRENCY = 8;
const QUEUE = 'orchestration-bench';

interface Variant {
  name: string;
  options: Pick<TemporalOptions, 'sqlite' | 'dynamicConfig'>;
}

/** The server's default; TEMPORAL_DYNAMIC_CONFIG turns eager activities on. */
const noEager = { 'system.enableActivityEagerExecution': false };

const VARIANTS: Variant[] = [
  {
    name: 'sqlite defaults (rollback journal, synchronous=FULL)',
    options: { sqlite: 'durable', dynamicConfig: noEager },
  },
  { name: 'WAL, synchronous=NORMAL', options: { sqlite: 'wal', dynamicConfig: noEager } },
  { name: 'WAL, synchronous=OFF', options: { sqlite: 'fast', dynamicConfig: noEager } },
  { name: 'WAL, synchronous=NORMAL, eager activities', options: { sqlite: 'wal' } },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measure(variant: Variant, workflowBundle: { code: string }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'orchestration-bench-'));
  const [port] = await freePorts(1);
  const server = await startTemporal({
    port,
    uiPort: 0,
    headless: true,
    dbFile: path.join(dir, 'temporal.sqlite'),
    logDir: dir,
    ...variant.options,
  });
  const native = await NativeConnection.connect({ address: `127.0.0.1:${port}` });
  const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
  const client = new Client({ connection });
  const worker = await Worker.create({
    connection: native,
    taskQueue: QUEUE,
    workflowBundle,
    activities: { async noop() {} },
  });
  const running = worker.run();
  const run = (type: string, args: unknown[] = []) =>
    client.workflow.execute(type, { taskQueue: QUEUE, workflowId: `bench-${randomUUID()}`, args });
  const timed = async (type: string, args: unknown[] = []) => {
    const started = performance.now();
    await run(type, args);
    return performance.now() - started;
  };
  try {
    for (let i = 0; i < 5; i++) await timed('benchSynthesisShape', [1]);
    const noop: number[] = [];
    const shape: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      noop.push(await timed('benchNoop'));
      shape.push(await timed('benchSynthesisShape', [1]));
    }
    let left = BURST;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) await run('benchSynthesisShape', [1]);
      }),
    );
    const perSecond = BURST / ((performance.now() - started) / 1000);
    return { noop: median(noop), shape: median(shape), perSecond };
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
    await native.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows'),
    logger: new DefaultLogger('WARN'),
  });
  process.stdout.write(`dynamic config always: ${JSON.stringify(TEMPORAL_DYNAMIC_CONFIG)}\n`);
  const rows: string[][] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order so no variant always runs first (or last) in a round.
    const order = round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
    for (const variant of order) {
      const { noop, shape, perSecond } = await measure(variant, workflowBundle);
      rows.push([String(round + 1), variant.name, noop.toFixed(1), shape.toFixed(1), perSecond.toFixed(1)]);
      process.stdout.write(`${rows.at(-1)!.join(' | ')}  (load ${os.loadavg()[0].toFixed(1)})\n`);
    }
  }
  process.stdout.write(
    table(
      [
        'round',
        'server',
        '1 activity, p50 ms',
        'synthesis graph, p50 ms',
        `synthesis graph, ${CONCURRENCY} at once: per s`,
      ],
      rows,
    ),
  );
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : error}\n`);
  process.exit(1);
});
