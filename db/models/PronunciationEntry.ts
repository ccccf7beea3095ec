import type { LexiconEntry } from '../../text/lexicon';
import { TableModel } from './TableModel';

export class PronunciationEntry extends TableModel {
  static override tableName = 'pronunciation_entries';

  id!: string;
  dictionary_id!: string;
  graphemes!: string[];
  alias!: string | null;
  phoneme!: string | null;
  case_sensitive!: boolean;
  created_at!: Date;

  /**
   * The entries of `dictionaryIds` for applyLexicon, in the order of the ids
   * (then oldest first): one query, for a whole synthesis job. Dictionaries
   * deleted since contribute nothing.
   */
  static async lexiconOf(
    db: Parameters<typeof PronunciationEntry.query>[0],
    dictionaryIds: readonly string[],
  ): Promise<LexiconEntry[]> {
    if (dictionaryIds.length === 0) return [];
    const rows = await PronunciationEntry.query(db)
      .whereIn('dictionary_id', [...dictionaryIds])
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select('dictionary_id', 'graphemes', 'alias', 'phoneme', 'case_sensitive');
    const rank = new Map(dictionaryIds.map((id, index) => [id, index]));
    return rows
      .map((row, index) => ({ row, index }))
      .sort((a, b) => rank.get(a.row.dictionary_id)! - rank.get(b.row.dictionary_id)! || a.index - b.index)
      .map(({ row }) => toLexiconEntry(row));
  }
}

export function toLexiconEntry(
  row: Pick<PronunciationEntry, 'graphemes' | 'alias' | 'phoneme' | 'case_sensitive'>,
): LexiconEntry {
  return {
    graphemes: row.graphemes,
    ...(row.alias !== null && { alias: row.alias }),
    ...(row.phoneme !== null && { phoneme: row.phoneme }),
    ...(row.case_sensitive && { caseSensitive: true }),
  };
}
