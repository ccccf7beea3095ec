import type { VoiceRow } from '../../../db/models/Voice';
import { WORD_TIMING_ENGINES } from '../../../engines/registry';

/** A voice as the API presents it (both families alike); the webhook events carry it too. */

export type { VoiceRow };

export const presentVoice = (voice: VoiceRow, family: 'v1' | 'unversioned' = 'v1') => ({
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
  word_timestamps: voice.engine !== null && WORD_TIMING_ENGINES.has(voice.engine),
  licence: voice.licence ?? null,
  // Public and shared by every account (a premade voice's sample), so served without a token.
  preview_url: voice.category === 'premade' && voice.preview_key ? `${family === 'v1' ? '/api/v1' : '/api'}/voices/${voice.id}/preview/` : null,
  created_at: voice.created_at.toISOString(),
});
