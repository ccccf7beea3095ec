import { TableModel, ownedBy } from './TableModel';

export class Project extends TableModel {
  static override tableName = 'projects';
  static override jsonAttributes = ['metadata', 'speakers'];

  static override modifiers = {
    /** An account's projects: another account's project is indistinguishable from a missing one. */
    ownedBy,
  };

  id!: string;
  account_id!: string;
  name!: string;
  description!: string;
  created_at!: Date;
  updated_at!: Date;
  /** Studio settings (db/migrations/022_studio.ts; studio/blockSpec.ts reads the voices, speed and normalization). */
  default_voice_id!: string | null;
  heading_voice_id!: string | null;
  dialogue_voice_id!: string | null;
  /** BCP 47 tag. */
  language!: string;
  text_normalization!: 'auto' | 'on' | 'off';
  speed!: number;
  output_preset!: 'audiobook' | 'standard';
  /** The book's metadata: each of ProjectMetadata's fields a string or null. */
  metadata!: ProjectMetadata;
  /** Speaker name (a script line's `NAME:`) -> voice id. */
  speakers!: Record<string, string>;
  /** The stored cover image (MinIO key) and its type; null without one. */
  cover_key!: string | null;
  cover_content_type!: string | null;
  /** Selected by projectsOf(); absent on a freshly inserted row. */
  synthesis_count?: number;
}

export interface ProjectMetadata {
  title: string | null;
  author: string | null;
  narrator: string | null;
  language: string | null;
  description: string | null;
  publisher: string | null;
  year: string | null;
  isbn: string | null;
}
