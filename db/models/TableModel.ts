import { Model } from 'objection';

/**
 * What every model shares. `first()` asks PostgreSQL for one row (`limit 1`),
 * as knex's `first()` does, instead of fetching them all and keeping one.
 * No model is bound to a pool (db/knex.ts): a query names its own.
 */
export class TableModel extends Model {
  static override useLimitInFirst = true;
}

export type Owner = { id: string };
