/**
 * Audiobook assembly and mastering: pure file-in/file-out functions over
 * ffmpeg (run one thread each, at a lower CPU priority), called by the
 * conversion's activities. Nothing here holds a chapter's or a book's audio
 * in memory: ffmpeg reads and writes the files, and levels are measured in
 * Node as the samples stream past.
 */
import type { ImportedMetadata } from '../document';

export interface BlockAudio {
  path: string;
  kind: 'heading' | 'paragraph';
  /** word timings relative to the block's start (ms) */
  words?: { word: string; startMs: number; endMs: number }[];
}

export interface ChapterQc {
  /** Overall RMS of the delivered MP3 (decoded), dBFS. */
  rms_db: number;
  /** Sample peak of the delivered MP3 as a decoder outputs it (float, so past 0 when it clips), dBFS. */
  peak_db: number;
  /** RMS of the quietest 500 ms window of the delivered MP3, dBFS (digital silence reads −144). */
  noise_floor_db: number;
  duration_ms: number;
  words_per_minute: number;
  acx: { rms: boolean; peak: boolean; noise_floor: boolean };
}

export interface ChapterAssembly {
  wavPath: string;
  /** The chapter's delivered MP3 (what the QC measured), which the book's zip takes as it is. */
  mp3Path: string;
  durationMs: number;
  qc: ChapterQc;
  srt: string;
  vtt: string;
}

export type AssemblyPreset = 'audiobook' | 'standard';

export interface BookChapter {
  title: string;
  wavPath: string;
  /** The chapter's MP3 from its assembly, if kept: the zip takes it (tags added, not re-encoded); else one is encoded. */
  mp3Path?: string | null;
  durationMs: number;
}

/** The book's tags: the fields an import reads (studio/document.ts). */
export type BookMetadata = ImportedMetadata;

export { assembleChapter } from './chapter';
export { assembleBook } from './book';
