import { type LogLevel, type LogMetadata, Runtime } from '@temporalio/worker';
import type { Logger } from '../lib/logger';

const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * Sends the Temporal SDK's own logs through our structured logger, and with
 * `metricsBindAddress` serves the SDK's Prometheus metrics there; call once,
 * before any connection.
 */
export function installRuntime(logger: Logger, { metricsBindAddress }: { metricsBindAddress?: string } = {}): void {
  const log = (level: LogLevel, message: string, meta?: LogMetadata) =>
    logger[LEVELS[level]]({ ...meta, sdk: true }, message);
  Runtime.install({
    shutdownSignals: ['SIGINT', 'SIGTERM'],
    ...(metricsBindAddress && {
      telemetryOptions: { metrics: { prometheus: { bindAddress: metricsBindAddress, countersTotalSuffix: true } } },
    }),
    logger: {
      log,
      trace: (message, meta) => log('TRACE', message, meta),
      debug: (message, meta) => log('DEBUG', message, meta),
      info: (message, meta) => log('INFO', message, meta),
      warn: (message, meta) => log('WARN', message, meta),
      error: (message, meta) => log('ERROR', message, meta),
    },
  });
}
