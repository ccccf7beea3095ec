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
import { MAX_APPLIED_ENTRIES, MAX_GRAPHEME, MAX_PRONUNCIATION, type LexiconEntry } from './types';

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

/** One written form of an entry, as the matcher looks it up. */
interface Form {
  entry: LexiconEntry;
  /** The entry's place in the dictionary: among forms of one length, the earlier entry wins. */
  order: number;
  /** Its last character is a letter, digit or mark: the match must not run on into a word. */
  endsInWord: boolean;
}

/** The forms that start with one key (their first word, lower-cased, or their first character), by exact text. */
interface Bucket {
  /** The forms' lengths (UTF-16, whitespace runs as one space), longest first: at most MAX_GRAPHEME distinct ones. */
  lengths: number[];
  forms: Map<string, Form>;
}

/**
 * A dictionary prepared for matching. Forms are looked up by their key and
 * then by their exact text, one hash lookup per distinct length, so the work
 * at a place in the text is bounded by MAX_GRAPHEME, whatever the number of
 * entries: matching is linear in the text (a regular expression per form,
 * tried at every word, was quadratic in entries × words).
 */
export interface CompiledLexicon {
  /** Case-insensitive forms: looked up in the folded text. */
  folded: Map<string, Bucket>;
  /** Case-sensitive forms: looked up in the text as written. */
  exact: Map<string, Bucket>;
}

const ALNUM = /[\p{L}\p{N}\p{M}]/u;
const FIRST_WORD = /^[\p{L}\p{N}\p{M}]+/u;
const WHITESPACE = /\s/;

/**
 * Lower-cases each code point whose lower case has the same UTF-16 length,
 * so offsets in the folded text are offsets in the text (the few others,
 * such as U+0130, match only as written).
 */
function fold(text: string): string {
  let out = '';
  for (const char of text) {
    const lower = char.toLowerCase();
    out += lower.length === char.length ? lower : char;
  }
  return out;
}

/** The key a form is filed under and a place in the text is looked up by: its first word, or its first character. */
const keyAt = (text: string, at: number): string => {
  const word = FIRST_WORD.exec(text.slice(at, at + MAX_GRAPHEME + 1))?.[0];
  return word ?? String.fromCodePoint(text.codePointAt(at)!);
};

function file(table: Map<string, Bucket>, written: string, form: Form): void {
  const key = keyAt(written, 0);
  let bucket = table.get(key);
  if (!bucket) table.set(key, (bucket = { lengths: [], forms: new Map() }));
  // The earlier entry keeps a form written twice.
  if (bucket.forms.has(written)) return;
  bucket.forms.set(written, form);
  if (!bucket.lengths.includes(written.length)) {
    bucket.lengths.push(written.length);
    bucket.lengths.sort((a, b) => b - a);
  }
}

/** Checks the limits and prepares `entries` for matching. Throws RangeError beyond the limits. */
export function compileLexicon(entries: readonly LexiconEntry[]): CompiledLexicon {
  // Several dictionaries apply together: the limit of one is checked where its entries are written.
  if (entries.length > MAX_APPLIED_ENTRIES)
    throw new RangeError(`A text is read with at most ${MAX_APPLIED_ENTRIES} entries (${entries.length} given)`);
  const compiled: CompiledLexicon = { folded: new Map(), exact: new Map() };
  entries.forEach((entry, order) => {
    if (entry.alias === undefined && entry.phoneme === undefined)
      throw new RangeError(`Entry "${entry.graphemes[0] ?? ''}" has neither alias nor phoneme`);
    if ((entry.alias?.length ?? 0) > MAX_PRONUNCIATION || (entry.phoneme?.length ?? 0) > MAX_PRONUNCIATION)
      throw new RangeError(`Aliases and phonemes are at most ${MAX_PRONUNCIATION} characters`);
    for (const raw of entry.graphemes) {
      const grapheme = raw.trim();
      if (grapheme === '' || [...grapheme].length > MAX_GRAPHEME)
        throw new RangeError(`Graphemes are 1 to ${MAX_GRAPHEME} characters ("${raw.slice(0, 20)}")`);
      // Whitespace in a form matches any run of whitespace: the text's runs are read as one space too.
      const written = grapheme.split(/\s+/).join(' ');
      const form: Form = { entry, order, endsInWord: ALNUM.test(written.slice(-1)) };
      if (entry.caseSensitive) file(compiled.exact, written, form);
      else file(compiled.folded, fold(written), form);
    }
  });
  return compiled;
}

/** E-mail addresses, URLs and domain names, each matched against a whole word of the text (anchored: linear). */
const GUARDED = [
  /^[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+$/u,
  /(?:https?|ftp):\/\/|^www\./iu,
  /^[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.(?:com|org|net|edu|gov|io|dev|ai|app|info|co|uk|de|fr|es|eu|us)(?:\/.*)?$/iu,
];

/**
 * For each UTF-16 offset, how many characters before it lie in an e-mail
 * address, URL or domain name (no entry matches inside them). One pass:
 * each run of non-whitespace, without the punctuation around it, is tested
 * once by anchored patterns.
 */
function guardedPrefix(text: string): Uint32Array {
  const prefix = new Uint32Array(text.length + 1);
  const guarded = new Uint8Array(text.length);
  for (const word of text.matchAll(/\S+/g)) {
    let start = word.index;
    let end = start + word[0].length;
    while (start < end && !ALNUM.test(text[start])) start++;
    while (end > start && !ALNUM.test(text[end - 1]) && text[end - 1] !== '/') end--;
    const core = text.slice(start, end);
    if (core.length > 0 && GUARDED.some((pattern) => pattern.test(core))) guarded.fill(1, start, end);
  }
  for (let i = 0; i < text.length; i++) prefix[i + 1] = prefix[i] + guarded[i];
  return prefix;
}

interface Match {
  start: number;
  end: number;
  entry: LexiconEntry;
}

/** The text with each whitespace run read as one space, and where each of its offsets lies in the text. */
function collapseWhitespace(text: string): { collapsed: string; origin: Uint32Array } {
  const origin = new Uint32Array(text.length + 1);
  let collapsed = '';
  for (let i = 0; i < text.length; i++) {
    if (WHITESPACE.test(text[i]) && i > 0 && WHITESPACE.test(text[i - 1])) continue;
    origin[collapsed.length] = i;
    collapsed += WHITESPACE.test(text[i]) ? ' ' : text[i];
  }
  origin[collapsed.length] = text.length;
  return { collapsed, origin: origin.subarray(0, collapsed.length + 1) };
}

/**
 * How many hash lookups findMatches made in all since the process started:
 * the tests' measure that matching stays linear (no timing in tests).
 */
export const matcherWork = { lookups: 0 };

function findMatches(text: string, lexicon: CompiledLexicon): Match[] {
  const { collapsed, origin } = collapseWhitespace(text);
  const folded = lexicon.folded.size > 0 ? fold(collapsed) : '';
  const guard = guardedPrefix(text);
  const matches: Match[] = [];
  let i = 0;
  while (i < collapsed.length) {
    const atWord = ALNUM.test(collapsed[i]);
    if (atWord && i > 0 && ALNUM.test(collapsed[i - 1])) {
      i++;
      continue;
    }
    let best: { end: number; form: Form } | null = null;
    for (const [table, view] of [
      [lexicon.folded, folded],
      [lexicon.exact, collapsed],
    ] as const) {
      const bucket = table.size > 0 ? table.get(keyAt(view, i)) : undefined;
      if (!bucket) continue;
      for (const length of bucket.lengths) {
        const end = i + length;
        if (end > view.length || (best && end < best.end)) continue;
        matcherWork.lookups++;
        const form = bucket.forms.get(view.slice(i, end));
        if (!form) continue;
        if (form.endsInWord && end < view.length && ALNUM.test(view[end])) continue;
        if (guard[origin[end]] - guard[origin[i]] > 0) continue;
        if (!best || end > best.end || form.order < best.form.order) best = { end, form };
        break;
      }
    }
    if (best) {
      matches.push({ start: origin[i], end: origin[best.end], entry: best.form.entry });
      i = best.end;
    } else if (atWord) {
      while (i < collapsed.length && ALNUM.test(collapsed[i])) i++;
    } else i++;
  }
  return matches;
}

/**
 * How many more characters (code points) the dictionary's aliases make the
 * text: for each place an alias replaces, its length less the written
 * form's. What is spoken beyond the written text is charged (synthesis/cost.ts).
 */
export function aliasExpansion(text: string, lexicon: CompiledLexicon): number {
  let extra = 0;
  for (const match of findMatches(text, lexicon)) {
    if (match.entry.alias === undefined) continue;
    extra += [...match.entry.alias].length - [...text.slice(match.start, match.end)].length;
  }
  return extra;
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
