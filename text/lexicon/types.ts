/** A pronunciation dictionary entry: what to say (alias), how to say it (IPA), or both, for one or more written forms. */
export interface LexiconEntry {
  /** Written forms, matched on word boundaries; may hold several words ("New York"). */
  graphemes: string[];
  /** Text said instead of the grapheme ("Doctor" for "Dr."). */
  alias?: string;
  /** IPA transcription, for engines that take phonemes. */
  phoneme?: string;
  /** Match the case exactly (default: case-insensitive). Not part of PLS: toPls drops it. */
  caseSensitive?: boolean;
}

export interface Lexicon {
  /** BCP 47 tag from the lexicon's xml:lang. */
  language: string;
  /** Always "ipa": other alphabets are refused. */
  alphabet: string;
  entries: LexiconEntry[];
}

/** Most entries in one dictionary. */
export const MAX_ENTRIES = 10_000;
/** Most entries one text is read with: an account's 20 dictionaries of the most entries each. */
export const MAX_APPLIED_ENTRIES = 20 * MAX_ENTRIES;
/** Longest grapheme (characters). */
export const MAX_GRAPHEME = 100;
/** Longest alias or phoneme (characters). */
export const MAX_PRONUNCIATION = 500;
