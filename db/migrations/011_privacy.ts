import type { Knex } from 'knex';

/**
 * Account deletion, consent revocation and history retention.
 *
 * - `accounts.deleted_at`: set the moment a deletion is asked for; from then
 *   on nothing authenticates as the account, and the deletion workflow erases
 *   it (the row itself goes last).
 * - `accounts.history_retention_days`: the owner's retention (null: the
 *   operator's default, HISTORY_RETENTION_DAYS, applies; unset too: keep).
 * - The credit ledger and the consent records outlive their account: the
 *   ledger anonymized (amounts kept for the books), the consent records as
 *   proof that consent was given. So neither cascades from accounts any more.
 * - `consent_records.revoked_at`: when the owner withdrew the consent; the
 *   voice shows `status: "revoked"` from then on.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('accounts', (table) => {
    table.timestamp('deleted_at', { useTz: true });
    table.integer('history_retention_days');
  });
  await knex.raw(
    'ALTER TABLE accounts ADD CONSTRAINT accounts_history_retention_days_check CHECK (history_retention_days BETWEEN 1 AND 3650)',
  );

  await knex.schema.alterTable('credit_ledger', (table) => {
    table.dropForeign(['account_id']);
    table.uuid('account_id').nullable().alter();
  });
  await knex.schema.alterTable('consent_records', (table) => {
    table.dropForeign(['account_id']);
    table.timestamp('revoked_at', { useTz: true });
  });

  await knex.raw('ALTER TABLE voices DROP CONSTRAINT voices_status_check');
  await knex.raw(
    `ALTER TABLE voices ADD CONSTRAINT voices_status_check CHECK (status IN ('processing', 'ready', 'failed', 'revoked'))`,
  );
  // Retention looks for old entries across all accounts, and for the deliveries that announced them.
  await knex.schema.alterTable('syntheses', (table) => table.index(['created_at']));
  await knex.schema.alterTable('webhook_deliveries', (table) => table.index(['event_id']));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (table) => table.dropIndex(['event_id']));
  await knex.schema.alterTable('syntheses', (table) => table.dropIndex(['created_at']));
  await knex.raw('ALTER TABLE voices DROP CONSTRAINT voices_status_check');
  await knex.raw(
    `ALTER TABLE voices ADD CONSTRAINT voices_status_check CHECK (status IN ('processing', 'ready', 'failed'))`,
  );
  await knex.schema.alterTable('consent_records', (table) => {
    table.dropColumn('revoked_at');
    table.foreign('account_id').references('accounts.id').onDelete('CASCADE');
  });
  await knex('credit_ledger').whereNull('account_id').delete();
  await knex.schema.alterTable('credit_ledger', (table) => {
    table.uuid('account_id').notNullable().alter();
    table.foreign('account_id').references('accounts.id').onDelete('CASCADE');
  });
  await knex.raw('ALTER TABLE accounts DROP CONSTRAINT accounts_history_retention_days_check');
  await knex.schema.alterTable('accounts', (table) => {
    table.dropColumn('history_retention_days');
    table.dropColumn('deleted_at');
  });
}
