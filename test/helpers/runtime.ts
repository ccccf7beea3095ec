import { loadConfig } from '../../lib/config';
import { createLogger, type Logger } from '../../lib/logger';
import { installRuntime } from '../../worker/runtime';

let installed = false;

/** The Temporal SDK's runtime with its logs through our logger (silent in tests unless TEST_LOG_LEVEL says otherwise): once per test file. */
export function installRuntimeOnce(logger: Logger = createLogger(loadConfig(), 'test')): void {
  if (installed) return;
  installRuntime(logger);
  installed = true;
}
