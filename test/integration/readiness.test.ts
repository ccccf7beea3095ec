import path from 'node:path';
import { startMinio } from '../../scripts/stack';
import { freePorts } from '../../scripts/stack';
import { until } from '../helpers/eventually';
import { createTestDeps, type RunningApi, startApi } from '../helpers/stack';

/** A port nothing listens on: a stopped dependency as the API sees it (connection refused). */
const CLOSED = '127.0.0.1:1';

async function timed(request: Promise<Response>) {
  const started = performance.now();
  const response = await request;
  const body = (await response.json()) as any;
  return { response, body, ms: performance.now() - started };
}

/**
 * Probes /readyz as an orchestrator does, until exactly `down` are reported down, and returns that answer.
 * The first probe of a fresh API opens its connections; on a loaded machine that can outlast the 1.5 s
 * each check is given, and one probe then reports a live dependency down. A probe that never reaches the
 * expected state fails the test with the last answer.
 */
async function probeUntil(url: string, down: string[]) {
  let last: Awaited<ReturnType<typeof timed>> | undefined;
  await until(
    `/readyz to report down: [${down.join(', ')}]`,
    async () => {
      last = await timed(fetch(`${url}/readyz`));
      const reported = Object.entries(last.body.dependencies ?? {})
        .filter(([, state]) => (state as { status: string }).status === 'down')
        .map(([name]) => name)
        .sort();
      return JSON.stringify(reported) === JSON.stringify([...down].sort());
    },
    30_000,
    250,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; last answer ${last?.response.status} ${JSON.stringify(last?.body)}`);
  });
  return last!;
}

describe('GET /readyz', () => {
  it('answers 200 with every dependency up', async () => {
    const deps = createTestDeps();
    const api = await startApi(deps);
    try {
      const { response, body } = await probeUntil(api.url, []);
      expect(response.status).toBe(200);
      expect(body.status).toBe('ready');
      for (const name of ['postgresql', 'temporal', 'minio']) expect(body.dependencies[name].status).toBe('up');
    } finally {
      await api.close();
      await deps.close();
    }
  });

  it('names MinIO with 503 after MinIO stops, answers within 2 s, and the API keeps answering', async () => {
    const [port, consolePort] = await freePorts(2);
    const minio = await startMinio({
      port,
      consolePort,
      dataDir: path.join(process.env.DATA_DIR!, 'minio-readiness'),
      accessKey: 'readiness',
      secretKey: 'readiness-secret',
      logDir: path.join(process.env.DATA_DIR!, 'logs'),
    });
    const deps = createTestDeps({
      MINIO_ENDPOINT: `http://127.0.0.1:${port}`,
      MINIO_ACCESS_KEY: 'readiness',
      MINIO_SECRET_KEY: 'readiness-secret',
    });
    let api: RunningApi | undefined;
    try {
      api = await startApi(deps);
      expect((await probeUntil(api.url, [])).response.status).toBe(200);

      await minio.stop();

      const { response, body, ms } = await probeUntil(api.url, ['minio']);
      expect(response.status).toBe(503);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.headers.get('retry-after')).toBeTruthy();
      expect(body.code).toBe('service_unavailable');
      expect(body.detail).toContain('minio');
      expect(body.dependencies.minio.status).toBe('down');
      expect(body.dependencies.postgresql.status).toBe('up');
      expect(ms).toBeLessThan(2_000);

      expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${api.url}/api/v1/subscription-plans/`)).status).toBe(200);
    } finally {
      await minio.stop();
      await api?.close();
      await deps.close();
    }
  });

  it('names PostgreSQL with 503 when it cannot be reached; endpoints needing it answer 503, not hang', async () => {
    const deps = createTestDeps({ DATABASE_URL: `postgres://openvox:openvox@${CLOSED}/openvox` });
    const api = await startApi(deps);
    try {
      const { response, body, ms } = await probeUntil(api.url, ['postgresql']);
      expect(response.status).toBe(503);
      expect(body.detail).toContain('postgresql');
      expect(body.dependencies.postgresql.status).toBe('down');
      expect(body.dependencies.minio.status).toBe('up');
      expect(ms).toBeLessThan(2_000);

      const plans = await timed(fetch(`${api.url}/api/v1/subscription-plans/`));
      expect(plans.response.status).toBe(503);
      expect(plans.body.code).toBe('service_unavailable');
      expect(JSON.stringify(plans.body)).not.toContain('127.0.0.1');
      expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    } finally {
      await api.close();
      await deps.close();
    }
  });

  it('names Temporal with 503 when it cannot be reached, within 2 s', async () => {
    const deps = createTestDeps({ TEMPORAL_ADDRESS: CLOSED });
    const api = await startApi(deps);
    try {
      const { response, body, ms } = await probeUntil(api.url, ['temporal']);
      expect(response.status).toBe(503);
      expect(body.detail).toContain('temporal');
      expect(body.dependencies.temporal.status).toBe('down');
      expect(body.dependencies.postgresql.status).toBe('up');
      expect(ms).toBeLessThan(2_000);
    } finally {
      await api.close();
      await deps.close();
    }
  });
});
