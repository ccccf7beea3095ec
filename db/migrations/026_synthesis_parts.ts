import type { Knex } from 'knex';

/**
 * A stream-input connection is one synthesis in history: each piece of text
 * it speaks renders as a synthesis of its own (`part_of` the connection's
 * entry, `part_index` its place), hidden from history, and the connection's
 * entry is recorded from its parts once it has ended (workflows/streamSession.ts).
 * No foreign key: a part is recorded before its connection's entry exists.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syntheses', (table) => {
    table.uuid('part_of').nullable();
    table.integer('part_index').nullable();
  });
  await knex.raw('create index syntheses_part_of_index on syntheses (part_of, part_index) where part_of is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists syntheses_part_of_index');
  await knex.schema.alterTable('syntheses', (table) => {
    table.dropColumn('part_index');
    table.dropColumn('part_of');
  });
}
