import type { Client } from '@temporalio/client';
import type { Db } from '../db/knex';
import type { EngineRegistry } from '../engines/registry';
import type { Config } from '../lib/config';
import type { Mailer } from '../lib/mail';
import type { Storage } from '../lib/storage';
import { createBillingActivities } from './billing';
import { createCloningActivities } from './cloning';
import { createCreditActivities } from './credits';
import { createPrivacyActivities } from './privacy';
import { createSignupActivities } from './signup';
import { createSynthesisActivities } from './synthesis';
import { createSystemCheckActivities } from './systemCheck';
import { createWebhookActivities } from './webhooks';
import { createPreviewActivities } from './previews';
import { createStudioActivities } from './studio';
import { createStreamSessionActivities } from './streamSessions';

/** What activities are given; tests build it with real or test resources. */
export interface ActivityDeps {
  config: Config;
  db: Db;
  storage: Storage;
  mailer: Mailer;
  /** To signal other workflows (a freed synthesis slot). */
  temporal: Client;
  /** The speech engines this worker may use (non-free ones only when enabled). */
  engines: EngineRegistry;
  /**
   * The same engines for a book's block renders, in processes of their own at a lower CPU priority
   * (STUDIO_NICENESS): another account's sentence does not wait for a book's (default: `engines`).
   */
  studioEngines?: EngineRegistry;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemCheckActivities(deps),
    ...createSignupActivities(deps),
    ...createCreditActivities(deps),
    ...createSynthesisActivities(deps),
    ...createCloningActivities(deps),
    ...createBillingActivities(deps),
    ...createWebhookActivities(deps),
    ...createPrivacyActivities(deps),
    ...createPreviewActivities(deps),
    ...createStudioActivities(deps),
    ...createStreamSessionActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
