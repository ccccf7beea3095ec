import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('projects', (table) => {
    table.uuid('id').primary();
    table.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    table.string('name', 100).notNullable();
    table.string('description', 1000).notNullable().defaultTo('');
    table.timestamps(true, true);
    // Enforced by the database, so concurrent creates cannot both win.
    table.unique(['account_id', 'name']);
    table.index(['account_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('projects');
}
