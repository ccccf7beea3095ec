import type { Knex } from 'knex';

/**
 * `real` loses what the request schema accepts (a pitch of 1e-240 underflows
 * and the insert fails): every number a client sends or a client reads is
 * stored as double precision, the same as a JavaScript number.
 */
const COLUMNS = ['speed', 'pitch', 'progress', 'duration_seconds'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const column of COLUMNS) await knex.raw('ALTER TABLE syntheses ALTER COLUMN ?? TYPE double precision', [column]);
  await knex.raw('ALTER TABLE voices ALTER COLUMN similarity TYPE double precision');
}

export async function down(knex: Knex): Promise<void> {
  for (const column of COLUMNS) await knex.raw('ALTER TABLE syntheses ALTER COLUMN ?? TYPE real', [column]);
  await knex.raw('ALTER TABLE voices ALTER COLUMN similarity TYPE real');
}
