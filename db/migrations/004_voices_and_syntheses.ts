import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Premade voices (seeded from engines/catalog.ts, readable ids) and, later,
  // cloned voices (UUID ids, owned by an account).
  await knex.schema.createTable('voices', (table) => {
    table.string('id', 64).primary();
    table.uuid('account_id').references('accounts.id').onDelete('CASCADE');
    table.string('category', 16).notNullable();
    table.string('name', 100).notNullable();
    table.string('language', 35).notNullable();
    table.string('gender', 16).notNullable();
    table.string('description', 500).notNullable().defaultTo('');
    table.string('engine', 32);
    table.string('engine_voice', 100);
    table.string('license', 16).notNullable().defaultTo('free');
    table.string('status', 16).notNullable().defaultTo('ready');
    table.jsonb('error');
    table.float('similarity');
    table.jsonb('profile');
    table.integer('sort_order').notNullable().defaultTo(0);
    /** Premade voices whose engine is not installed or enabled are kept but hidden. */
    table.boolean('available').notNullable().defaultTo(true);
    table.timestamps(true, true);
    table.index(['category', 'sort_order']);
    table.index(['account_id', 'created_at']);
  });
  await knex.raw(`ALTER TABLE voices ADD CONSTRAINT voices_category_check CHECK (category IN ('premade', 'cloned'))`);
  await knex.raw(
    `ALTER TABLE voices ADD CONSTRAINT voices_status_check CHECK (status IN ('processing', 'ready', 'failed'))`,
  );

  await knex.schema.createTable('syntheses', (table) => {
    table.uuid('id').primary();
    table.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    // Deleting a project keeps its syntheses, unlinked.
    table.uuid('project_id').references('projects.id').onDelete('SET NULL');
    // No foreign key: history keeps syntheses made with a voice deleted since.
    table.string('voice_id', 64).notNullable();
    table.text('text').notNullable();
    table.integer('characters').notNullable();
    table.float('speed').notNullable();
    table.float('pitch').notNullable();
    table.string('emotion', 16).notNullable();
    table.string('output_format', 8).notNullable();
    table.string('status', 16).notNullable().defaultTo('queued');
    table.float('progress').notNullable().defaultTo(0);
    table.integer('credits_charged').notNullable().defaultTo(0);
    table.float('duration_seconds');
    table.text('audio_key');
    table.bigInteger('audio_bytes');
    table.jsonb('error');
    table.timestamp('started_at', { useTz: true });
    table.timestamp('completed_at', { useTz: true });
    /** Removed from history by the client; kept for usage figures and the ledger. */
    table.timestamp('deleted_at', { useTz: true });
    table.timestamps(true, true);
    table.index(['account_id', 'created_at']);
    table.index(['account_id', 'status']);
    table.index(['project_id']);
  });
  await knex.raw(
    `ALTER TABLE syntheses ADD CONSTRAINT syntheses_status_check CHECK (status IN ('queued', 'processing', 'completed', 'failed', 'canceled'))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('syntheses');
  await knex.schema.dropTable('voices');
}
