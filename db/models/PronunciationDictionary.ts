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

  /**
   * A key that names `ids` in order with the version of each (writing an
   * entry bumps its dictionary's `updated_at`): what a cache of compiled
   * dictionaries is keyed by.
   */
  static async versionKey(db: Parameters<typeof PronunciationDictionary.query>[0], ids: readonly string[]) {
    const rows = await PronunciationDictionary.query(db)
      .whereIn('id', [...ids])
      .select('id', 'updated_at');
    const version = new Map(rows.map((row) => [row.id, row.updated_at.toISOString()]));
    return ids.map((id) => `${id}@${version.get(id) ?? 'gone'}`).join(',');
  }
}
