import { Model } from 'objection';

export class Project extends Model {
  static override tableName = 'projects';

  id!: string;
  account_id!: string;
  name!: string;
  description!: string;
  created_at!: Date;
  updated_at!: Date;
  /** Selected by projectsOf(); absent on a freshly inserted row. */
  synthesis_count?: number;
}
