import type { Db } from '../db/knex';
import type { Storage } from '../lib/storage';
import { createSystemCheckActivities } from './systemCheck';

/** What activities are given; tests build it with real or test resources. */
export interface ActivityDeps {
  db: Db;
  storage: Storage;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemCheckActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
