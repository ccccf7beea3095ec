/**
 * Applying a pronunciation dictionary to text, before normalization (so an
 * alias can say "Doctor" for "Dr." before the normalizer reads it).
 *
 * Matching rules:
 * - on word boundaries, Unicode-aware: a grapheme that starts (ends) with a
 *   letter, digit or mark matches only where no letter, digit or mark comes
 *   just before (after) it ("Ada" is not found in "Adam", but is in "Ada's");
 * - case-insensitive unless the entry says `caseSensitive`;
 * - whitespace in a grapheme matches any run of whitespace ("New York" finds
 *   "New\nYork");
 * - left to right, and at one place the longest grapheme wins ("New York
 *   City" before "New York"); matches do not overlap;
 * - never inside an e-mail address, a URL or a domain name.
 *
 * An alias replaces the written form (said as given, not normalized); a
 * phoneme marks the stretch (the alias, or the written form) as said in IPA.
 * The text between matches goes through the normalizer.
 */
import {
  finish,
  join,
  identity,
  normalized,
  pronounced,
  replacement,
  slice,
  sourceOf,
  type Mapped,
  type Pronunciation,
} from '../spoken';
import type { SpokenWord } from '../normalize';
import { MAX_ENTRIES, MAX_GRAPHEME, MAX_PRONUNCIATION, type LexiconEntry } from './types';

export interface ApplyOptions {
  /** BCP 47 tag: the text no entry replaced is normalized in this language. */
  language: string;
  /** Run the normalizer over the rest of the text (default true). */
  normalize?: boolean;
}

export interface LexiconResult {
  /** The text to speak. */
  spoken: string;
  /** Each word of `spoken` with the source span (UTF-16, end exclusive) it came from. */
  words: SpokenWord[];
  /** Stretches of `spoken` to say as the given IPA (engines that take phonemes); others say the text. */
  pronunciations: Pronunciation[];
  /** How many places a dictionary entry replaced or pronounced. */
  matches: number;
}

interface Candidate {
  re: RegExp;
  length: number;
  entry: LexiconEntry;
  endsInWord: boolean;
}

/** A dictionary prepared for matching: candidates by the lower-cased first word (or first character) of their grapheme. */
export interface CompiledLexicon {
  byKey: Map<string, Candidate[]>;
}

const ALNUM = /[\p{L}\p{N}\p{M}]/u;
const FIRST_WORD = /^[\p{L}\p{N}\p{M}]+/u;
const escapeRe = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Checks the limits and prepares `entries` for matching. Throws RangeError beyond the limits. */
export function compileLexicon(entries: readonly LexiconEntry[]): CompiledLexicon {
  if (entries.length > MAX_ENTRIES)
    throw new RangeError(`A dictionary holds at most ${MAX_ENTRIES} entries (${entries.length} given)`);
  const byKey = new Map<string, Candidate[]>();
  for (const entry of entries) {
    if (entry.alias === undefined && entry.phoneme === undefined)
      throw new RangeError(`Entry "${entry.graphemes[0] ?? ''}" has neither alias nor phoneme`);
    if ((entry.alias?.length ?? 0) > MAX_PRONUNCIATION || (entry.phoneme?.length ?? 0) > MAX_PRONUNCIATION)
      throw new RangeError(`Aliases and phonemes are at most ${MAX_PRONUNCIATION} characters`);
    for (const raw of entry.graphemes) {
      const grapheme = raw.trim();
      if (grapheme === '' || [...grapheme].length > MAX_GRAPHEME)
        throw new RangeError(`Graphemes are 1 to ${MAX_GRAPHEME} characters ("${raw.slice(0, 20)}")`);
      const source = grapheme.split(/\s+/).map(escapeRe).join('\\s+');
      const candidate: Candidate = {
        re: new RegExp(source, entry.caseSensitive ? 'uy' : 'iuy'),
        length: grapheme.length,
        entry,
        endsInWord: ALNUM.test(grapheme.slice(-1)),
      };
      const key = (FIRST_WORD.exec(grapheme)?.[0] ?? grapheme[0]).toLowerCase();
      const list = byKey.get(key) ?? [];
      list.push(candidate);
      byKey.set(key, list);
    }
  }
  // Longest grapheme first; among equals, the earlier entry.
  for (const list of byKey.values()) list.sort((a, b) => b.length - a.length);
  return { byKey };
}

/** E-mail addresses, URLs and domain names: no entry matches inside them. */
const PROTECTED =
  /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+|\b(?:https?|ftp):\/\/\S+|\bwww\.\S+|\b[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.(?:com|org|net|edu|gov|io|dev|ai|app|info|co|uk|de|fr|es|eu|us)\b(?:\/\S*)?/giu;

interface Match {
  start: number;
  end: number;
  entry: LexiconEntry;
}

function findMatches(text: string, lexicon: CompiledLexicon): Match[] {
  const guarded = [...text.matchAll(PROTECTED)].map((m) => [m.index ?? 0, (m.index ?? 0) + m[0].length] as const);
  const inGuard = (start: number, end: number): boolean => guarded.some(([a, b]) => start < b && end > a);
  const matches: Match[] = [];
  let i = 0;
  while (i < text.length) {
    const atWord = ALNUM.test(text[i]);
    if (atWord && i > 0 && ALNUM.test(text[i - 1])) {
      i++;
      continue;
    }
    const key = atWord
      ? (FIRST_WORD.exec(text.slice(i, i + MAX_GRAPHEME + 1))?.[0] ?? text[i]).toLowerCase()
      : text[i].toLowerCase();
    let best: Match | null = null;
    for (const candidate of lexicon.byKey.get(key) ?? []) {
      candidate.re.lastIndex = i;
      const m = candidate.re.exec(text);
      if (!m) continue;
      const end = i + m[0].length;
      if (candidate.endsInWord && end < text.length && ALNUM.test(text[end])) continue;
      if (inGuard(i, end)) continue;
      if (!best || end > best.end) best = { start: i, end, entry: candidate.entry };
    }
    if (best) {
      matches.push(best);
      i = best.end;
    } else if (atWord) {
      while (i < text.length && ALNUM.test(text[i])) i++;
    } else i++;
  }
  return matches;
}

/** Applies the dictionary to a piece of source text that already carries its spans (SSML text), then normalizes the rest. */
export function readMapped(
  piece: Mapped,
  lexicon: CompiledLexicon | null,
  options: ApplyOptions,
): { read: Mapped; matches: number } {
  const normalize = options.normalize !== false;
  const rest = (from: number, to: number, before: string, after: string): Mapped => {
    const part = slice(piece, from, to);
    return normalize ? normalized(part, options.language, before, after) : part;
  };
  const matches = lexicon ? findMatches(piece.text, lexicon) : [];
  const out: Mapped[] = [];
  let at = 0;
  let previous = '';
  for (const match of matches) {
    const written = piece.text.slice(match.start, match.end);
    if (match.start > at) out.push(rest(at, match.start, previous, written));
    const span = sourceOf(piece, match.start, match.end) ?? { start: -1, end: -1 };
    let said =
      match.entry.alias !== undefined
        ? replacement(match.entry.alias, span.start, span.end)
        : slice(piece, match.start, match.end);
    if (match.entry.phoneme !== undefined) said = pronounced(said, match.entry.phoneme);
    out.push(said);
    at = match.end;
    previous = written;
  }
  if (at < piece.text.length) out.push(rest(at, piece.text.length, previous, ''));
  return { read: join(out, true), matches: matches.length };
}

/**
 * Applies a dictionary to `text` (before normalization), then normalizes the
 * rest in `options.language`. Spans index `text` (UTF-16, end exclusive).
 * `lexicon`: its entries, or the dictionary compileLexicon prepared once for
 * many texts (a synthesis's chunks). Throws RangeError when the entries
 * exceed the limits.
 */
export function applyLexicon(
  text: string,
  lexicon: readonly LexiconEntry[] | CompiledLexicon,
  options: ApplyOptions,
): LexiconResult {
  const compiled = Array.isArray(lexicon) ? compileLexicon(lexicon) : (lexicon as CompiledLexicon);
  const { read, matches } = readMapped(identity(text), compiled, options);
  return { ...finish(read), matches };
}
