import { NativeConnection } from '@temporalio/worker';
import path from 'node:path';
import { createDb } from '../db/knex';
import { migrate } from '../db/migrate';
import { createEngines } from '../engines/registry';
import { loadConfigOrExit } from '../lib/config';
import { createLogger } from '../lib/logger';
import { createMailer } from '../lib/mail';
import { createStorage } from '../lib/storage';
import { createTemporalClient } from '../lib/temporal';
import { createWorkers } from './create';
import { installRuntime } from './runtime';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config, 'worker');
  // The SDK's own SIGINT/SIGTERM handling drains in-flight tasks before run() resolves.
  installRuntime(logger);
  const db = createDb(config, logger);
  const storage = createStorage(config);
  await migrate(db, config);
  await storage.ensureBucket();

  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const temporal = createTemporalClient(config);
  const workers = await createWorkers({
    config,
    deps: {
      config,
      db,
      storage,
      temporal,
      mailer: createMailer(config, logger),
      engines: createEngines({ enableNonFree: config.ENABLE_NONFREE_ENGINES, modelsDir: config.MODELS_DIR }),
    },
    connection,
    workflowBundlePath: config.WORKFLOW_BUNDLE ?? path.join(__dirname, '..', 'workflow-bundle.js'),
  });
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE }, 'worker running');
  try {
    await Promise.all(workers.map((worker) => worker.run()));
  } finally {
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
