import type { Project } from '../../../db/models/Project';
import type { ProjectBlock } from '../../../db/models/ProjectBlock';
import type { ProjectChapter } from '../../../db/models/ProjectChapter';
import type { ProjectSnapshot } from '../../../db/models/ProjectSnapshot';
import { presentSnapshot } from '../../../studio/resources';

const METADATA_FIELDS = [
  'title',
  'author',
  'narrator',
  'language',
  'description',
  'publisher',
  'year',
  'isbn',
] as const;

/** What a project's content adds to it (commands.ts: studioSummaries). */
export interface StudioSummary {
  chapter_count: number;
  characters: number;
  credits_needed: number;
  last_conversion: ProjectSnapshot | null;
}

/** A project as the API presents it (both families alike). */
export const presentProject = (project: Project, summary: StudioSummary) => ({
  id: project.id,
  name: project.name,
  description: project.description,
  synthesis_count: project.synthesis_count ?? 0,
  created_at: project.created_at.toISOString(),
  updated_at: project.updated_at.toISOString(),
  default_voice_id: project.default_voice_id,
  heading_voice_id: project.heading_voice_id,
  dialogue_voice_id: project.dialogue_voice_id,
  language: project.language,
  text_normalization: project.text_normalization,
  speed: project.speed,
  output_preset: project.output_preset,
  metadata: Object.fromEntries(METADATA_FIELDS.map((field) => [field, project.metadata?.[field] ?? null])),
  speakers: project.speakers ?? {},
  chapter_count: summary.chapter_count,
  characters: summary.characters,
  credits_needed: summary.credits_needed,
  has_cover: project.cover_key !== null,
  last_conversion: summary.last_conversion && presentSnapshot(summary.last_conversion),
});

/** A chapter's totals over its blocks (commands.ts: chapterSummaries). */
export interface ChapterSummary {
  characters: number;
  block_count: number;
  credits_needed: number;
  current_blocks: number;
  /** What the project's snapshots say of it (commands.ts: chapterConversions). */
  conversion: ChapterConversion;
}

/** A chapter as the project's snapshots see it. */
export interface ChapterConversion {
  /** A queued or running conversion includes it and has not assembled it yet. */
  running: boolean;
  /** The newest ended conversion that included it failed. */
  failed: boolean;
  /** When the newest completed conversion that assembled it completed. */
  convertedAt: Date | null;
}

export const presentChapterSummary = (chapter: ProjectChapter, summary: ChapterSummary) => ({
  id: chapter.id,
  index: chapter.index,
  title: chapter.title,
  characters: summary.characters,
  block_count: summary.block_count,
});

export const presentChapter = (chapter: ProjectChapter, summary: ChapterSummary) => {
  const converted = summary.current_blocks === summary.block_count && summary.block_count > 0;
  return {
    ...presentChapterSummary(chapter, summary),
    level: chapter.level,
    parent_id: chapter.parent_id,
    credits_needed: summary.credits_needed,
    status: summary.conversion.running
      ? ('converting' as const)
      : converted
        ? ('converted' as const)
        : summary.conversion.failed
          ? ('failed' as const)
          : summary.current_blocks > 0
            ? ('stale' as const)
            : ('not_converted' as const),
    progress: summary.block_count === 0 ? 0 : summary.current_blocks / summary.block_count,
    converted_at: summary.conversion.convertedAt?.toISOString() ?? null,
  };
};

export const presentBlock = (block: ProjectBlock, project: Project, audioCurrent: boolean) => {
  const own = block.voice_id ?? project.default_voice_id;
  return {
    id: block.id,
    index: block.index,
    kind: block.kind,
    text: block.text,
    voice_id: block.voice_id,
    segments:
      block.segments?.map((segment) => ({
        speaker: segment.speaker,
        voice_id: project.speakers?.[segment.speaker] ?? own,
        text: segment.text,
      })) ?? null,
    characters: block.characters,
    audio_current: audioCurrent,
  };
};

/** A snapshot (a conversion): the same JSON the `project.*` webhook events carry. */
export { presentSnapshot };
