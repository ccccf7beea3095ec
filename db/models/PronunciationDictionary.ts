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

  /**
   * The dictionaries a text applies when it names none: the project's (when
   * it has one), then the account-wide ones, each oldest first. Matching
   * tries them in this order, so a project's entry wins over an account's.
   */
  static async defaultIds(
    db: Parameters<typeof PronunciationDictionary.query>[0],
    accountId: string,
    projectId: string | null,
  ): Promise<string[]> {
    const query = PronunciationDictionary.query(db).where({ account_id: accountId }).select('id', 'project_id');
    if (projectId) query.where((where) => where.whereNull('project_id').orWhere('project_id', projectId));
    else query.whereNull('project_id');
    const rows = await query.orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return [...rows.filter((row) => row.project_id !== null), ...rows.filter((row) => row.project_id === null)].map(
      (row) => row.id,
    );
  }
}
