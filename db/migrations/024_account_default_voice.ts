import type { Knex } from 'knex';

/**
 * An account's default voice: the voice that speaks when a request names none
 * (`/v1/audio/speech` without `voice`, the dashboard's playground, the CLI's
 * `say`). Null: the service default. Set only by the owner (PATCH profile).
 * A chosen voice that can no longer speak (a clone deleted or revoked, a voice
 * uninstalled: its row stays) is kept and passed over, the profile saying so;
 * a row removed outright takes the choice with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('accounts', (table) => {
    table.string('default_voice_id', 64).nullable().references('voices.id').onDelete('SET NULL');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('accounts', (table) => {
    table.dropColumn('default_voice_id');
  });
}
