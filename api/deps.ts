import type { Client } from '@temporalio/client';
import { createDb, type Db } from '../db/knex';
import { createBackgroundTasks, type BackgroundTasks } from '../lib/background';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { createProgressListener, type ProgressListener } from '../lib/progress';
import { createStorage, type Storage } from '../lib/storage';
import { createTemporalClient } from '../lib/temporal';
import { loadSigningKey } from './auth/signingKey';
import { createTokenService, type TokenService } from './auth/tokens';

/** What the API's handlers are given: built once in api/main.ts, or by a test or benchmark. */
export interface ApiDeps {
  config: Config;
  db: Db;
  temporal: Client;
  storage: Storage;
  logger: Logger;
  tokens: TokenService;
  /** Wakes requests that follow a running synthesis (streaming, live status). */
  progress: ProgressListener;
  /** Work started after an answer (mails, cancels of abandoned streams): `close()` waits for it. */
  background: BackgroundTasks;
}

export function createApiDeps(config: Config, logger: Logger): ApiDeps & { close(): Promise<void> } {
  const db = createDb(config, logger);
  const temporal = createTemporalClient(config);
  const progress = createProgressListener(config, logger);
  const background = createBackgroundTasks();
  return {
    config,
    db,
    temporal,
    logger,
    storage: createStorage(config),
    tokens: createTokenService(config, loadSigningKey(config)),
    progress,
    background,
    async close() {
      // The connections the background work needs are closed only after it.
      await background.settled();
      await Promise.allSettled([progress.close(), db.destroy(), temporal.connection.close()]);
    },
  };
}
