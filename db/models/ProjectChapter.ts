import type { QueryBuilder } from 'objection';
import { TableModel } from './TableModel';

/**
 * A chapter of a Studio project (db/migrations/022_studio.ts), in the
 * project's reading order by `index`. Its owner is its project's: find the
 * project with `ownedBy` first, then its chapters with `ofProject`, so
 * another account's chapter is indistinguishable from a missing one.
 */
export class ProjectChapter extends TableModel {
  static override tableName = 'project_chapters';

  static override modifiers = {
    /** A project's chapters, in reading order. */
    ofProject(query: QueryBuilder<ProjectChapter>, projectId: string) {
      query.where('project_chapters.project_id', projectId).orderBy('project_chapters.index');
    },
  };

  id!: string;
  project_id!: string;
  index!: number;
  title!: string;
  /** 0 for a top entry of the table of contents, 1 for its children... */
  level!: number;
  /** The part (a chapter of a lower level) this one is nested in; null at the top. */
  parent_id!: string | null;
  created_at!: Date;
  updated_at!: Date;
}
