/** The API's objects, as the public contract describes them. */
export interface Profile {
  id: string;
  email: string;
  name: string;
  subscription_tier: string;
  credit_balance: number;
  credits_reserved: number;
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
  /** `neural` (Piper) or `classic`; null for a clone. */
  quality: 'neural' | 'classic' | null;
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
}

export interface Project {
  id: string;
  name: string;
  description: string;
  synthesis_count: number;
  created_at: string;
  updated_at: string;
}
