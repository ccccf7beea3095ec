/** A row of the `syntheses` table, as knex returns it (bigint columns arrive as strings). */
export interface SynthesisRow {
  id: string;
  account_id: string;
  project_id: string | null;
  voice_id: string;
  text: string;
  characters: number;
  speed: number;
  pitch: number;
  emotion: string;
  output_format: string;
  status: string;
  progress: number;
  credits_charged: number;
  duration_seconds: number | null;
  audio_key: string | null;
  audio_bytes: string | number | null;
  error: { code: string; message: string } | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  deleted_at: Date | null;
}
