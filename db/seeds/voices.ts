import type { Knex } from 'knex';
import { availableVoices, premadeVoices } from '../../engines/catalog';
import type { EngineRegistry } from '../../engines/registry';

/** A catalog voice the table would not take (a value too long for its column, a NUL), and PostgreSQL's reason. */
export interface RefusedVoice {
  id: string;
  engineVoice: string;
  reason: string;
}

const warn = (voice: RefusedVoice) =>
  process.stderr.write(
    `voice ${voice.id} (${JSON.stringify(voice.engineVoice)}) is left out of the catalog: ${voice.reason}\n`,
  );

/**
 * All rows in one statement; when the table refuses that, row by row, so a
 * bad row (an operator's voice is made of files anyone with MODELS_DIR
 * wrote) keeps out only itself, never the catalog. `knex` is a pool, not a
 * transaction: a failed statement would end one.
 */
async function upsert(knex: Knex, rows: Array<{ id: string; engine_voice: string }>): Promise<RefusedVoice[]> {
  try {
    await knex('voices').insert(rows).onConflict('id').merge();
    return [];
  } catch {
    const refused: RefusedVoice[] = [];
    for (const row of rows) {
      try {
        await knex('voices').insert(row).onConflict('id').merge();
      } catch (error) {
        // knex puts the statement before PostgreSQL's message.
        const reason =
          String((error as Error).message)
            .split(' - ')
            .at(-1) ?? '';
        refused.push({ id: row.id, engineVoice: row.engine_voice, reason });
      }
    }
    return refused;
  }
}

/**
 * Upserts the premade catalog (engines/catalog.ts) in catalog order, with the
 * operator's Piper voices found in `modelsDir`. A voice whose engine is not
 * installed or not enabled here (non-free engines need
 * ENABLE_NONFREE_ENGINES; Piper voices need their model in MODELS_DIR) stays
 * in the table but is hidden and cannot be used. `engines`: the registry whose
 * probes decide that (default: this process's shared one). A voice the table
 * refuses is hidden too, and reported to `onRefused` (default: a line on
 * stderr); the rest are seeded all the same. Returns the refused.
 */
export async function seedVoices(
  knex: Knex,
  {
    enableNonFree,
    modelsDir,
    engines,
    onRefused = warn,
  }: {
    enableNonFree: boolean;
    modelsDir?: string;
    engines?: EngineRegistry;
    onRefused?: (voice: RefusedVoice) => void;
  },
): Promise<RefusedVoice[]> {
  const renderable = new Set((await availableVoices({ enableNonFree, modelsDir, engines })).map((voice) => voice.id));
  const catalog = await premadeVoices(modelsDir);
  const rows = catalog.map((voice, index) => ({
    id: voice.id,
    category: 'premade',
    name: voice.name,
    language: voice.language,
    gender: voice.gender,
    description: voice.description,
    engine: voice.engine,
    engine_voice: voice.engineVoice,
    license: voice.license,
    quality: voice.quality,
    licence: voice.licence,
    status: 'ready',
    sort_order: index,
    available: renderable.has(voice.id),
    updated_at: knex.fn.now(),
  }));
  const refused = await upsert(knex, rows);
  refused.forEach((voice) => onRefused(voice));
  const refusedIds = new Set(refused.map((voice) => voice.id));
  // A voice dropped from the catalog (or refused) is hidden, never deleted: history may name it.
  await knex('voices')
    .where({ category: 'premade' })
    .whereNotIn(
      'id',
      rows.map((row) => row.id).filter((id) => !refusedIds.has(id)),
    )
    .update({ available: false });
  return refused;
}
