import type { Client } from '@temporalio/client';
import { createDb, type Db } from '../db/knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
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
}

export function createApiDeps(config: Config, logger: Logger): ApiDeps & { close(): Promise<void> } {
  const db = createDb(config, logger);
  const temporal = createTemporalClient(config);
  return {
    config,
    db,
    temporal,
    logger,
    storage: createStorage(config),
    tokens: createTokenService(config, loadSigningKey(config)),
    async close() {
      await Promise.allSettled([db.destroy(), temporal.connection.close()]);
    },
  };
}
