import { once } from 'node:events';
import { migrate } from '../db/migrate';
import { exitOnConfigError, loadConfigOrExit } from '../lib/config';
import { createLogger } from '../lib/logger';
import { onShutdown } from '../lib/shutdown';
import { createApp } from './app';
import { createApiDeps } from './deps';
import { createApiServer } from './listen';
import { stopSpareEncoders } from './routes/openai/stream';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config, 'api');
  const deps = createApiDeps(config, logger);

  await migrate(deps.db, config);
  await deps.storage.ensureBucket();

  const server = createApiServer(createApp(deps), config).listen(config.PORT, config.HOST);
  await once(server, 'listening');
  logger.info({ url: config.PUBLIC_URL, host: config.HOST, port: config.PORT }, 'api listening');

  onShutdown(logger, async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    stopSpareEncoders();
    await deps.close();
  });
}

main().catch((error) => {
  exitOnConfigError(error);
  process.stderr.write(`api failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
