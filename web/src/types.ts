/** The API's objects, as the public contract describes them. */
export interface Profile {
  id: string;
  email: string;
  name: string;
  subscription_tier: string;
  credit_balance: number;
  credits_reserved: number;
  /** The account's chosen default voice (null: none); older servers leave it out. */
  default_voice_id?: string | null;
  /** The voice that speaks when none is named: the account's choice, or the service's default with a `notice` why. */
  default_voice?: { id: string; name: string; source: 'account' | 'service'; notice: string | null } | null;
  /** Monthly from verification: the credits are topped up at `end`; null until the email is verified. */
  billing_period: { start: string; end: string } | null;
  usage: {
    period_start: string;
    period_end: string;
    credits_used: number;
    characters_synthesized: number;
    syntheses: number;
    syntheses_failed: number;
    audio_seconds: number;
    cloned_voices: number;
    cloned_voices_limit: number;
    /** Per UTC day of the period, oldest first; days without any are left out. */
    daily: { date: string; syntheses: number; credits_used: number; audio_seconds: number }[];
  };
}

export interface Plan {
  id: string;
  name: string;
  price_cents: number;
  currency: string;
  monthly_credits: number;
  credits_per_character: number;
  max_text_length: number;
  max_cloned_voices: number;
  max_concurrent_syntheses: number;
  output_formats: string[];
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  key?: string;
  created_at: string;
  last_used_at: string | null;
}

export interface Voice {
  id: string;
  name: string;
  category: 'premade' | 'cloned';
  language: string;
  gender: string;
  description: string;
  status: 'processing' | 'ready' | 'failed' | 'revoked';
  error: { code: string; message: string } | null;
  similarity: number | null;
  /** A clone that is an unmodified premade voice (the closest to its sample): that voice's id. */
  closest_premade?: string | null;
  /** The engine that renders it (a clone: its base voice's), e.g. piper, festival, espeak-ng. */
  engine?: string | null;
  /** `neural` (Piper) or `classic`; null for a clone. */
  quality: 'neural' | 'classic' | null;
  /** Its syntheses have word timestamps (its engine reports timing). */
  word_timestamps?: boolean;
  created_at: string;
  preview_url?: string | null;
}

export interface Synthesis {
  id: string;
  status: 'queued' | 'processing' | 'completed' | 'failed' | 'canceled';
  progress: number;
  /** Seconds left while processing, from the job's own pace; null while queued or before its first sentence. */
  eta_seconds?: number | null;
  started_at?: string | null;
  created_at: string;
  completed_at: string | null;
  characters: number;
  credits_charged: number;
  output_format: string;
  duration_seconds: number | null;
  audio_url: string | null;
  error: { code: string; message: string } | null;
  text?: string;
  voice_id?: string;
  project_id?: string | null;
  speed?: number;
  pitch?: number;
  emotion?: string;
  text_type?: 'text' | 'ssml';
  /** The submit's answer: what an SSML document asked that is read differently. */
  warnings?: string[];
}

export interface Project {
  id: string;
  name: string;
  description: string;
  synthesis_count: number;
  created_at: string;
  updated_at: string;
}

export interface PronunciationDictionary {
  id: string;
  name: string;
  language: string;
  project_id: string | null;
  entry_count: number;
  created_at: string;
  updated_at: string;
}

export interface PronunciationEntry {
  id: string;
  graphemes: string[];
  alias: string | null;
  phoneme: string | null;
  alphabet: 'ipa' | null;
  case_sensitive: boolean;
  created_at: string;
}

/** A project with what Studio adds to it (a book to turn into an audiobook). */
export interface StudioProject extends Project {
  default_voice_id: string | null;
  heading_voice_id: string | null;
  dialogue_voice_id: string | null;
  language: string;
  text_normalization: 'auto' | 'on' | 'off';
  speed: number;
  output_preset: 'audiobook' | 'standard';
  metadata: Record<string, string | null>;
  /** A script's speaker name -> the voice of their lines. */
  speakers: Record<string, string>;
  chapter_count: number;
  characters: number;
  /** What converting it all would cost: characters of the blocks whose audio is not current. */
  credits_needed: number;
  has_cover: boolean;
}

export type ChapterStatus = 'not_converted' | 'converting' | 'converted' | 'stale' | 'failed';

export interface Chapter {
  id: string;
  index: number;
  title: string;
  level: number;
  parent_id: string | null;
  characters: number;
  block_count: number;
  credits_needed: number;
  status: ChapterStatus;
  /** Share of its blocks with current audio, 0-1. */
  progress: number;
  converted_at: string | null;
}

export interface Block {
  id: string;
  index: number;
  kind: 'heading' | 'paragraph';
  text: string;
  /** Its own voice; null: the project's. */
  voice_id: string | null;
  segments: { speaker: string; voice_id: string | null; text: string }[] | null;
  characters: number;
  audio_current: boolean;
}

/** A conversion of a project into an audiobook. */
export interface Snapshot {
  id: string;
  project_id: string;
  status: 'queued' | 'converting' | 'completed' | 'failed' | 'canceled';
  progress: number;
  chapters: { chapter_id: string; title: string; index: number; start_ms?: number; duration_ms?: number }[];
  duration_ms: number | null;
  characters_rendered: number;
  credits_charged: number;
  blocks_rendered: number;
  blocks_reused: number;
  created_at: string;
  completed_at: string | null;
  error: { code: string; message: string } | null;
}
