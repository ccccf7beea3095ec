import type { VoiceRow } from '../../../db/models/Voice';

/** A voice as the API presents it (both families alike); the webhook events carry it too. */

export type { VoiceRow };

export const presentVoice = (voice: VoiceRow) => ({
  id: voice.id,
  name: voice.name,
  category: voice.category,
  language: voice.language,
  gender: voice.gender,
  description: voice.description,
  status: voice.status,
  error: voice.status === 'failed' ? voice.error : null,
  similarity: voice.similarity,
  engine: voice.engine ?? null,
  quality: voice.quality ?? null,
  licence: voice.licence ?? null,
  created_at: voice.created_at.toISOString(),
});
