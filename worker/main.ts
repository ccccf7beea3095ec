import { NativeConnection } from '@temporalio/worker';
import path from 'node:path';
import { createDb } from '../db/knex';
import { migrate } from '../db/migrate';
import { loadConfigOrExit } from '../lib/config';
import { createLogger } from '../lib/logger';
import { createMailer } from '../lib/mail';
import { createStorage } from '../lib/storage';
import { createTemporalClient } from '../lib/temporal';
import { createWorker } from './create';
import { installRuntime } from './runtime';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config, 'worker');
  // The SDK's own SIGINT/SIGTERM handling drains in-flight tasks before run() resolves.
  installRuntime(logger);
  const db = createDb(config, logger);
  const storage = createStorage(config);
  await migrate(db);
  await storage.ensureBucket();

  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await createWorker({
    config,
    deps: { config, db, storage, mailer: createMailer(config, logger), temporal: createTemporalClient(config) },
    connection,
    workflowBundlePath: path.join(__dirname, '..', 'workflow-bundle.js'),
  });
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE }, 'worker running');
  try {
    await worker.run();
  } finally {
    await connection.close();
    await db.destroy();
    logger.info('worker stopped');
  }
}

main().catch((error) => {
  process.stderr.write(`worker failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
