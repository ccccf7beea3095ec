import type { Db } from '../db/knex';
import type { Config } from '../lib/config';
import type { Mailer } from '../lib/mail';
import type { Storage } from '../lib/storage';
import { createSignupActivities } from './signup';
import { createSystemCheckActivities } from './systemCheck';

/** What activities are given; tests build it with real or test resources. */
export interface ActivityDeps {
  config: Config;
  db: Db;
  storage: Storage;
  mailer: Mailer;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemCheckActivities(deps),
    ...createSignupActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
