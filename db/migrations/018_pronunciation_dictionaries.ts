import type { Knex } from 'knex';

/**
 * Pronunciation dictionaries (text/lexicon): an account's dictionaries, each
 * optionally tied to one of its projects, and their entries. Both go with the
 * account row (account erasure deletes it); a deleted project leaves its
 * dictionaries account-wide. `syntheses.pronunciation_dictionary_ids` holds
 * the dictionaries a synthesis was submitted with, resolved at submit (null:
 * none, as for every synthesis before this column).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pronunciation_dictionaries', (table) => {
    table.uuid('id').primary();
    table.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    table.uuid('project_id').nullable().references('projects.id').onDelete('SET NULL');
    table.string('name', 100).notNullable();
    table.string('language', 35).notNullable().defaultTo('en-US');
    table.timestamps(true, true);
    table.index(['account_id', 'created_at']);
    table.index(['project_id']);
  });
  await knex.schema.createTable('pronunciation_entries', (table) => {
    table.uuid('id').primary();
    table.uuid('dictionary_id').notNullable().references('pronunciation_dictionaries.id').onDelete('CASCADE');
    table.specificType('graphemes', 'text[]').notNullable();
    table.text('alias').nullable();
    table.text('phoneme').nullable();
    table.boolean('case_sensitive').notNullable().defaultTo(false);
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['dictionary_id', 'created_at']);
  });
  await knex.schema.alterTable('syntheses', (table) => {
    table.specificType('pronunciation_dictionary_ids', 'uuid[]').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syntheses', (table) => {
    table.dropColumn('pronunciation_dictionary_ids');
  });
  await knex.schema.dropTable('pronunciation_entries');
  await knex.schema.dropTable('pronunciation_dictionaries');
}
