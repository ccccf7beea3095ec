import type { Knex } from 'knex';

/**
 * A premade voice's preview: the storage key of its rendered sample
 * (`previews/<voice id>/<version>.mp3`, the voice-preview workflow writes
 * it); null until that workflow has run.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('voices', (table) => {
    table.string('preview_key', 255).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('voices', (table) => {
    table.dropColumn('preview_key');
  });
}
