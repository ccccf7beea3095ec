import type { SynthesisRow, SynthesisStatusRow } from '../../../db/models/Synthesis';
import type { Family } from '../../route';

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

export function presentAccepted(row: SynthesisRow, family: Family, warnings: readonly string[] = []) {
  const paths = familyPaths[family];
  return { [paths.idKey]: row.id, status: 'queued' as const, created_at: row.created_at.toISOString(), characters: row.characters, status_url: paths.status(row.id), warnings: [...warnings] };
}

export function presentStatus(row: SynthesisStatusRow, family: Family) {
  const paths = familyPaths[family];
  const completed = row.status === 'completed';
  return {
    [paths.idKey]: row.id,
    status: row.status,
    progress: completed ? 1 : row.progress,
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
