import type { QueryBuilder } from 'objection';
import { TableModel } from './TableModel';

export class Project extends TableModel {
  static override tableName = 'projects';

  static override modifiers = {
    /** An account's projects: another account's project is indistinguishable from a missing one. */
    ownedBy(query: QueryBuilder<Project>, account: { id: string }) {
      query.where({ 'projects.account_id': account.id });
    },
  };

  id!: string;
  account_id!: string;
  name!: string;
  description!: string;
  created_at!: Date;
  updated_at!: Date;
  /** Selected by projectsOf(); absent on a freshly inserted row. */
  synthesis_count?: number;
}
