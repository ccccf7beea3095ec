import type { Knex } from 'knex';

/**
 * Idempotency-Key records, kept 24 h: durable beyond Temporal's retention.
 * While a request holds its key (`in_progress`, until `locked_until`) repeats
 * get 409; afterwards they replay the stored 2xx response.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (table) => {
    table.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    table.string('key', 255).notNullable();
    table.specificType('request_hash', 'bytea').notNullable();
    /** The synthesis this key stands for, fixed when the key is first claimed. */
    table.uuid('synthesis_id').notNullable();
    table.string('status', 16).notNullable();
    table.timestamp('locked_until', { useTz: true }).notNullable();
    table.integer('response_status');
    table.jsonb('response_body');
    table.text('response_location');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['account_id', 'key']);
    table.index(['created_at']);
  });
  await knex.raw(
    `ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_status_check CHECK (status IN ('in_progress', 'completed'))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
}
