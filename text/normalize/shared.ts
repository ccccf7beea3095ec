/** Helpers every language uses: character classes, the words around a match, Roman numerals, numeric strings. */
import type { RuleContext } from './types';

const ALNUM = /[\p{L}\p{N}\p{M}]/u;

/**
 * A word table with a null prototype. The rules look words of the text up in
 * their tables ("constructor 2500": is "constructor" a month?); a plain object
 * would answer with what it inherits.
 */
export const lookup = <T>(entries: Record<string, T>): Readonly<Record<string, T>> =>
  Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));

/** True if the code point at `index` is a letter, digit or combining mark. */
export function isAlnumAt(text: string, index: number): boolean {
  if (index < 0 || index >= text.length) return false;
  const cp = text.codePointAt(index);
  if (cp === undefined) return false;
  // A low surrogate: look at its pair.
  if (cp >= 0xdc00 && cp <= 0xdfff && index > 0)
    return ALNUM.test(String.fromCodePoint(text.codePointAt(index - 1) ?? cp));
  return ALNUM.test(String.fromCodePoint(cp));
}

/** A regex alternation of literal keys, longest first so that "km/h" wins over "km". */
export const alternation = (keys: readonly string[]): string =>
  [...keys]
    .sort((a, b) => b.length - a.length)
    .map((key) => key.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('|');

/** Lookahead: no letter or digit follows (the match ends a word). */
export const WORD_END = String.raw`(?![\p{L}\p{N}])`;

/** A spoken or written word: letters/digits/marks, with inner apostrophes or hyphens. */
export const WORD = /[\p{L}\p{N}\p{M}]+(?:['’-][\p{L}\p{N}\p{M}]+)*/gu;

interface Neighbour {
  word: string;
  start: number;
  end: number;
  /** Characters between the match and this word (spaces, punctuation). */
  gap: string;
}

/** The word before the match, and what lies between them; null at the start of the text. */
export function previousWord(ctx: Pick<RuleContext, 'text' | 'start'>, from = ctx.start): Neighbour | null {
  let end = from;
  while (end > 0 && !isAlnumAt(ctx.text, end - 1)) end--;
  if (end === 0) return null;
  let start = end;
  while (
    start > 0 &&
    (isAlnumAt(ctx.text, start - 1) || (/['’-]/.test(ctx.text[start - 1]) && isAlnumAt(ctx.text, start - 2)))
  )
    start--;
  return { word: ctx.text.slice(start, end), start, end, gap: ctx.text.slice(end, from) };
}

/** The word after the match, and what lies between them; null at the end of the text. */
export function nextWord(ctx: Pick<RuleContext, 'text' | 'end'>, from = ctx.end): Neighbour | null {
  let start = from;
  while (start < ctx.text.length && !isAlnumAt(ctx.text, start)) start++;
  if (start >= ctx.text.length) return null;
  let end = start;
  while (
    end < ctx.text.length &&
    (isAlnumAt(ctx.text, end) || (/['’-]/.test(ctx.text[end]) && isAlnumAt(ctx.text, end + 1)))
  )
    end++;
  return { word: ctx.text.slice(start, end), start, end, gap: ctx.text.slice(from, start) };
}

/** True if a sentence starts at `index`: only spaces/quotes back to the text start or to . ! ? or a blank line. */
export function sentenceStartsAt(text: string, index: number): boolean {
  let i = index - 1;
  while (i >= 0 && /[\s"'“‘(«¡¿]/.test(text[i])) {
    if (text[i] === '\n') return true;
    i--;
  }
  return i < 0 || /[.!?…]/.test(text[i]);
}

export const isCapitalized = (word: string): boolean => /^\p{Lu}\p{Ll}/u.test(word);

const ROMAN: Record<string, number> = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 };

/** The value of a well-formed upper-case Roman numeral (1–3999), else null ("IIII", "VX", "IC" are not). */
export function parseRoman(text: string): number | null {
  if (!/^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$/.test(text) || text === '') return null;
  let total = 0;
  for (let i = 0; i < text.length; i++) {
    const value = ROMAN[text[i]];
    const next = i + 1 < text.length ? ROMAN[text[i + 1]] : 0;
    total += value < next ? -value : value;
  }
  return total;
}

/** "1,250" → 1250 with `group` as the thousands separator; null if beyond exact integers. */
export function parseInteger(text: string, group = ','): number | null {
  const digits = text
    .split(group)
    .join('')
    .replace(/[\s\u00a0\u202f]/g, '');
  if (!/^\d+$/.test(digits) || digits.length > 15) return null;
  return Number(digits);
}
