/** A voice as the API presents it (both families alike); the webhook events carry it too. */

export interface VoiceRow {
  id: string;
  name: string;
  category: 'premade' | 'cloned';
  language: string;
  gender: string;
  description: string;
  status: 'processing' | 'ready' | 'failed' | 'revoked';
  error: { code: string; message: string } | null;
  similarity: number | null;
  engine: string | null;
  quality: 'neural' | 'classic' | null;
  licence: string | null;
  created_at: Date;
}

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
