import path from 'node:path';
import { createDb } from '../../db/knex';
import { migrate } from '../../db/migrate';
import { loadConfig } from '../../lib/config';
import { createStorage } from '../../lib/storage';
import {
  dropStaleTestDatabases,
  ensurePostgres,
  type Managed,
  recreateDatabase,
  startMinio,
  startTemporal,
} from '../../scripts/stack';
import { writeWorkflowBundle } from '../../worker/bundle';
import { buildWeb, webBuildIsStale } from '../../scripts/buildWeb';
import { testEnvironment } from './testStack';

declare global {
  var __openvoxServices: Managed[] | undefined;
}

/** Runs once per jest run, before any test file: real services, a fresh database, one workflow bundle. */
export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const env = await testEnvironment();
  // Test files run in workers forked after this, which inherit these variables.
  Object.assign(process.env, env);
  const logDir = path.join(env.DATA_DIR, 'logs');

  const services: Managed[] = [];
  globalThis.__openvoxServices = services;
  const [postgres, temporal, minio] = await Promise.all([
    // Left running at the end: concurrent test runs share the cluster, and one stopping it failed the others.
    ensurePostgres(env.DEV_DATABASE_URL, { keepRunning: true }),
    startTemporal({ port: Number(env.TEMPORAL_ADDRESS.split(':')[1]), uiPort: 0, headless: true, logDir }),
    startMinio({
      port: Number(new URL(env.MINIO_ENDPOINT).port),
      consolePort: Number(env.MINIO_CONSOLE_PORT),
      dataDir: path.join(env.DATA_DIR, 'minio'),
      accessKey: env.MINIO_ACCESS_KEY,
      secretKey: env.MINIO_SECRET_KEY,
      logDir,
    }),
    writeWorkflowBundle(env.WORKFLOW_BUNDLE),
    // The dashboard's bundle (dist/web/, not committed): built when missing or older than web/.
    webBuildIsStale().then((stale) => (stale ? buildWeb() : undefined)),
  ]);
  services.push(postgres, temporal, minio);

  await dropStaleTestDatabases(env.DATABASE_URL);
  await recreateDatabase(env.DATABASE_URL);
  const config = loadConfig();
  const db = createDb(config);
  try {
    await Promise.all([migrate(db, config), createStorage(config).ensureBucket()]);
  } finally {
    await db.destroy();
  }
  process.stdout.write(
    `\n[test setup] services ready in ${((Date.now() - started) / 1000).toFixed(1)} s (data in ${env.DATA_DIR})\n`,
  );
}
