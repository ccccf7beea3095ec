import { createHash } from 'node:crypto';
import type { LexiconEntry } from '../text/lexicon';
import { blockContentHash } from './blockHash';
import { splitDialogue } from './dialogue';

/** The project's settings a block's rendering depends on (columns of `projects`). */
export interface ProjectSettings {
  default_voice_id: string | null;
  heading_voice_id: string | null;
  dialogue_voice_id: string | null;
  /** Speaker name (a script line's `NAME:`) -> voice id. */
  speakers: Record<string, string>;
  speed: number;
  text_normalization: 'auto' | 'on' | 'off';
  language: string;
}

/** A row of `project_blocks` (the columns blockSpec reads). */
export interface BlockRow {
  id: string;
  kind: 'heading' | 'paragraph';
  text: string;
  voice_id: string | null;
  segments: { speaker: string; text: string }[] | null;
  characters: number;
}

/** What rendering one block takes: its text per voice, in order, and the content hash its audio is kept under. */
export interface BlockSpec {
  segments: { voiceId: string; text: string }[];
  speed: number;
  textNormalization: 'auto' | 'on' | 'off';
  /** blockContentHash of the block's text, voices, speed, normalization, dictionaries and engine models. */
  hash: string;
  characters: number;
}

export interface BlockSpecContext {
  /** dictionariesContentHash of the project's dictionaries' entries; null without any. */
  dictionariesHash: string | null;
  /** A stable name of the engine and model that render a voice (e.g. `piper:en_US-joe-medium`). */
  engineModelOf: (voiceId: string) => string;
}

/** A block's voice could not be resolved: no voice on the block, its speaker, or the project. */
export class BlockVoiceMissingError extends Error {
  constructor(readonly blockId: string) {
    super(`Block ${blockId} has no voice: set the project's default_voice_id or the block's voice_id.`);
    this.name = 'BlockVoiceMissingError';
  }
}

/**
 * Which voice reads what of a block, and the hash its audio is kept under.
 *
 * - A heading: `heading_voice_id` ?? the block's voice ?? `default_voice_id`.
 * - A script line (segments): each speaker's `speakers[speaker]` ?? the
 *   block's voice ?? `default_voice_id`.
 * - A paragraph, when the project has a `dialogue_voice_id`: its quoted
 *   dialogue (studio/dialogue.ts) in that voice, the narration in the
 *   block's voice ?? `default_voice_id`.
 * - Otherwise the block's voice ?? `default_voice_id`.
 *
 * Adjacent segments of the same voice are merged. A segment left without a
 * voice throws BlockVoiceMissingError.
 */
export function blockSpec(project: ProjectSettings, block: BlockRow, context: BlockSpecContext): BlockSpec {
  const own = block.voice_id ?? project.default_voice_id;
  const parts: { voiceId: string | null; text: string }[] = [];
  if (block.kind === 'heading') {
    parts.push({ voiceId: project.heading_voice_id ?? own, text: block.text });
  } else if (block.segments && block.segments.length > 0) {
    for (const segment of block.segments) {
      const voiceId = Object.prototype.hasOwnProperty.call(project.speakers, segment.speaker)
        ? project.speakers[segment.speaker]
        : own;
      parts.push({ voiceId, text: segment.text });
    }
  } else if (project.dialogue_voice_id !== null) {
    for (const segment of splitDialogue(block.text)) {
      parts.push({ voiceId: segment.kind === 'dialogue' ? project.dialogue_voice_id : own, text: segment.text });
    }
  } else {
    parts.push({ voiceId: own, text: block.text });
  }

  const segments: BlockSpec['segments'] = [];
  for (const part of parts) {
    if (part.voiceId === null || part.voiceId === '') throw new BlockVoiceMissingError(block.id);
    const last = segments[segments.length - 1];
    if (last?.voiceId === part.voiceId) last.text += part.text;
    else segments.push({ voiceId: part.voiceId, text: part.text });
  }
  if (segments.length === 0) {
    if (own === null) throw new BlockVoiceMissingError(block.id);
    segments.push({ voiceId: own, text: block.text });
  }

  const voices = segments.map((segment) => segment.voiceId);
  const hash = blockContentHash({
    // The segments' texts joined: a script line's speakers change it.
    text: segments.map((segment) => segment.text).join('\u241E'),
    voices,
    speed: project.speed,
    textNormalization: project.text_normalization,
    dictionaryVersion: context.dictionariesHash,
    engineModel: voices.map((voiceId) => context.engineModelOf(voiceId)).join('|'),
  });
  return {
    segments,
    speed: project.speed,
    textNormalization: project.text_normalization,
    hash,
    characters: block.characters,
  };
}

/**
 * The content hash of a project's pronunciation dictionaries: sha256 of
 * their entries in the order they apply (PronunciationEntry.lexiconOf),
 * each entry written canonically. Null without entries, so a project with
 * no dictionary hashes like one whose dictionaries are empty.
 */
export function dictionariesContentHash(entries: readonly LexiconEntry[]): string | null {
  if (entries.length === 0) return null;
  const canonical = entries.map((entry) =>
    JSON.stringify([entry.graphemes, entry.alias ?? null, entry.phoneme ?? null, entry.caseSensitive === true]),
  );
  return createHash('sha256')
    .update(`[${canonical.join(',')}]`)
    .digest('hex');
}
