import type { Knex } from 'knex';

/**
 * What a synthesis's text says once its dictionaries' aliases replace what
 * they match (synthesis/spokenLength.ts), as checked and charged at submit.
 * The render compares the dictionaries it reads then with it: an alias
 * lengthened after submission cannot make a text say more than was paid for.
 * Null on syntheses submitted before this column (not checked).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syntheses', (table) => {
    table.integer('spoken_characters').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syntheses', (table) => {
    table.dropColumn('spoken_characters');
  });
}
