import type { Db } from './knex';
import { seedPlans } from './seeds/plans';

/** Brings the schema to the latest version and upserts the seed data. Safe to run concurrently and repeatedly. */
export async function migrate(db: Db): Promise<void> {
  await db.migrate.latest();
  await seedPlans(db);
}

if (require.main === module) {
  void (async () => {
    const { loadConfigOrExit } = await import('../lib/config');
    const { createDb } = await import('./knex');
    const db = createDb(loadConfigOrExit());
    try {
      await migrate(db);
      process.stdout.write('migrations applied\n');
    } finally {
      await db.destroy();
    }
  })().catch((error) => {
    process.stderr.write(`migration failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
