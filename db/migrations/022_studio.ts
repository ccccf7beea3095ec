import type { Knex } from 'knex';

/**
 * Studio (long-form projects, studio/): a project gains its settings, and
 * holds chapters of blocks; a block's audio is kept per account by its
 * content hash (studio/blockHash.ts) so a conversion reuses what did not
 * change; each conversion is a snapshot. Plans bound a project's size.
 * Everything goes with its project (and the project with its account).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('projects', (table) => {
    table.string('default_voice_id', 64).nullable();
    table.string('heading_voice_id', 64).nullable();
    table.string('dialogue_voice_id', 64).nullable();
    table.string('language', 35).notNullable().defaultTo('en-US');
    table.string('text_normalization', 4).notNullable().defaultTo('auto');
    table.float('speed').notNullable().defaultTo(1);
    table.string('output_preset', 16).notNullable().defaultTo('audiobook');
    /** title, author, narrator, language, description, publisher, year, isbn (each a string or null). */
    table.jsonb('metadata').notNullable().defaultTo('{}');
    /** Speaker name -> voice id. */
    table.jsonb('speakers').notNullable().defaultTo('{}');
    table.string('cover_key', 200).nullable();
    table.string('cover_content_type', 32).nullable();
  });
  await knex.schema.createTable('project_chapters', (table) => {
    table.uuid('id').primary();
    table.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    table.integer('index').notNullable();
    table.text('title').notNullable();
    table.integer('level').notNullable().defaultTo(0);
    table.uuid('parent_id').nullable().references('project_chapters.id').onDelete('SET NULL');
    table.timestamps(true, true);
    table.index(['project_id', 'index']);
  });
  await knex.schema.createTable('project_blocks', (table) => {
    table.uuid('id').primary();
    table.uuid('chapter_id').notNullable().references('project_chapters.id').onDelete('CASCADE');
    table.integer('index').notNullable();
    table.string('kind', 16).notNullable().defaultTo('paragraph');
    table.text('text').notNullable();
    table.string('voice_id', 64).nullable();
    /** [{speaker, text}] when the paragraph is spoken by several voices (a script's lines, dialogue); null: one voice. */
    table.jsonb('segments').nullable();
    /** Code points of `text`: what converting it costs. */
    table.integer('characters').notNullable();
    table.timestamps(true, true);
    table.index(['chapter_id', 'index']);
  });
  await knex.schema.createTable('block_audio', (table) => {
    table.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    /** studio/blockHash.ts: text, voices, speed, normalization, dictionaries' content and engine model. */
    table.string('content_hash', 64).notNullable();
    table.string('audio_key', 300).notNullable();
    table.integer('duration_ms').notNullable();
    table.integer('characters').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['account_id', 'content_hash']);
  });
  await knex.schema.createTable('project_snapshots', (table) => {
    table.uuid('id').primary();
    table.uuid('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    table.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    table.string('status', 16).notNullable().defaultTo('queued');
    table.float('progress').notNullable().defaultTo(0);
    /** The chapters converted (null: all), in order. */
    table.specificType('chapter_ids', 'uuid[]').nullable();
    /** The chapter index: [{chapter_id, title, index, start_ms, duration_ms, qc}]. */
    table.jsonb('chapters').notNullable().defaultTo('[]');
    table.integer('duration_ms').nullable();
    table.integer('characters_rendered').notNullable().defaultTo(0);
    table.integer('credits_charged').notNullable().defaultTo(0);
    table.integer('blocks_rendered').notNullable().defaultTo(0);
    table.integer('blocks_reused').notNullable().defaultTo(0);
    /** Object keys of the finished files: {m4b, mp3, zip, index, captions: {<chapter id>: {srt, vtt}}}. */
    table.jsonb('outputs').notNullable().defaultTo('{}');
    /** The block audio keys it used: they stay while a snapshot holds them. */
    table.specificType('block_keys', 'text[]').notNullable().defaultTo('{}');
    table.jsonb('error').nullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('completed_at', { useTz: true }).nullable();
    table.index(['project_id', 'created_at']);
  });
  await knex.schema.alterTable('subscription_plans', (table) => {
    table.integer('max_projects').notNullable().defaultTo(10);
    table.integer('max_project_characters').notNullable().defaultTo(100_000);
    table.integer('max_chapters').notNullable().defaultTo(100);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscription_plans', (table) => {
    table.dropColumns('max_projects', 'max_project_characters', 'max_chapters');
  });
  await knex.schema.dropTable('project_snapshots');
  await knex.schema.dropTable('block_audio');
  await knex.schema.dropTable('project_blocks');
  await knex.schema.dropTable('project_chapters');
  await knex.schema.alterTable('projects', (table) => {
    table.dropColumns(
      'default_voice_id',
      'heading_voice_id',
      'dialogue_voice_id',
      'language',
      'text_normalization',
      'speed',
      'output_preset',
      'metadata',
      'speakers',
      'cover_key',
      'cover_content_type',
    );
  });
}
