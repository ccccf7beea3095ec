import { once } from 'node:events';
import { createDb } from '../db/knex';
import { migrate } from '../db/migrate';
import { loadConfigOrExit } from '../lib/config';
import { createLogger } from '../lib/logger';
import { onShutdown } from '../lib/shutdown';
import { createStorage } from '../lib/storage';
import { createTemporalClient } from '../lib/temporal';
import { createApp } from './app';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config, 'api');
  const db = createDb(config, logger);
  const storage = createStorage(config);
  const temporal = createTemporalClient(config);

  await migrate(db);
  await storage.ensureBucket();

  const server = createApp({ config, db, storage, temporal, logger }).listen(config.PORT, config.HOST);
  await once(server, 'listening');
  logger.info({ url: config.PUBLIC_URL, host: config.HOST, port: config.PORT }, 'api listening');

  onShutdown(logger, async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await Promise.allSettled([db.destroy(), temporal.connection.close()]);
  });
}

main().catch((error) => {
  process.stderr.write(`api failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
