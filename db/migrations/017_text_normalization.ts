import type { Knex } from 'knex';

/**
 * Whether a synthesis reads written forms as words first (text/normalize):
 * `auto` (the default: in every language the normalizer knows), `on` or
 * `off` (the text as written, as before this column).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syntheses', (table) => {
    table.string('text_normalization', 4).notNullable().defaultTo('auto');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syntheses', (table) => {
    table.dropColumn('text_normalization');
  });
}
