import { NativeConnection } from '@temporalio/worker';
import path from 'node:path';
import { createDb } from '../db/knex';
import { migrate } from '../db/migrate';
import { createEngines } from '../engines/registry';
import { STUDIO_ENGINE_IDLE_MS, STUDIO_NICENESS } from '../studio/conversion';
import { loadConfigOrExit } from '../lib/config';
import { createLogger } from '../lib/logger';
import { createMailer } from '../lib/mail';
import { createStorage } from '../lib/storage';
import { createTemporalClient } from '../lib/temporal';
import { ensureBillingSchedule, ensureRetentionSchedule } from '../lib/schedules';
import { ensureVoicePreviews } from './voicePreviews';
import { watchModels } from './modelsWatch';
import { createWorkers } from './create';
import { createWorkerMetrics, freeLoopbackPort } from './metrics';
import { serveMetrics } from '../lib/metricsServer';
import { installRuntime } from './runtime';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config, 'worker');
  // The SDK's own metrics go to a loopback port of their own; serveMetrics appends them to ours.
  const sdkMetricsPort = config.WORKER_METRICS_PORT ? await freeLoopbackPort() : 0;
  // The SDK's own SIGINT/SIGTERM handling drains in-flight tasks before run() resolves.
  installRuntime(logger, sdkMetricsPort ? { metricsBindAddress: `127.0.0.1:${sdkMetricsPort}` } : {});
  const db = createDb(config, logger);
  const metrics = createWorkerMetrics(db);
  // A second worker process on the same host finds the port taken: it works on without its own endpoint
  // (rendering matters more than being scraped) and says so; give each process its own WORKER_METRICS_PORT.
  const metricsServer = config.WORKER_METRICS_PORT
    ? await serveMetrics(metrics.registry, {
        host: config.WORKER_METRICS_HOST,
        port: config.WORKER_METRICS_PORT,
        sdkUrl: `http://127.0.0.1:${sdkMetricsPort}/metrics`,
      }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EADDRINUSE') throw error;
        logger.warn(
          { port: config.WORKER_METRICS_PORT },
          'worker metrics port in use (another worker on this host?): this worker serves no metrics; set WORKER_METRICS_PORT per process',
        );
        return undefined;
      })
    : undefined;
  if (metricsServer) logger.info({ url: metricsServer.url }, 'worker metrics');
  const storage = createStorage(config);
  await migrate(db, config);
  await storage.ensureBucket();

  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const temporal = createTemporalClient(config);
  const engineOptions = {
    enableNonFree: config.ENABLE_NONFREE_ENGINES,
    modelsDir: config.MODELS_DIR,
    maxHosts: config.SYNTHESIS_CONCURRENCY,
  };
  const engines = createEngines(engineOptions);
  // A book's block renders in engine processes of their own, below the requests' CPU priority.
  const studioEngines = createEngines({ ...engineOptions, niceness: STUDIO_NICENESS, idleMs: STUDIO_ENGINE_IDLE_MS });
  const workers = await createWorkers({
    config,
    deps: { config, db, storage, temporal, mailer: createMailer(config, logger), engines, studioEngines },
    connection,
    workflowBundlePath: config.WORKFLOW_BUNDLE ?? path.join(__dirname, '..', 'workflow-bundle.js'),
    activityInterceptors: [metrics.interceptor],
  });
  // Every worker makes sure it exists; the first one creates it, a paused one stays paused. Not
  // fatal: the next worker start tries again, and refills only wait (a late run refills what is due).
  await ensureBillingSchedule(temporal, config).catch((error) =>
    logger.warn({ err: error }, 'billing schedule not ensured'),
  );
  await ensureRetentionSchedule(temporal, config).catch((error) =>
    logger.warn({ err: error }, 'retention schedule not ensured'),
  );
  // In the background: the workers below render them; a failure only leaves previews for the next start.
  if (config.VOICE_PREVIEWS) {
    ensureVoicePreviews(temporal, db, config)
      .then((started) => started.length && logger.info({ count: started.length }, 'voice previews started'))
      .catch((error) => logger.warn({ err: error }, 'voice previews not started'));
  }
  // Voices installed or removed in MODELS_DIR while this runs join or leave the catalog.
  const modelsWatch = await watchModels({ db, engines, alsoRefreshed: [studioEngines], config, temporal, logger });
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE }, 'worker running');
  try {
    await Promise.all(workers.map((worker) => worker.run()));
  } finally {
    modelsWatch.close();
    metricsServer?.server.close();
    await connection.close();
    await temporal.connection.close();
    await db.destroy();
    logger.info('worker stopped');
  }
}

main().catch((error) => {
  process.stderr.write(`worker failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
