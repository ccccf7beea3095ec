import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('subscription_plans', (table) => {
    table.string('id', 32).primary();
    table.string('name', 100).notNullable();
    table.integer('price_cents').notNullable();
    table.string('currency', 3).notNullable().defaultTo('USD');
    table.integer('monthly_credits').notNullable();
    table.integer('max_text_length').notNullable();
    table.integer('max_cloned_voices').notNullable();
    table.integer('max_concurrent_syntheses').notNullable();
    table.specificType('output_formats', 'text[]').notNullable();
    table.boolean('requires_card').notNullable().defaultTo(true);
    table.integer('sort_order').notNullable();
    table.timestamps(true, true);
  });
  await knex.raw(`
    ALTER TABLE subscription_plans
      ADD CONSTRAINT subscription_plans_amounts_check CHECK (
        price_cents >= 0 AND monthly_credits >= 0 AND max_text_length > 0
        AND max_cloned_voices >= 0 AND max_concurrent_syntheses > 0
      )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('subscription_plans');
}
