import type { IsolatedStackOptions } from '../scripts/isolatedStack';

/** A progress line on stderr: `[name hh:mm:ss] message`. */
export const logger =
  (name: string) =>
  (message: string): void => {
    process.stderr.write(`[${name} ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
  };

/**
 * The isolated stack the chaos suite and the soak run on (a PostgreSQL
 * database, Temporal on a sqlite file that survives a kill, MinIO), named
 * `<name>_<pid>`, child output to log files, its data removed on close; the
 * caller starts the api and the workers (the soak with its heap probe).
 */
export const chaosStack = (name: string, env?: Record<string, string>): IsolatedStackOptions => ({
  name: `${name}_${process.pid}`,
  persistentTemporal: true,
  childOutput: 'log',
  removeDataOnClose: true,
  env,
});
