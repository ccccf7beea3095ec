import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * An erased account's address must not fetch the free credits again: a
 * keyed hash (HMAC-SHA256) of each erased address whose account had taken
 * the signup grant, kept for ERASED_SIGNUP_RETENTION_DAYS. The key is made
 * here once, at random, and never leaves the database; the table holds no
 * address in clear and nothing a table of hashed addresses made elsewhere
 * would match.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('service_keys', (table) => {
    table.string('name', 64).primary();
    table.binary('key').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex('service_keys').insert({ name: 'erased-signup', key: randomBytes(32) });
  await knex.schema.createTable('erased_signup_grants', (table) => {
    table.binary('email_hmac').primary();
    table.timestamp('erased_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['erased_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('erased_signup_grants');
  await knex.schema.dropTable('service_keys');
}
