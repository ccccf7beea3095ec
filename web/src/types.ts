/** The API's objects, as the public contract describes them. */
export interface Profile {
  id: string;
  email: string;
  name: string;
  subscription_tier: string;
  credit_balance: number;
  credits_reserved: number;
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
  status: 'processing' | 'ready' | 'failed';
  error: { code: string; message: string } | null;
  similarity: number | null;
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
