import type { PronunciationDictionary } from '../../../db/models/PronunciationDictionary';
import type { PronunciationEntry } from '../../../db/models/PronunciationEntry';

/** A dictionary as the API presents it (both families alike). */
export const presentDictionary = (dictionary: PronunciationDictionary) => ({
  id: dictionary.id,
  name: dictionary.name,
  language: dictionary.language,
  project_id: dictionary.project_id,
  entry_count: dictionary.entry_count ?? 0,
  created_at: dictionary.created_at.toISOString(),
  updated_at: dictionary.updated_at.toISOString(),
});

export const presentEntry = (entry: PronunciationEntry) => ({
  id: entry.id,
  graphemes: entry.graphemes,
  alias: entry.alias,
  phoneme: entry.phoneme,
  alphabet: entry.phoneme === null ? null : ('ipa' as const),
  case_sensitive: entry.case_sensitive,
  created_at: entry.created_at.toISOString(),
});
