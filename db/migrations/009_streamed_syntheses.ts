import type { Knex } from 'knex';

/**
 * A streamed synthesis (the OpenAI-compatible speech endpoint) renders one
 * sentence per chunk, so the first sentence can be played while the rest
 * renders; the others keep the larger chunks.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syntheses', (table) => {
    table.boolean('streaming').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syntheses', (table) => {
    table.dropColumn('streaming');
  });
}
