import type { Knex } from 'knex';

/**
 * The consent behind every uploaded sample: who affirmed the speaker's
 * authorization, when, from where, for which file. No foreign key to the
 * voice: the record outlives the voice and its audio.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('consent_records', (table) => {
    table.uuid('id').primary();
    table.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    table.string('voice_id', 64).notNullable();
    table.text('client_ip').notNullable();
    table.text('user_agent').notNullable().defaultTo('');
    table.specificType('file_sha256', 'bytea').notNullable();
    table.bigInteger('file_bytes').notNullable();
    table.timestamp('consented_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['account_id']);
    table.index(['voice_id']);
  });
  await knex.schema.alterTable('voices', (table) => {
    table.timestamp('deleted_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('voices', (table) => table.dropColumn('deleted_at'));
  await knex.schema.dropTable('consent_records');
}
