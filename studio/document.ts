/**
 * The document model every Studio import produces, whatever the format: the
 * book's metadata, its cover, and its chapters in reading order. The
 * hierarchy of a table of contents is kept flat (a chapter names its level
 * and its parent's index) so a project can list, reorder and render the
 * chapters without walking a tree.
 */

export interface ImportedMetadata {
  title: string | null;
  author: string | null;
  narrator: string | null;
  language: string | null;
  description: string | null;
  publisher: string | null;
  year: string | null;
  isbn: string | null;
}

export interface ImportedCover {
  bytes: Buffer;
  contentType: string;
}

/** One speaker's part of a script line (`HOST: Welcome back.`). */
export interface SpokenSegment {
  speaker: string;
  text: string;
}

export interface ImportedBlock {
  kind: 'heading' | 'paragraph';
  text: string;
  /** Present on script lines only: who says what, in order. */
  segments?: SpokenSegment[];
}

export interface ImportedChapter {
  title: string;
  /** 0 for a top entry of the table of contents, 1 for its children, and so on. */
  level: number;
  /** Index in `chapters` of the entry this one is nested in; null at the top. */
  parentIndex: number | null;
  blocks: ImportedBlock[];
}

export interface ImportedDocument {
  metadata: ImportedMetadata;
  cover: ImportedCover | null;
  chapters: ImportedChapter[];
}

export function emptyMetadata(): ImportedMetadata {
  return {
    title: null,
    author: null,
    narrator: null,
    language: null,
    description: null,
    publisher: null,
    year: null,
    isbn: null,
  };
}
