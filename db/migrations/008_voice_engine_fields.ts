import type { Knex } from 'knex';

/**
 * What a client sees of how a voice is made: `quality` (`neural` for a
 * trained model such as Piper, `classic` for the rule and unit engines) and
 * `licence` (the licence facts of the engine and the voice's data). Cloned
 * voices take both from their base voice when presented.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('voices', (table) => {
    table.string('quality', 16);
    table.text('licence');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('voices', (table) => {
    table.dropColumn('licence');
    table.dropColumn('quality');
  });
}
