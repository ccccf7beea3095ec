import type { Knex } from 'knex';

/**
 * One delivery attempt in flight per endpoint: the attempt takes this lease
 * (until a time past its own timeout, so a worker that dies mid-attempt
 * frees it by itself) and clears it when done. A receiver that hangs then
 * holds one webhook slot, not one per event.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_endpoints', (table) => {
    table.timestamp('attempt_lease_until', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_endpoints', (table) => {
    table.dropColumn('attempt_lease_until');
  });
}
