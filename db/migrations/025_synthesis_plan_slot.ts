import type { Knex } from 'knex';

/**
 * When a synthesis took one of its plan's concurrent slots. It stays `queued`
 * until its render starts on a worker (then `processing`): a job the plan lets
 * run may still wait for the machine's render slots. The plan's slots held are
 * the processing syntheses and the queued ones with this set. Null on
 * syntheses that took theirs before this column (they were made `processing`
 * with the slot).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syntheses', (table) => {
    table.timestamp('slot_taken_at', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syntheses', (table) => {
    table.dropColumn('slot_taken_at');
  });
}
