import type { Knex } from 'knex';

/**
 * An account's default voice: the voice that speaks when a request names none
 * (`/v1/audio/speech` without `voice`, the dashboard's playground, the CLI's
 * `say`). Null: the service default. Set only by the owner (PATCH profile);
 * a voice that later goes (a clone deleted, an operator's voice removed) is
 * cleared with it, and one that stays but cannot speak (consent revoked, a
 * voice uninstalled) is kept and passed over, the profile saying so.
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
