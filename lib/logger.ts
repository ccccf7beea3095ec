import pino, { type Logger } from 'pino';
import type { Config } from './config';

export type { Logger };

/** Structured JSON logs on stdout; secrets in well-known places are redacted. */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, name: string): Logger {
  return pino({
    name,
    level: config.LOG_LEVEL,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.token', '*.refresh'],
      censor: '[redacted]',
    },
  });
}
