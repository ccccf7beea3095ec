import type { QueryBuilder } from 'objection';
import { type Owner, TableModel } from './TableModel';

export class PronunciationDictionary extends TableModel {
  static override tableName = 'pronunciation_dictionaries';

  static override modifiers = {
    /** An account's dictionaries: another account's is indistinguishable from a missing one. */
    ownedBy(query: QueryBuilder<PronunciationDictionary>, account: Owner) {
      query.where({ 'pronunciation_dictionaries.account_id': account.id });
    },
  };

  id!: string;
  account_id!: string;
  project_id!: string | null;
  name!: string;
  /** BCP 47 tag, written as the PLS document's xml:lang. */
  language!: string;
  created_at!: Date;
  updated_at!: Date;
  /** Selected by dictionariesOf(); absent on a freshly inserted row. */
  entry_count?: number;
}
