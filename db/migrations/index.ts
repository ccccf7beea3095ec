import type { Knex } from 'knex';
import * as plans from './001_subscription_plans';
import * as accounts from './002_accounts';
import * as projects from './003_projects';
import * as syntheses from './004_voices_and_syntheses';
import * as idempotency from './005_idempotency_keys';
import * as cloning from './006_voice_cloning';
import * as losslessNumbers from './007_lossless_numbers';
import * as voiceEngineFields from './008_voice_engine_fields';
import * as streamedSyntheses from './009_streamed_syntheses';
import * as webhooks from './010_webhooks';
import * as privacy from './011_privacy';
import * as authNotify from './012_auth_notify';
import * as voicePreviews from './013_voice_previews';
import * as webhookAttemptLease from './014_webhook_attempt_lease';
import * as erasedSignupGrants from './015_erased_signup_grants';
import * as adminActions from './016_admin_actions';
import * as textNormalization from './017_text_normalization';
import * as pronunciationDictionaries from './018_pronunciation_dictionaries';
import * as textType from './019_text_type';
import * as synthesisSpeechPlans from './020_synthesis_speech_plans';
import * as spokenCharacters from './021_spoken_characters';
import * as studio from './022_studio';
import * as cloningAttestations from './023_cloning_attestations';
import * as accountDefaultVoice from './024_account_default_voice';
import * as synthesisPlanSlot from './025_synthesis_plan_slot';
import * as synthesisParts from './026_synthesis_parts';

/**
 * Migrations are listed here in order rather than discovered on disk, so the
 * same list runs from TypeScript (tests) and compiled JavaScript (production).
 */
const migrations: Record<string, Knex.Migration> = {
  '001_subscription_plans': plans,
  '002_accounts': accounts,
  '003_projects': projects,
  '004_voices_and_syntheses': syntheses,
  '005_idempotency_keys': idempotency,
  '006_voice_cloning': cloning,
  '007_lossless_numbers': losslessNumbers,
  '008_voice_engine_fields': voiceEngineFields,
  '009_streamed_syntheses': streamedSyntheses,
  '010_webhooks': webhooks,
  '011_privacy': privacy,
  '012_auth_notify': authNotify,
  '013_voice_previews': voicePreviews,
  '014_webhook_attempt_lease': webhookAttemptLease,
  '015_erased_signup_grants': erasedSignupGrants,
  '016_admin_actions': adminActions,
  '017_text_normalization': textNormalization,
  '018_pronunciation_dictionaries': pronunciationDictionaries,
  '019_text_type': textType,
  '020_synthesis_speech_plans': synthesisSpeechPlans,
  '021_spoken_characters': spokenCharacters,
  '022_studio': studio,
  '023_cloning_attestations': cloningAttestations,
  '024_account_default_voice': accountDefaultVoice,
  '025_synthesis_plan_slot': synthesisPlanSlot,
  '026_synthesis_parts': synthesisParts,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};
