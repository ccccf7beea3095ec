import knex, { type Knex } from 'knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { migrationSource } from './migrations';

export type Db = Knex;

/**
 * The pool every process uses. Short connection and acquire timeouts make a
 * stopped PostgreSQL an error within seconds instead of a hung request.
 * Objection's models are bound to no pool: a query names its own,
 * `Account.query(db)` (or a transaction), so two pools in one process
 * (the tests, the CLI beside an API) never trade places.
 */
export function createDb(config: Pick<Config, 'DATABASE_URL' | 'DATABASE_POOL_MAX'>, logger?: Logger): Db {
  const db = knex({
    client: 'pg',
    connection: { connectionString: config.DATABASE_URL, connectionTimeoutMillis: 2_000 },
    pool: { min: 0, max: config.DATABASE_POOL_MAX },
    acquireConnectionTimeout: 3_000,
    migrations: { migrationSource, tableName: 'knex_migrations' },
    // knex logs to the console by default; ours are structured.
    log: {
      warn: (message: unknown) => logger?.warn({ knex: message }, 'knex warning'),
      error: (message: unknown) => logger?.error({ knex: message }, 'knex error'),
      deprecate: (method: string, alternative: string) => logger?.warn({ method, alternative }, 'knex deprecation'),
      debug: () => undefined,
    },
  });
  return db;
}

export async function pingDb(db: Db): Promise<void> {
  await db.raw('select 1');
}
