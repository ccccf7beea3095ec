import type { Knex } from 'knex';
import { availableVoices, premadeVoices } from '../../engines/catalog';
import type { EngineRegistry } from '../../engines/registry';

/**
 * Upserts the premade catalog (engines/catalog.ts) in catalog order, with the
 * operator's Piper voices found in `modelsDir`. A voice whose engine is not
 * installed or not enabled here (non-free engines need
 * ENABLE_NONFREE_ENGINES; Piper voices need their model in MODELS_DIR) stays
 * in the table but is hidden and cannot be used. `engines`: the registry whose
 * probes decide that (default: this process's shared one).
 */
export async function seedVoices(
  knex: Knex,
  { enableNonFree, modelsDir, engines }: { enableNonFree: boolean; modelsDir?: string; engines?: EngineRegistry },
): Promise<void> {
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
  await knex('voices').insert(rows).onConflict('id').merge();
  // A voice dropped from the catalog is hidden, never deleted: history may name it.
  await knex('voices')
    .where({ category: 'premade' })
    .whereNotIn(
      'id',
      rows.map((row) => row.id),
    )
    .update({ available: false });
}
