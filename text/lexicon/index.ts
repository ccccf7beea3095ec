/**
 * Pronunciation dictionaries: the W3C PLS 1.0 format (parsePls, toPls) and
 * applying entries to text before normalization (applyLexicon). See
 * docs/text.md, "Pronunciation dictionaries".
 */
export { parsePls, toPls, PlsError } from './pls';
export { aliasExpansion, applyLexicon, compileLexicon, matcherWork, readMapped, type CompiledLexicon } from './apply';
export {
  MAX_APPLIED_ENTRIES,
  MAX_ENTRIES,
  MAX_GRAPHEME,
  MAX_PRONUNCIATION,
  type Lexicon,
  type LexiconEntry,
} from './types';
