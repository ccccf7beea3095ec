import type { QueryBuilder } from 'objection';
import { TableModel } from './TableModel';

/**
 * A heading or paragraph of a Studio chapter, in the chapter's order by
 * `index`. Its owner is its chapter's project's (ProjectChapter): reach a
 * block through a chapter of a project found with `ownedBy`.
 */
export class ProjectBlock extends TableModel {
  static override tableName = 'project_blocks';
  static override jsonAttributes = ['segments'];

  static override modifiers = {
    /** A chapter's blocks, in order. */
    ofChapter(query: QueryBuilder<ProjectBlock>, chapterId: string) {
      query.where('project_blocks.chapter_id', chapterId).orderBy('project_blocks.index');
    },
  };

  id!: string;
  chapter_id!: string;
  index!: number;
  kind!: 'heading' | 'paragraph';
  text!: string;
  /** The block's own voice; null: the project's (studio/blockSpec.ts). */
  voice_id!: string | null;
  /** A script line's speakers and their words, in order; null: one voice. */
  segments!: { speaker: string; text: string }[] | null;
  /** Code points of `text`: what converting it costs. */
  characters!: number;
  created_at!: Date;
  updated_at!: Date;
}
