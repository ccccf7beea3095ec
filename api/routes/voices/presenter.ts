/** A voice as the API presents it (both families alike); the webhook events carry it too. */

export interface VoiceRow {
  id: string;
  name: string;
  category: 'premade' | 'cloned';
  language: string;
  gender: string;
  description: string;
  status: 'processing' | 'ready' | 'failed';
  error: { code: string; message: string } | null;
  similarity: number | null;
  engine: string | null;
  quality: 'neural' | 'classic' | null;
  licence: string | null;
  /** The stored preview (premade voices, once rendered: activities/previews.ts). */
  preview_key?: string | null;
  created_at: Date;
}

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
  licence: voice.licence ?? null,
  // Public and shared by every account (a premade voice's sample), so served without a token.
  preview_url: voice.category === 'premade' && voice.preview_key ? `${family === 'v1' ? '/api/v1' : '/api'}/voices/${voice.id}/preview/` : null,
  created_at: voice.created_at.toISOString(),
});
