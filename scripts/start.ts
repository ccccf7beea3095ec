import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import PinoPretty from 'pino-pretty';
import { createDb } from '../db/knex';
import { migrate } from '../db/migrate';
import { loadConfigOrExit, ROOT } from '../lib/config';
import { NODE_FLAGS } from '../lib/nodeFlags';
import { ensurePostgres, type Managed, startMinio, startTemporal, stopChild, waitFor } from './stack';

/**
 * The whole service on one machine: PostgreSQL, Temporal (UI on 8233), MinIO,
 * migrations, the worker and the API. Ctrl-C stops what this run started.
 * Run through scripts/start.sh, which installs and builds first.
 */

const TEMPORAL_UI_PORT = Number(process.env.TEMPORAL_UI_PORT ?? 8233);
const MINIO_CONSOLE_PORT = Number(process.env.MINIO_CONSOLE_PORT ?? 9001);

const isLocal = (host: string) => ['127.0.0.1', 'localhost', '::1'].includes(host);
const log = (message: string) => process.stdout.write(`[openvox] ${message}\n`);

async function main() {
  const started = Date.now();
  const config = loadConfigOrExit();
  const logDir = path.join(config.DATA_DIR, 'logs');
  const infrastructure: Managed[] = [];
  const apps: ChildProcess[] = [];
  let stopping = false;

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log('stopping...');
    await Promise.all(apps.map((child) => stopChild(child, 15_000)));
    for (const service of infrastructure.reverse()) await service.stop().catch(() => undefined);
    log('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  try {
    log('PostgreSQL...');
    infrastructure.push(await ensurePostgres(config.DATABASE_URL));

    const [temporalHost, temporalPort] = config.TEMPORAL_ADDRESS.split(':');
    if (isLocal(temporalHost)) {
      log('Temporal dev server...');
      infrastructure.push(
        await startTemporal({
          port: Number(temporalPort ?? 7233),
          uiPort: TEMPORAL_UI_PORT,
          dbFile: path.join(config.DATA_DIR, 'temporal.sqlite'),
          logDir,
        }),
      );
    }
    if (isLocal(config.minio.endPoint)) {
      log('MinIO...');
      infrastructure.push(
        await startMinio({
          port: config.minio.port,
          consolePort: MINIO_CONSOLE_PORT,
          dataDir: path.join(config.DATA_DIR, 'minio'),
          accessKey: config.MINIO_ACCESS_KEY,
          secretKey: config.MINIO_SECRET_KEY,
          logDir,
        }),
      );
    }

    log('migrations...');
    const db = createDb(config);
    await migrate(db, config);
    await db.destroy();

    // On a terminal the JSON log lines are made readable (LOG_FORMAT=json keeps them raw, as in production).
    const pretty = process.stdout.isTTY && process.env.LOG_FORMAT !== 'json';
    for (const name of ['worker', 'api'] as const) {
      const child = spawn(process.execPath, [...NODE_FLAGS[name], path.join(ROOT, 'dist', name, 'main.js')], {
        stdio: ['ignore', pretty ? 'pipe' : 'inherit', 'inherit'],
      });
      if (pretty)
        child.stdout!.pipe(PinoPretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
      child.once('exit', (code, signal) => {
        if (!stopping) {
          log(`${name} exited (${signal ?? code}); stopping everything`);
          void stopAll(1);
        }
      });
      apps.push(child);
    }
    await waitFor('API', async () => (await fetch(`http://127.0.0.1:${config.PORT}/readyz`)).ok, 120_000);
  } catch (error) {
    process.stderr.write(`[openvox] start failed: ${error instanceof Error ? error.message : String(error)}\n`);
    await stopAll(1);
    return;
  }

  const minioConsole = isLocal(config.minio.endPoint)
    ? `http://127.0.0.1:${MINIO_CONSOLE_PORT}`
    : '(external S3 store)';
  log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.stdout.write(
    [
      '',
      `  Dashboard      ${config.PUBLIC_URL}/`,
      `  API            ${config.PUBLIC_URL}/api/v1/`,
      `  API docs       ${config.PUBLIC_URL}/api/docs/`,
      `  Readiness      ${config.PUBLIC_URL}/readyz`,
      `  Metrics        ${config.PUBLIC_URL}/metrics${config.WORKER_METRICS_PORT ? `, worker http://${config.WORKER_METRICS_HOST}:${config.WORKER_METRICS_PORT}/metrics` : ''}`,
      ...(config.SMTP_URL
        ? []
        : [`  Mail           ${config.MAIL_DIR}/*.eml (the worker also logs verification links)`]),
      `  Temporal UI    http://127.0.0.1:${TEMPORAL_UI_PORT}`,
      `  MinIO console  ${minioConsole}  (user ${config.MINIO_ACCESS_KEY})`,
      `  Logs           api and worker below; services in ${logDir}`,
      '',
      '  Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

void main();
