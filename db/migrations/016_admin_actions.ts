import type { Knex } from 'knex';

/**
 * What operators did through the admin CLI (`openvox user|credits|plan …`):
 * who (OPENVOX_OPERATOR, else the OS user and host), which command, on which
 * account, with what. Written in the same transaction as the change. The
 * account id is cleared when the account is erased; the details never hold
 * an email address or a password.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('admin_actions', (table) => {
    table.bigIncrements('id');
    table.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.string('operator', 200).notNullable();
    table.string('command', 64).notNullable();
    table.uuid('account_id').nullable().references('accounts.id').onDelete('SET NULL');
    table.jsonb('details').notNullable().defaultTo('{}');
    table.index(['at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('admin_actions');
}
