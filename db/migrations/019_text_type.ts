import type { Knex } from 'knex';

/**
 * How a synthesis's text is read: `text` (plain text, as every synthesis
 * before this column) or `ssml` (text/ssml: parsed into speech, breaks and
 * prosody before any engine sees it).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syntheses', (table) => {
    table.string('text_type', 4).notNullable().defaultTo('text');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syntheses', (table) => {
    table.dropColumn('text_type');
  });
}
