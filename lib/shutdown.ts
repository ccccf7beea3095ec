import type { Logger } from './logger';

/** Runs `close` once on SIGINT/SIGTERM, then exits; a second signal exits at once. */
export function onShutdown(logger: Logger, close: () => Promise<void>): void {
  let closing = false;
  const handle = (signal: NodeJS.Signals) => {
    if (closing) process.exit(1);
    closing = true;
    logger.info({ signal }, 'shutting down');
    close().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', handle);
  process.once('SIGTERM', handle);
}
