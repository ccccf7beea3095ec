import { TableModel, ownedBy } from './TableModel';

export class Project extends TableModel {
  static override tableName = 'projects';

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
  /** Selected by projectsOf(); absent on a freshly inserted row. */
  synthesis_count?: number;
}
