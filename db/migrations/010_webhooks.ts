import type { Knex } from 'knex';

/**
 * Webhook endpoints and one delivery row per (event, endpoint). The signing
 * secret is kept as issued (HMAC needs it in clear; see docs/security.md, "Webhook secrets at rest"),
 * the previous one for 24 h after a rotation.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (table) => {
    table.uuid('id').primary();
    table.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    table.text('url').notNullable();
    table.string('description', 500).notNullable().defaultTo('');
    table.specificType('events', 'text[]').notNullable();
    table.boolean('enabled').notNullable().defaultTo(true);
    /** Why the service disabled it (`gone`: the receiver answered 410), null when enabled or disabled by the owner. */
    table.string('disabled_reason', 32);
    table.text('secret').notNullable();
    table.text('previous_secret');
    table.timestamp('previous_secret_expires_at', { useTz: true });
    table.timestamps(true, true);
    table.index(['account_id', 'created_at']);
  });
  await knex.schema.createTable('webhook_deliveries', (table) => {
    table.uuid('id').primary();
    table.uuid('endpoint_id').notNullable().references('webhook_endpoints.id').onDelete('CASCADE');
    /** Stable per event: the same event id reaches every endpoint, and every retry carries it. */
    table.text('event_id').notNullable();
    table.string('event_type', 32).notNullable();
    /** The body sent, `{id, type, created, data}`, exactly as signed. */
    table.text('body').notNullable();
    table.string('status', 16).notNullable().defaultTo('pending');
    table.integer('attempts').notNullable().defaultTo(0);
    table.integer('last_response_code');
    table.string('last_error', 200);
    table.timestamp('delivered_at', { useTz: true });
    table.timestamps(true, true);
    // One delivery per event and endpoint, so an activity retry cannot duplicate it.
    table.unique(['endpoint_id', 'event_id']);
    table.index(['endpoint_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhook_endpoints');
}
