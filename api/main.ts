import { once } from 'node:events';
import { migrate } from '../db/migrate';
import { exitOnConfigError, loadConfigOrExit } from '../lib/config';
import { createLogger } from '../lib/logger';
import { onShutdown } from '../lib/shutdown';
import { createApp } from './app';
import { createApiDeps } from './deps';
import { createApiServer } from './listen';
import { serveMetrics } from '../lib/metricsServer';
import { stopSpareEncoders } from './routes/openai/stream';
import { startWyomingServer } from './wyoming/server';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config, 'api');
  const deps = createApiDeps(config, logger);

  await migrate(deps.db, config);
  await deps.storage.ensureBucket();

  const app = createApp(deps);
  const server = createApiServer(app, config).listen(config.PORT, config.HOST);
  await once(server, 'listening');
  logger.info({ url: config.PUBLIC_URL, host: config.HOST, port: config.PORT }, 'api listening');
  // Metrics on a port of their own, loopback by default: they are not for the API's clients. Not fatal when taken
  // (a second API process on the host): serving requests matters more than being scraped.
  const metricsServer = config.API_METRICS_PORT
    ? await serveMetrics(app.metricsRegistry, { host: config.API_METRICS_HOST, port: config.API_METRICS_PORT }).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code !== 'EADDRINUSE') throw error;
          logger.warn(
            { port: config.API_METRICS_PORT },
            'API metrics port in use (another API on this host?): this process serves no metrics; set API_METRICS_PORT per process',
          );
          return undefined;
        },
      )
    : undefined;
  if (metricsServer) logger.info({ url: metricsServer.url }, 'api metrics');
  // Home Assistant's Wyoming protocol, for the account of WYOMING_API_KEY (docs/home-assistant.md).
  const wyoming = config.WYOMING_PORT
    ? await startWyomingServer(deps, {
        host: config.WYOMING_HOST,
        port: config.WYOMING_PORT,
        apiKey: config.WYOMING_API_KEY!,
      })
    : undefined;
  if (wyoming) logger.info({ host: wyoming.host, port: wyoming.port }, 'wyoming listening');

  onShutdown(logger, async () => {
    metricsServer?.server.close();
    await wyoming?.close();
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
