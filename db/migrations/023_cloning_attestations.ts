import type { Knex } from 'knex';

/**
 * An account's standing cloning attestation: the owner affirms once that every
 * sample they upload through a client that carries no consent field (the
 * ElevenLabs-compatible `POST /v1/voices/add`) is of a speaker who authorized
 * cloning. Kept with its time, client address and user agent; withdrawing it
 * sets `withdrawn_at` (a new one is a new row). Like consent records, a row
 * outlives the account (its id cleared on erasure) as proof.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('cloning_attestations', (table) => {
    table.uuid('id').primary();
    table.uuid('account_id').nullable().references('accounts.id').onDelete('SET NULL');
    table.text('statement').notNullable();
    table.string('client_ip', 64).notNullable();
    table.string('user_agent', 500).notNullable();
    table.timestamp('attested_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('withdrawn_at', { useTz: true }).nullable();
    table.index(['account_id', 'attested_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('cloning_attestations');
}
