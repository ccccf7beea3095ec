import type { Config } from '../lib/config';
import type { Db } from './knex';
import { seedPlans } from './seeds/plans';
import { seedVoices } from './seeds/voices';

/** Brings the schema to the latest version and upserts the seed data. Safe to run concurrently and repeatedly. */
export async function migrate(db: Db, config: Pick<Config, 'ENABLE_NONFREE_ENGINES' | 'MODELS_DIR'>): Promise<void> {
  await db.migrate.latest();
  await seedPlans(db);
  await seedVoices(db, { enableNonFree: config.ENABLE_NONFREE_ENGINES, modelsDir: config.MODELS_DIR });
}

if (require.main === module) {
  void (async () => {
    const { loadConfigOrExit } = await import('../lib/config');
    const { createDb } = await import('./knex');
    const config = loadConfigOrExit();
    const db = createDb(config);
    try {
      await migrate(db, config);
      process.stdout.write('migrations applied\n');
    } finally {
      await db.destroy();
    }
  })().catch((error) => {
    process.stderr.write(`migration failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
