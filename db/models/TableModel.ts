import { Model, type QueryBuilder } from 'objection';

/**
 * What every model shares. `first()` asks PostgreSQL for one row (`limit 1`),
 * as knex's `first()` does, instead of fetching them all and keeping one.
 * No model is bound to a pool (db/knex.ts): a query names its own.
 */
export class TableModel extends Model {
  static override useLimitInFirst = true;
}

export type Owner = { id: string };

/**
 * The `ownedBy` modifier of a table with an `account_id`: the account's rows only (another account's row is
 * indistinguishable from a missing one). The column is named with the model's table, so joins stay unambiguous.
 */
export function ownedBy(query: QueryBuilder<Model>, account: Owner): void {
  query.where({ [`${query.modelClass().tableName}.account_id`]: account.id });
}
