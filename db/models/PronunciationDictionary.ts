import { TableModel, ownedBy } from './TableModel';

export class PronunciationDictionary extends TableModel {
  static override tableName = 'pronunciation_dictionaries';

  static override modifiers = {
    /** An account's dictionaries: another account's is indistinguishable from a missing one. */
    ownedBy,
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
