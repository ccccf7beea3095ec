import type { Knex } from 'knex';

/**
 * A synthesis's speech plan (synthesis/speechPlan.ts: its chunks, as read),
 * stored by the first step that needs it so that every later step (the slot,
 * each render, the finish, the API's stream) reads the same chunks: the plan
 * depends on the account's pronunciation dictionaries, which may be edited
 * while the synthesis runs. A table of its own, so that a read of a synthesis
 * row (status, history) does not carry a second copy of its text; the plan
 * goes with its synthesis row (retention, account erasure). A synthesis
 * submitted before this table has no plan stored: its next step computes it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('synthesis_speech_plans', (table) => {
    table.uuid('synthesis_id').primary().references('syntheses.id').onDelete('CASCADE');
    table.jsonb('plan').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('synthesis_speech_plans');
}
