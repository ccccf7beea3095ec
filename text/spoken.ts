/**
 * Spoken text that remembers where it came from: every UTF-16 unit carries
 * the source span it was read from (-1 when it has none, e.g. a space the
 * normalizer inserted) and, optionally, the IPA pronunciation that covers it.
 * Pronunciation dictionaries and SSML build their output from these pieces,
 * so every spoken word maps back to its span in the original source and
 * engines that take phonemes know which stretch to say as given.
 */
import { normalizeText, type SpokenWord } from './normalize';

/** A stretch of the spoken text an engine that takes phonemes (Piper, eSpeak) can say as the given IPA; others say the text. */
export interface Pronunciation {
  ipa: string;
  /** UTF-16 offsets into the spoken text, end exclusive. */
  start: number;
  end: number;
  /** UTF-16 offsets into the source, end exclusive. */
  source_start: number;
  source_end: number;
}

export interface Mapped {
  text: string;
  starts: number[];
  ends: number[];
  /** Index into `ipa` of the pronunciation covering each unit, or -1. */
  marks: number[];
  ipa: string[];
}

export const empty = (): Mapped => ({ text: '', starts: [], ends: [], marks: [], ipa: [] });

/** Text whose units map one by one to the given spans (as decoded from the source). */
export function fromSpans(text: string, starts: readonly number[], ends: readonly number[]): Mapped {
  return { text, starts: [...starts], ends: [...ends], marks: new Array<number>(text.length).fill(-1), ipa: [] };
}

/** Source text read as written: unit i of `text` is source offset `offset + i`. */
export function identity(text: string, offset = 0): Mapped {
  const starts = Array.from({ length: text.length }, (_, i) => offset + i);
  return fromSpans(
    text,
    starts,
    starts.map((s) => s + 1),
  );
}

/** Text that replaces the source span [start, end): all its units share the span. */
export function replacement(text: string, start: number, end: number): Mapped {
  return fromSpans(text, new Array<number>(text.length).fill(start), new Array<number>(text.length).fill(end));
}

/** The same text, all of it said as `ipa`. */
export function pronounced(piece: Mapped, ipa: string): Mapped {
  return { ...piece, marks: new Array<number>(piece.text.length).fill(0), ipa: [ipa] };
}

const ALNUM_END = /[\p{L}\p{N}\p{M}]$/u;
const ALNUM_START = /^[\p{L}\p{N}\p{M}]/u;

/** The span of the source that units [from, to) come from, or null if none carries one. */
function spanOf(piece: Mapped, from: number, to: number): { start: number; end: number } | null {
  let start = Infinity;
  let end = -Infinity;
  for (let i = from; i < to; i++) {
    if (piece.starts[i] < 0) continue;
    start = Math.min(start, piece.starts[i]);
    end = Math.max(end, piece.ends[i]);
  }
  return start === Infinity ? null : { start, end };
}

/** A spoken or written word: letters/digits/marks, with inner apostrophes or hyphens (the normalizer's definition). */
const WORD = /[\p{L}\p{N}\p{M}]+(?:['’-][\p{L}\p{N}\p{M}]+)*/gu;

/**
 * Runs the text normalizer over `piece` (in `language`); each word it says
 * maps to the source span of the written form it came from. `before` and
 * `after` are the source text around the piece (what a dictionary replaced):
 * the normalizer reads them as context ("Dr." before a name is "Doctor"),
 * and what they would say is cut off again. When a written form straddles the
 * edge, or the cut is not clean, the piece is read alone.
 */
export function normalized(piece: Mapped, language: string, before = '', after = ''): Mapped {
  if (piece.text.trim() === '') return piece;
  const text = before + piece.text + after;
  const from = before.length;
  const to = from + piece.text.length;
  const result = normalizeText(text, { language });
  // The words are the spoken text's words in order: find each after the previous one.
  const located: Array<{ at: number; length: number; start: number; end: number }> = [];
  let at = 0;
  for (const word of result.words) {
    const index = result.spoken.indexOf(word.word, at);
    if (index === -1) return before || after ? normalized(piece, language) : identityOf(piece);
    located.push({ at: index, length: word.word.length, start: word.source_start, end: word.source_end });
    at = index + word.word.length;
  }
  let left = 0;
  let right = result.spoken.length;
  if (before || after) {
    const prefix = located.filter((w) => w.end <= from);
    const suffix = located.filter((w) => w.start >= to);
    const straddles = located.some((w) => (w.start < from && w.end > from) || (w.start < to && w.end > to));
    const lastPrefix = prefix[prefix.length - 1];
    const firstSuffix = suffix[0];
    const leftSpoken = lastPrefix ? lastPrefix.at + lastPrefix.length : 0;
    const leftSource = lastPrefix ? lastPrefix.end : 0;
    left = leftSpoken + (from - leftSource);
    const rightSpoken = firstSuffix ? firstSuffix.at : result.spoken.length;
    const rightSource = firstSuffix ? firstSuffix.start : text.length;
    right = rightSpoken - (rightSource - to);
    // What lies between the context's words and the piece's must have been copied as written.
    const clean =
      !straddles &&
      left <= right &&
      result.spoken.slice(leftSpoken, left) === text.slice(leftSource, from) &&
      result.spoken.slice(right, rightSpoken) === text.slice(to, rightSource);
    if (!clean) return normalized(piece, language);
  }
  const spoken = result.spoken.slice(left, right);
  const out = fromSpans(spoken, new Array<number>(spoken.length).fill(-1), new Array<number>(spoken.length).fill(-1));
  for (const word of located) {
    if (word.at < left || word.at + word.length > right) continue;
    const span = spanOf(piece, word.start - from, word.end - from);
    for (let i = word.at - left; i < word.at - left + word.length && span; i++) {
      out.starts[i] = span.start;
      out.ends[i] = span.end;
    }
  }
  return out;
}

const identityOf = (piece: Mapped): Mapped => piece;

/** Whitespace runs become one space; leading and trailing whitespace goes. */
export function collapse(piece: Mapped): Mapped {
  const out = empty();
  out.ipa = piece.ipa;
  let pendingSpace = false;
  for (let i = 0; i < piece.text.length; i++) {
    const ch = piece.text[i];
    if (/\s/.test(ch)) {
      pendingSpace = out.text.length > 0;
      continue;
    }
    if (pendingSpace) {
      out.text += ' ';
      out.starts.push(-1);
      out.ends.push(-1);
      // A space inside one pronunciation stays inside it.
      out.marks.push(out.marks[out.marks.length - 1] === piece.marks[i] ? piece.marks[i] : -1);
      pendingSpace = false;
    }
    out.text += ch;
    out.starts.push(piece.starts[i]);
    out.ends.push(piece.ends[i]);
    out.marks.push(piece.marks[i]);
  }
  return out;
}

/** The spoken text, its words with their source spans, and the stretches said as IPA. */
export function finish(piece: Mapped): { spoken: string; words: SpokenWord[]; pronunciations: Pronunciation[] } {
  const words: SpokenWord[] = [];
  for (const match of piece.text.matchAll(WORD)) {
    const from = match.index ?? 0;
    const span = spanOf(piece, from, from + match[0].length);
    if (span) words.push({ word: match[0], source_start: span.start, source_end: span.end });
  }
  const pronunciations: Pronunciation[] = [];
  for (let i = 0; i < piece.text.length;) {
    const mark = piece.marks[i];
    let j = i + 1;
    while (j < piece.text.length && piece.marks[j] === mark) j++;
    if (mark >= 0) {
      const span = spanOf(piece, i, j) ?? { start: -1, end: -1 };
      pronunciations.push({ ipa: piece.ipa[mark], start: i, end: j, source_start: span.start, source_end: span.end });
    }
    i = j;
  }
  return { spoken: piece.text, words, pronunciations };
}

/** Units [from, to) of `piece`. */
export function slice(piece: Mapped, from: number, to: number): Mapped {
  const marks = piece.marks.slice(from, to);
  return {
    text: piece.text.slice(from, to),
    starts: piece.starts.slice(from, to),
    ends: piece.ends.slice(from, to),
    marks,
    ipa: piece.ipa,
  };
}

/** The source span units [from, to) come from (null when none carries one). */
export const sourceOf = (piece: Mapped, from: number, to: number): { start: number; end: number } | null =>
  spanOf(piece, from, to);

/**
 * All pieces in order, in one pass: linear in the total length (the text is
 * joined once at the end, and only the last piece's end is tested for a
 * letter). With `separate`, a space goes between two pieces when letters or
 * digits would touch ("R" + "and" must not become "Rand").
 */
export function join(pieces: readonly Mapped[], separate = false): Mapped {
  const out = empty();
  const parts: string[] = [];
  let alnumEnd = false;
  for (const piece of pieces) {
    const space = separate && alnumEnd && ALNUM_START.test(piece.text);
    const shift = out.ipa.length;
    if (space) {
      parts.push(' ');
      out.starts.push(-1);
      out.ends.push(-1);
      out.marks.push(-1);
    }
    parts.push(piece.text);
    if (piece.text !== '') alnumEnd = ALNUM_END.test(piece.text);
    for (let i = 0; i < piece.text.length; i++) {
      out.starts.push(piece.starts[i]);
      out.ends.push(piece.ends[i]);
      out.marks.push(piece.marks[i] < 0 ? -1 : piece.marks[i] + shift);
    }
    for (const ipa of piece.ipa) out.ipa.push(ipa);
  }
  out.text = parts.join('');
  return out;
}
