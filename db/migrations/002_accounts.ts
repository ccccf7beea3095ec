import type { Knex } from 'knex';

/**
 * Accounts and everything that authenticates them, plus the credit ledger:
 * the ledger row and the balance change happen in one transaction, and a
 * unique (account, kind, reference) makes every credit step apply once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (table) => {
    table.uuid('id').primary();
    table.text('email').notNullable().unique();
    table.string('name', 100).notNullable().defaultTo('');
    table.text('password_hash').notNullable();
    table.timestamp('email_verified_at', { useTz: true });
    table.string('subscription_tier', 32).notNullable().defaultTo('free').references('subscription_plans.id');
    table.bigInteger('credit_balance').notNullable().defaultTo(0);
    table.bigInteger('credits_reserved').notNullable().defaultTo(0);
    table.timestamps(true, true);
  });
  await knex.raw(
    `ALTER TABLE accounts ADD CONSTRAINT accounts_credits_check CHECK (credit_balance >= 0 AND credits_reserved >= 0)`,
  );

  await knex.schema.createTable('credit_ledger', (table) => {
    table.bigIncrements('id');
    table.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    table.string('kind', 16).notNullable();
    table.text('reference').notNullable();
    table.bigInteger('amount').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['account_id', 'kind', 'reference']);
  });
  await knex.raw(
    `ALTER TABLE credit_ledger ADD CONSTRAINT credit_ledger_kind_check CHECK (kind IN ('grant', 'reserve', 'capture', 'release'))`,
  );

  await knex.schema.createTable('email_verification_tokens', (table) => {
    table.uuid('id').primary();
    table.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    table.specificType('token_hash', 'bytea').notNullable().unique();
    table.timestamp('expires_at', { useTz: true }).notNullable();
    /** Set when the token verified the account. */
    table.timestamp('used_at', { useTz: true });
    /** Set when a newer token (a resend) replaced this one. */
    table.timestamp('superseded_at', { useTz: true });
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['account_id']);
  });

  await knex.schema.createTable('refresh_token_families', (table) => {
    table.uuid('id').primary();
    table.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    table.timestamp('revoked_at', { useTz: true });
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('refresh_tokens', (table) => {
    table.specificType('jti_hash', 'bytea').primary();
    table.uuid('family_id').notNullable().references('refresh_token_families.id').onDelete('CASCADE');
    table.timestamp('expires_at', { useTz: true }).notNullable();
    /** Set when this token was exchanged for the next one; presenting it again is reuse. */
    table.timestamp('rotated_at', { useTz: true });
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['family_id']);
  });

  await knex.schema.createTable('api_keys', (table) => {
    table.uuid('id').primary();
    table.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    table.string('name', 100).notNullable();
    table.string('prefix', 12).notNullable();
    table.specificType('key_hash', 'bytea').notNullable().unique();
    table.timestamp('last_used_at', { useTz: true });
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['account_id', 'created_at']);
  });

  // Fixed-window counters shared by every API process.
  await knex.schema.createTable('rate_limit_counters', (table) => {
    table.text('key').notNullable();
    table.timestamp('window_start', { useTz: true }).notNullable();
    table.integer('count').notNullable();
    table.primary(['key', 'window_start']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const name of [
    'rate_limit_counters',
    'api_keys',
    'refresh_tokens',
    'refresh_token_families',
    'email_verification_tokens',
    'credit_ledger',
    'accounts',
  ]) {
    await knex.schema.dropTable(name);
  }
}
