import type { SynthesisRow, SynthesisStatusRow } from '../db/models/Synthesis';
import type { VoiceRow } from '../db/models/Voice';
import { WORD_TIMING_ENGINES } from '../engines/registry';

/**
 * The public JSON of a synthesis and of a voice: what the API answers
 * (the presenters of api/routes/tts and api/routes/voices) and what webhook events carry (the activities
 * that record a job's end), so both say the same. Below the API and the
 * worker, which both use it.
 */

/** The API's two path families (api/route.ts): `v1` for `/api/v1/...`, `unversioned` for `/api/...`. */
export type Family = 'v1' | 'unversioned';

/** The few places where the two families differ: the id's name and the paths. */
export const familyPaths = {
  v1: {
    idKey: 'id',
    status: (id: string) => `/api/v1/tts/history/${id}/status/`,
    audio: (id: string) => `/api/v1/tts/history/${id}/audio/`,
  },
  unversioned: {
    idKey: 'task_id',
    status: (id: string) => `/api/tts/status/${id}/`,
    audio: (id: string) => `/api/tts/audio/${id}/`,
  },
} as const;

const iso = (date: Date | null) => date?.toISOString() ?? null;

/**
 * Seconds left while it renders, from its own measured throughput: the time
 * since its render started, over the share rendered since (progress moves per
 * sentence). Null until the first sentence is rendered, and once it has ended.
 */
function etaSeconds(row: Pick<SynthesisStatusRow, 'status' | 'progress' | 'started_at'>, now = Date.now()) {
  if (row.status !== 'processing' || !row.started_at || !(row.progress > 0)) return null;
  const elapsed = Math.max(0, now - row.started_at.getTime()) / 1000;
  return Math.ceil((elapsed * (1 - row.progress)) / row.progress);
}

export function presentStatus(row: SynthesisStatusRow, family: Family) {
  const paths = familyPaths[family];
  const completed = row.status === 'completed';
  return {
    [paths.idKey]: row.id,
    status: row.status,
    progress: completed ? 1 : row.progress,
    eta_seconds: etaSeconds(row),
    created_at: row.created_at.toISOString(),
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    characters: row.characters,
    credits_charged: completed ? row.credits_charged : 0,
    output_format: row.output_format,
    duration_seconds: completed ? row.duration_seconds : null,
    audio_url: completed ? paths.audio(row.id) : null,
    error: row.status === 'failed' ? row.error : null,
  };
}

export function presentHistoryEntry(row: SynthesisRow, family: Family) {
  return {
    ...presentStatus(row, family),
    text: row.text,
    voice_id: row.voice_id,
    speed: row.speed,
    pitch: row.pitch,
    emotion: row.emotion,
    project_id: row.project_id,
    text_type: row.text_type,
    text_normalization: row.text_normalization,
    pronunciation_dictionary_ids: row.pronunciation_dictionary_ids ?? [],
  };
}

/** A voice as the API presents it (both families alike); the webhook events carry it too. */
export const presentVoice = (voice: VoiceRow, family: Family = 'v1') => ({
  id: voice.id,
  name: voice.name,
  category: voice.category,
  language: voice.language,
  gender: voice.gender,
  description: voice.description,
  status: voice.status,
  error: voice.status === 'failed' ? voice.error : null,
  similarity: voice.similarity,
  closest_premade: voice.category === 'cloned' ? (voice.profile?.closestPremade ?? null) : null,
  engine: voice.engine ?? null,
  quality: voice.quality ?? null,
  word_timestamps: voice.engine !== null && WORD_TIMING_ENGINES.has(voice.engine),
  licence: voice.licence ?? null,
  // Public and shared by every account (a premade voice's sample), so served without a token.
  preview_url:
    voice.category === 'premade' && voice.preview_key
      ? `${family === 'v1' ? '/api/v1' : '/api'}/voices/${voice.id}/preview/`
      : null,
  created_at: voice.created_at.toISOString(),
});
