import { ApplicationFailure } from '@temporalio/activity';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ActivityDeps } from '.';
import { classifyFailures, inTempDir, unlessCanceled, withHeartbeat } from './work';
import { createWebhookAnnouncer } from './webhooks';
import { cloneSample, type IntakeResult, intakeSample } from '../audio/cloning';
import { type StoredVoiceProfile, Voice } from '../db/models/Voice';

const keysOf = (accountId: string, voiceId: string) => ({
  original: `samples/${accountId}/${voiceId}/original`,
  normalized: `samples/${accountId}/${voiceId}/normalized.wav`,
});

/** What the voice row keeps of the profile: enough to synthesize with it. */
export type { StoredVoiceProfile };

export function createCloningActivities(deps: ActivityDeps) {
  const { config, db, storage, engines } = deps;
  const webhooks = createWebhookAnnouncer(deps);
  /** A storage or database outage is waited out (STORAGE_RETRY_SECONDS); a sample the pipeline cannot take fails fast. */
  const classified = <T>(work: () => Promise<T>) => classifyFailures(config.STORAGE_RETRY_SECONDS * 1000, work);
  const loadVoice = async (voiceId: string) => {
    const voice = await Voice.query(db).findOne({ id: voiceId, category: 'cloned' });
    // A clone always has its owner (startCloning inserts it so).
    if (!voice?.account_id) throw ApplicationFailure.nonRetryable(`voice ${voiceId} does not exist`, 'VoiceMissing');
    return { ...voice, account_id: voice.account_id };
  };

  return {
    /** Decodes the original (never trusting its header) and checks duration and speech; stores the 16 kHz WAV. */
    async intakeVoiceSample({ voiceId }: { voiceId: string }): Promise<IntakeResult> {
      return classified(async () => {
        const voice = await loadVoice(voiceId);
        const keys = keysOf(voice.account_id, voiceId);
        return withHeartbeat((signal) =>
          inTempDir(async (dir) => {
            const original = path.join(dir, 'original');
            const normalized = path.join(dir, 'normalized.wav');
            await pipeline(await storage.get(keys.original), createWriteStream(original));
            const result = await intakeSample(original, normalized, { signal });
            unlessCanceled(signal);
            if (result.ok) await storage.put(keys.normalized, await readFile(normalized), 'audio/wav');
            return result;
          }),
        );
      });
    },

    /**
     * Splits the sample in two halves, fits the base voices on one and scores every candidate (the premade voices
     * plain among them) on the other; returns the profile syntheses apply.
     */
    async buildClonedVoiceProfile({ voiceId }: { voiceId: string }): Promise<StoredVoiceProfile> {
      return classified(async () => {
        const voice = await loadVoice(voiceId);
        const keys = keysOf(voice.account_id, voiceId);
        return withHeartbeat((signal) =>
          inTempDir(async (dir) => {
            const normalized = path.join(dir, 'normalized.wav');
            await pipeline(await storage.get(keys.normalized), createWriteStream(normalized));
            const { tried: _tried, ...profile } = await cloneSample({
              samplePath: normalized,
              language: voice.language,
              engines,
              modelsDir: config.MODELS_DIR,
              signal,
            });
            return profile;
          }),
        );
      });
    },

    async recordVoiceReady({ voiceId, profile }: { voiceId: string; profile: StoredVoiceProfile }): Promise<void> {
      const gender = profile.f0MedianHz === null ? 'unknown' : profile.f0MedianHz < 165 ? 'male' : 'female';
      // A clone is its base voice made to sound like the sample: it shows that voice's engine, quality and licence.
      const base = await Voice.query(db).findById(profile.baseVoiceId).select('engine', 'quality', 'licence');
      await Voice.query(db)
        .where({ id: voiceId })
        .modify('live')
        // A consent revoked while the clone was processing stays revoked.
        .whereNot({ status: 'revoked' })
        .patch({
          status: 'ready',
          profile,
          similarity: Math.round(profile.similarity * 1000) / 1000,
          gender,
          engine: base?.engine ?? null,
          quality: base?.quality ?? null,
          licence: base?.licence
            ? profile.closestPremade
              ? `The premade voice ${profile.baseVoiceId} unchanged, the closest to the uploaded sample: ${base.licence}`
              : `Acoustic match of the uploaded sample on ${profile.baseVoiceId}: ${base.licence}`
            : null,
          error: null,
          updated_at: db.fn.now(),
        });
      await webhooks.voiceEnded(voiceId);
    },

    async recordVoiceFailed({
      voiceId,
      error,
    }: {
      voiceId: string;
      error: { code: string; message: string };
    }): Promise<void> {
      await Voice.query(db)
        .where({ id: voiceId })
        .whereNot({ status: 'revoked' })
        .patch({ status: 'failed', error, updated_at: db.fn.now() });
      await webhooks.voiceEnded(voiceId);
    },

    /** The sample and everything derived from it; the consent record stays. */
    async removeVoiceObjects({ voiceId }: { voiceId: string }): Promise<void> {
      const voice = await loadVoice(voiceId);
      const keys = keysOf(voice.account_id, voiceId);
      await Promise.all([storage.remove(keys.original), storage.remove(keys.normalized)]);
    },
  };
}
