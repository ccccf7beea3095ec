import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createAccount } from '../helpers/factories';
import { call } from '../helpers/http';
import { createTestDeps, type RunningApi, serve } from '../helpers/stack';
import { createApp } from '../../api/app';
import { serveMetrics } from '../../lib/metricsServer';
import { spawnWorkerProcess, type WorkerProcess } from '../helpers/workerProcess';
import { freePort } from '../setup/testStack';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const parsePrometheusTextFormat: (text: string) => MetricFamily[] = require('parse-prometheus-text-format');

interface Sample {
  labels?: Record<string, string>;
  value?: string;
  buckets?: Record<string, string>;
  count?: string;
  sum?: string;
}
interface MetricFamily {
  name: string;
  help: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: Sample[];
}

/**
 * The parser reads every family (HELP, TYPE, counters and gauges with their
 * labels) but merges a histogram's label sets into one; each histogram
 * series is therefore rebuilt from its `_count` and `_sum` samples, which the
 * parser has already accepted as part of the family.
 */
async function scrape(url: string): Promise<Map<string, MetricFamily>> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  const families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
  for (const family of families.values()) {
    if (family.type !== 'HISTOGRAM') continue;
    const series = new Map<string, Sample>();
    for (const [, suffix, labelText, value] of text.matchAll(
      new RegExp(`^${family.name}_(count|sum)\\{([^}]*)\\} (\\S+)$`, 'gm'),
    )) {
      const entry = series.get(labelText) ?? {
        labels: Object.fromEntries([...labelText.matchAll(/(\w+)="([^"]*)"/g)].map(([, key, label]) => [key, label])),
      };
      entry[suffix as 'count' | 'sum'] = value;
      series.set(labelText, entry);
    }
    if (series.size) family.metrics = [...series.values()];
  }
  return families;
}

const sample = (family: MetricFamily | undefined, labels: Record<string, string>) =>
  family?.metrics.find((metric) => Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value));

describe('Prometheus metrics', () => {
  const taskQueue = `test-${randomUUID()}`;
  const deps = createTestDeps({ TEMPORAL_TASK_QUEUE: taskQueue });
  let api: RunningApi;
  let apiMetrics: Awaited<ReturnType<typeof serveMetrics>>;
  let worker: WorkerProcess;
  let workerMetricsPort: number;
  let synthesisId: string;

  beforeAll(async () => {
    workerMetricsPort = await freePort();
    // The real worker process: the Temporal runtime (and its Prometheus exporter) is installed once per process.
    worker = spawnWorkerProcess(taskQueue, { WORKER_METRICS_PORT: String(workerMetricsPort), LOG_LEVEL: 'info' });
    // As api/main.ts serves them: the app on one port, its metrics on a loopback port of their own.
    const app = createApp(deps);
    api = await serve(app, deps.config);
    apiMetrics = await serveMetrics(app.metricsRegistry, { host: '127.0.0.1', port: 0 });

    const account = await createAccount(deps);
    const submitted = await call(
      api.url,
      'POST',
      '/api/v1/tts/synthesize/',
      { text: 'Metrics, please.', voice_id: 'en-us-slt' },
      account.access,
    );
    expect(submitted.status).toBe(202);
    synthesisId = submitted.body.id;
    for (;;) {
      const status = await call(
        api.url,
        'GET',
        `/api/v1/tts/history/${synthesisId}/status/`,
        undefined,
        account.access,
      );
      if (!['queued', 'processing'].includes(status.body.status)) {
        expect(status.body.status).toBe('completed');
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
  afterAll(async () => {
    apiMetrics?.server.close();
    await api?.close();
    await worker?.kill();
    await deps.close();
  });

  it('the API metrics port: request durations by route and status, submissions, and the service state; not on the public port', async () => {
    expect((await fetch(`${api.url}/metrics`)).status).toBe(404);
    const metrics = await scrape(apiMetrics.url);

    const requests = metrics.get('openvox_http_request_duration_seconds');
    expect(requests?.type).toBe('HISTOGRAM');
    const submits = sample(requests, { method: 'POST', route: '/api/v1/tts/synthesize', status: '202' });
    expect(Number(submits?.count)).toBe(1);
    const polls = sample(requests, { method: 'GET', route: '/api/v1/tts/history/:id/status', status: '200' });
    expect(Number(polls?.count)).toBeGreaterThanOrEqual(1);
    // Paths with ids never become series of their own.
    expect(requests?.metrics.some((metric) => metric.labels?.route.includes(synthesisId))).toBe(false);

    expect(Number(metrics.get('openvox_syntheses_submitted_total')?.metrics[0].value)).toBe(1);
    expect(Number(metrics.get('openvox_credits_reserved_total')?.metrics[0].value)).toBe('Metrics, please.'.length);
    expect(metrics.get('openvox_clone_jobs_submitted_total')?.type).toBe('COUNTER');

    // Read from PostgreSQL, which other tests share: at least this test's synthesis and credits.
    expect(Number(sample(metrics.get('openvox_syntheses'), { status: 'completed' })?.value)).toBeGreaterThanOrEqual(1);
    for (const status of ['queued', 'processing', 'failed', 'canceled'])
      expect(sample(metrics.get('openvox_syntheses'), { status })).toBeDefined();
    expect(Number(sample(metrics.get('openvox_credits_ledger'), { kind: 'capture' })?.value)).toBeGreaterThanOrEqual(
      'Metrics, please.'.length,
    );
    expect(sample(metrics.get('openvox_clone_jobs'), { status: 'ready' })).toBeDefined();
    expect(metrics.has('process_cpu_seconds_total')).toBe(true);
  });

  it('the worker metrics port: activity durations by type, engine real-time factor, slots, and the Temporal SDK metrics', async () => {
    const metrics = await scrape(`http://127.0.0.1:${workerMetricsPort}/metrics`);

    const activities = metrics.get('openvox_activity_duration_seconds');
    expect(activities?.type).toBe('HISTOGRAM');
    expect(Number(sample(activities, { activity: 'renderShortSynthesis', outcome: 'ok' })?.count)).toBe(1);
    expect(Number(sample(activities, { activity: 'recordSynthesisCompleted', outcome: 'ok' })?.count)).toBe(1);

    const rtf = sample(metrics.get('openvox_engine_realtime_factor'), { engine: 'festival' });
    expect(Number(rtf?.count)).toBe(1);
    expect(Number(rtf?.sum)).toBeGreaterThan(0);
    expect(
      Number(sample(metrics.get('openvox_audio_rendered_seconds_total'), { engine: 'festival' })?.value),
    ).toBeGreaterThan(0);
    expect(Number(sample(metrics.get('openvox_worker_syntheses_ended_total'), { status: 'completed' })?.value)).toBe(1);
    // Nothing runs now: every slot is free again.
    for (const slot of metrics.get('openvox_activity_slots_in_use')?.metrics ?? []) expect(Number(slot.value)).toBe(0);

    // The SDK's own, from the runtime's Prometheus exporter, on the same scrape.
    const sdk = [...metrics.keys()].filter((name) => name.startsWith('temporal_'));
    expect(sdk).toEqual(
      expect.arrayContaining(['temporal_worker_task_slots_available', 'temporal_activity_execution_latency']),
    );
    expect(sample(metrics.get('temporal_worker_task_slots_available'), { task_queue: taskQueue })).toBeDefined();

    // One log line per rendered synthesis and per ending, with the engine and its speed.
    const lines = worker
      .output()
      .split('\n')
      .filter((line) => line.includes(synthesisId) || line.includes('"msg":"rendered"'));
    expect(lines.some((line) => line.includes('"msg":"synthesis completed"'))).toBe(true);
    expect(lines.some((line) => line.includes('"msg":"rendered"') && line.includes('"engine":"festival"'))).toBe(true);
  });

  it('a second worker process on the same metrics port serves its task queues without metrics and says so', async () => {
    const second = spawnWorkerProcess(taskQueue, { WORKER_METRICS_PORT: String(workerMetricsPort), LOG_LEVEL: 'info' });
    try {
      // Its own log line, not the task queue's pollers: the first worker polls the same queues.
      for (const deadline = Date.now() + 120_000; !second.output().includes('"msg":"worker running"');) {
        if (second.child.exitCode !== null)
          throw new Error(`the second worker exited ${second.child.exitCode}:\n${second.output()}`);
        if (Date.now() > deadline) throw new Error(`the second worker did not start within 120 s:\n${second.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(second.output()).toContain('worker metrics port in use');
      expect(second.child.exitCode).toBeNull();
      // The first worker still answers on the port.
      expect(
        (await scrape(`http://127.0.0.1:${workerMetricsPort}/metrics`)).has('openvox_activity_duration_seconds'),
      ).toBe(true);
    } finally {
      await second.kill();
    }
  }, 180_000);

  it('the Grafana dashboard queries only metrics that the API and the worker export', async () => {
    const dashboard = JSON.parse(
      await readFile(path.join(__dirname, '../../deploy/grafana/dashboards/openvox.json'), 'utf8'),
    );
    const exprs: string[] = dashboard.panels.flatMap((panel: { targets: { expr: string }[] }) =>
      panel.targets.map((target) => target.expr),
    );
    expect(exprs.length).toBeGreaterThan(10);
    const exported = new Set([
      ...(await scrape(apiMetrics.url)).keys(),
      ...(await scrape(`http://127.0.0.1:${workerMetricsPort}/metrics`)).keys(),
    ]);
    const used = new Set(
      exprs
        .flatMap((expr) => expr.match(/\b(?:openvox|temporal|process)_[a-z_]+/g) ?? [])
        .map((name) => name.replace(/_(bucket|count|sum)$/, '')),
    );
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
  });

  it('answers the API index and 404s beside /metrics as before', async () => {
    expect((await fetch(`${api.url}/metrics/other`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${workerMetricsPort}/other`)).status).toBe(404);
  });
});
