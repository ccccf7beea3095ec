import type { Client } from '@temporalio/client';
import type { Db } from '../db/knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { Storage } from '../lib/storage';

/** What the API's handlers are given: built once in api/main.ts, or by a test. */
export interface ApiDeps {
  config: Config;
  db: Db;
  temporal: Client;
  storage: Storage;
  logger: Logger;
}
