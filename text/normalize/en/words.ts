/** English rules for written forms made of letters and symbols: addresses, phone numbers, abbreviations, Roman numerals, acronyms, symbols. */
import { alternation, isCapitalized, nextWord, parseRoman, previousWord, sentenceStartsAt } from '../shared';
import type { Rule, RuleContext } from '../types';
import {
  ABBREVIATIONS,
  ACRONYM_READING,
  AS_WORD,
  NOT_ACRONYM,
  ROMAN_CUES,
  SPELLED,
  SPELLED_AFTER_THE,
  SYMBOLS,
  TITLE_OR_PLACE,
  TITLES,
} from './lexicon';
import { cardinalEn, ordinalEn } from './numbers';
import { addressEn, charactersEn, telephoneEn } from './readers';
import { sentenceEnd } from './rules';

const ABBREVIATION = alternation([...Object.keys(ABBREVIATIONS), ...Object.keys(TITLE_OR_PLACE)]);
const TLD = 'com|org|net|dev|io|ai|app|co|edu|gov|info|biz|me|tv|us|uk|eu|de|fr|es|it|nl|ca|au|ch|at|be|jp|cn|in|ru|br';
const PHONE_CUES = new Set([
  'call',
  'phone',
  'tel',
  'telephone',
  'fax',
  'dial',
  'text',
  'mobile',
  'cell',
  'number',
  'hotline',
]);

/** Reads a title before a name ("Dr. Smith" → Doctor) or a street after one ("Elm Dr." → Drive). */
function titleOrPlace(key: string, ctx: RuleContext): string {
  const [title, place] = TITLE_OR_PLACE[key];
  const before = previousWord(ctx);
  const after = nextWord(ctx);
  const nameBefore =
    before !== null &&
    isCapitalized(before.word) &&
    !/[.!?,;:]/.test(before.gap) &&
    !sentenceStartsAt(ctx.text, before.start);
  const nameAfter = after !== null && isCapitalized(after.word) && /^\s+$/.test(after.gap);
  if (nameAfter && !nameBefore) return title;
  if (nameBefore) return place + sentenceEnd('.', ctx);
  return nameAfter ? title : place + sentenceEnd('.', ctx);
}

/** "Henry VIII" → "Henry the eighth"; "World War II" → "World War two"; the pronoun I never. */
function roman(numeral: string, ctx: RuleContext): string | null {
  const value = parseRoman(numeral);
  if (value === null) return null;
  const before = previousWord(ctx);
  if (!before || !/^[ \u00a0]+$/.test(before.gap)) return null;
  const cue =
    ROMAN_CUES.has(before.word[0].toUpperCase() + before.word.slice(1).toLowerCase()) && /^\p{Lu}/u.test(before.word);
  const after = nextWord(ctx);
  if (numeral === 'I') {
    // "World War I." yes; "the War I fought" no: I must end the clause.
    const endsClause = after === null || /[.,;:!?)]/.test(after.gap);
    return cue && endsClause ? cardinalEn(1) : null;
  }
  if (cue) return numeral.length === 1 && !'VX'.includes(numeral) ? null : cardinalEn(value);
  const regnal =
    isCapitalized(before.word) &&
    /^\p{L}+$/u.test(before.word) &&
    value <= 40 &&
    !['X', 'XL', 'XXL', 'XXXL', 'XXX', 'CD', 'MD'].includes(numeral);
  return regnal && (numeral.length > 1 || numeral === 'V') ? `the ${ordinalEn(value)}` : null;
}

function acronym(letters: string, plural: string, ctx: RuleContext): string | null {
  if (NOT_ACRONYM.has(letters)) return null;
  const suffix = plural ? "'s" : '';
  if (SPELLED_AFTER_THE.has(letters)) {
    return previousWord(ctx)?.word.toLowerCase() === 'the' && !plural ? charactersEn(letters) : null;
  }
  if (ACRONYM_READING[letters]) return ACRONYM_READING[letters] + suffix;
  if (SPELLED.has(letters)) return charactersEn(letters) + suffix;
  if (AS_WORD.has(letters)) return letters[0] + letters.slice(1).toLowerCase() + (plural ? 's' : '');
  if (letters.length <= 5 && !/[AEIOUY]/.test(letters)) return charactersEn(letters) + suffix;
  return null;
}

/** Tried before the number rules: addresses and phone numbers contain numbers. */
export const ADDRESS_RULES: Rule[] = [
  {
    name: 'url',
    re: /(?:https?:\/\/|www\.)[^\s<>"]{0,2000}[^\s<>".,;:!?)\]}']/iy,
    reach: 2048,
    apply: (m, ctx) => {
      const rest = m[0].replace(/^https?:\/\//i, '').replace(/\/$/, '');
      return (
        rest.toLowerCase().startsWith('www.')
          ? 'w w w dot ' + addressEn(rest.slice(4), ctx.tag)
          : addressEn(rest, ctx.tag)
      ).trim();
    },
  },
  {
    name: 'email',
    // Bounded as mail addresses are (64 before the @, labels of 63): tried at every word of "a.a.a.…@", it reads 64 characters, not the run.
    re: /[\p{L}\p{N}][\p{L}\p{N}._%+-]{0,63}@[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63}){1,4}/uy,
    reach: 400,
    apply: (m, ctx) => addressEn(m[0], ctx.tag),
  },
  {
    name: 'domain',
    re: new RegExp(
      // Labels of at most 63 characters, at most six of them: tried inside "a-a-a-…" or "a.a.a.…" it reads one label's length.
      String.raw`[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63}){0,4}\.(?:${TLD})(?:\/[^\s<>"]{0,1000}[^\s<>".,;:!?)\]}'])?(?![\p{L}\p{N}])`,
      'uy',
    ),
    reach: 2048,
    apply: (m, ctx) => addressEn(m[0], ctx.tag),
  },
  {
    name: 'telephone',
    re: /\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,6}(?:\s?(?:ext\.?|x)\s?\d{1,5})?|\(\d{3}\)\s?\d{3}[ .-]\d{4}|\d{3}[.-]\d{3}[.-]\d{4}|\d{3}-\d{4}/y,
    apply: (m, ctx) => {
      const digits = m[0].replace(/\D/g, '').length;
      if (m[0].startsWith('+') && digits < 8) return null;
      if (
        /^\d{3}-\d{4}$/.test(m[0]) &&
        !m[0].startsWith('555') &&
        !/-0/.test(m[0]) &&
        !PHONE_CUES.has(previousWord(ctx)?.word.toLowerCase() ?? '')
      )
        return null;
      return telephoneEn(m[0]);
    },
  },
];

export const WORD_RULES: Rule[] = [
  {
    name: 'number-abbreviation',
    re: /(?:No|no|Nos|nos)\.\s?(?=\d)/y,
    apply: () => 'number ',
  },
  {
    name: 'abbreviation',
    re: new RegExp(String.raw`(?:${ABBREVIATION})(?![\p{L}])`, 'uy'),
    apply: (m, ctx) => {
      if (TITLE_OR_PLACE[m[0]]) return titleOrPlace(m[0], ctx);
      return ABBREVIATIONS[m[0]] + (m[0].endsWith('.') && !TITLES.has(m[0]) ? sentenceEnd('.', ctx) : '');
    },
  },
  { name: 'roman', re: /[IVXLCDM]+(?![\p{L}\p{N}'’])/uy, apply: (m, ctx) => roman(m[0], ctx) },
  { name: 'acronym', re: /(\p{Lu}{2,6})(s?)(?![\p{L}\p{N}])/uy, apply: (m, ctx) => acronym(m[1], m[2], ctx) },
  {
    name: 'vulgar-fraction',
    re: /(\d*)([½¼¾⅓⅔])/y,
    apply: (m) => {
      const part =
        { '½': 'a half', '¼': 'a quarter', '¾': 'three quarters', '⅓': 'a third', '⅔': 'two thirds' }[m[2]] ?? '';
      return m[1] ? `${cardinalEn(Number(m[1]))} and ${part}` : part.replace(/^a /, 'one ');
    },
  },
  {
    name: 'symbol',
    re: /[&@+=×÷%°§±≈~<>](?=\s|\d|$)/y,
    apply: (m, ctx) => {
      if ('<>='.includes(m[0]) && !/\s/.test(ctx.text[ctx.start - 1] ?? ' ')) return null;
      return SYMBOLS[m[0]];
    },
  },
  { name: 'ampersand', re: /&/y, apply: () => 'and' },
];
