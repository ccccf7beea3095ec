/** English rules for numbers: money, dates, times, ranges, fractions, units, years, plain numbers. */
import { alternation, lookup, parseInteger, previousWord, WORD_END } from '../shared';
import type { Rule, RuleContext } from '../types';
import { CURRENCIES, MONTH_BY_NAME, SCALE_WORDS, TIGHT_ONLY, UNITS, YEAR_CUES } from './lexicon';
import { cardinalEn, decimalEn, digitsEn, fractionEn, ordinalEn, pluralNumberWords, yearEn } from './numbers';
import { dateEn, fullYear, numericDate, timeEn, validDate } from './readers';

/**
 * A number as written in English: 1,250 · 3.14 · .5 · 1250 (no sign). Runs
 * that cross separators are bounded (up to 21 digits in groups), so a rule
 * tried inside "1,123,123,…" reads a few groups, not the rest of the run.
 */
const NUM = String.raw`(?:\d{1,3}(?:,\d{3}){1,6}|\d+)(?:\.\d+)?|\.\d+`;
const UNIT = alternation(Object.keys(UNITS));
const SCALE = alternation(Object.keys(SCALE_WORDS));
const MONTH = String.raw`(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)`;

/** A minus sign counts only where a number starts a word: not in "a-5", "5-3". */
const signAllowed = (ctx: RuleContext): boolean => ctx.start === 0 || /[\s(\[{"'“:;,=]/.test(ctx.text[ctx.start - 1]);

/** "1,250.50" → words; leading zeros ("007") digit by digit; more than 15 digits digit by digit. */
export function numberEn(written: string, tag: string): string {
  const [integer, fraction] = written.split('.');
  if (integer.length > 1 && integer.startsWith('0') && fraction === undefined) return digitsEn(integer);
  const value = integer === '' ? 0 : parseInteger(integer);
  if (value === null) return digitsEn(written);
  if (fraction === undefined) return cardinalEn(value, tag);
  return decimalEn(integer === '' ? '' : String(value), fraction, tag);
}

const isOne = (written: string): boolean => /^1$/.test(written);

function money(sign: string, symbol: string, amount: string, scale: string | undefined, tag: string): string {
  const [major, majors, minor, minors] = CURRENCIES[symbol];
  const minus = sign ? 'minus ' : '';
  if (scale) return `${minus}${numberEn(amount, tag)} ${SCALE_WORDS[scale]} ${majors}`;
  const [integer, cents = ''] = amount.split('.');
  const whole = integer === '' ? 0 : parseInteger(integer);
  if (whole === null) return `${minus}${digitsEn(amount)} ${majors}`;
  const units = `${cardinalEn(whole, tag)} ${whole === 1 ? major : majors}`;
  if (!cents || /^0+$/.test(cents)) return minus + units;
  if (cents.length > 2 || !minor) return `${minus}${numberEn(amount, tag)} ${majors}`;
  const sub = Number(cents.padEnd(2, '0'));
  const subunits = `${cardinalEn(sub, tag)} ${sub === 1 ? minor : minors}`;
  return minus + (whole === 0 ? subunits : `${units} and ${subunits}`);
}

function unit(written: string, symbol: string, tag: string): string {
  const [one, many] = UNITS[symbol];
  return `${numberEn(written, tag)} ${isOne(written) ? one : many}`;
}

const yearRange = (n: number): boolean => n >= 1100 && n <= 2099;

export const NUMBER_RULES: Rule[] = [
  {
    name: 'money',
    re: new RegExp(String.raw`([-−]?)([$€£¥₹])\s?(${NUM})(?:\s?(${SCALE})${WORD_END})?`, 'uy'),
    apply: (m, ctx) => (m[1] && !signAllowed(ctx) ? null : money(m[1], m[2], m[3], m[4], ctx.tag)),
  },
  {
    name: 'money-after',
    re: new RegExp(String.raw`(${NUM})\s?(?:(${SCALE})\s?)?([€£¥₹])`, 'uy'),
    apply: (m, ctx) => money('', m[3], m[1], m[2], ctx.tag),
  },
  {
    name: 'pence',
    re: /(\d{1,3})p(?![\p{L}\p{N}])/uy,
    apply: (m, ctx) => `${cardinalEn(Number(m[1]), ctx.tag)} ${m[1] === '1' ? 'penny' : 'pence'}`,
  },
  {
    name: 'iso-date',
    re: /(\d{4})-(\d{2})-(\d{2})(?![\d-])/y,
    apply: (m, ctx) =>
      validDate(Number(m[2]), Number(m[3]))
        ? dateEn({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }, ctx.tag)
        : // Not a calendar date: read the three parts, not a range.
          [yearEn(Number(m[1]), ctx.tag), numberEn(m[2], ctx.tag), numberEn(m[3], ctx.tag)].join(', '),
  },
  {
    name: 'numeric-date',
    re: /(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})(?![\d/.-]\d)/y,
    apply: (m, ctx) => {
      const parts = numericDate(
        Number(m[1]),
        Number(m[3]),
        fullYear(m[4]),
        ctx.region === 'US' || ctx.region === 'PH' || ctx.region === '',
      );
      return parts ? dateEn(parts, ctx.tag) : null;
    },
  },
  {
    name: 'month-day',
    re: new RegExp(String.raw`(${MONTH})\.?\s(\d{1,2})(?:st|nd|rd|th)?(?:,?\s(\d{4}))?${WORD_END}(?!:)`, 'uy'),
    apply: (m, ctx) => {
      const month = MONTH_BY_NAME[m[1].toLowerCase()];
      if (!validDate(month, Number(m[2]))) return null;
      return dateEn({ month, day: Number(m[2]), year: m[3] ? Number(m[3]) : undefined }, ctx.tag, 'month-first');
    },
  },
  {
    name: 'day-month',
    re: new RegExp(String.raw`(\d{1,2})(?:st|nd|rd|th)?\s(?:of\s)?(${MONTH})\.?(?:,?\s(\d{4}))?${WORD_END}`, 'uy'),
    apply: (m, ctx) => {
      const month = MONTH_BY_NAME[m[2].toLowerCase()];
      if (!validDate(month, Number(m[1]))) return null;
      const spoken = dateEn({ month, day: Number(m[1]), year: m[3] ? Number(m[3]) : undefined }, ctx.tag, 'day-first');
      return previousWord(ctx)?.word.toLowerCase() === 'the' ? spoken.replace(/^the /, '') : spoken;
    },
  },
  {
    name: 'time',
    re: /(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s?([aApP])\.?\s?[mM](?![\p{L}])(\.?))?(?!\d)/uy,
    apply: (m, ctx) => {
      const [hour, minute, second] = [Number(m[1]), Number(m[2]), m[3] === undefined ? undefined : Number(m[3])];
      const period = m[4] ? (m[4].toLowerCase() === 'a' ? 'am' : 'pm') : undefined;
      if (minute > 59 || (second ?? 0) > 59 || (period ? hour < 1 || hour > 12 : hour > 23)) return null;
      return timeEn({ hour, minute, second, period }, ctx.tag) + sentenceEnd(m[5], ctx);
    },
  },
  {
    name: 'hour-period',
    re: /(\d{1,2})\s?([aApP])\.?\s?[mM](?![\p{L}])(\.?)/uy,
    apply: (m, ctx) => {
      const hour = Number(m[1]);
      if (hour < 1 || hour > 12) return null;
      return (
        timeEn({ hour, minute: 0, period: m[2].toLowerCase() === 'a' ? 'am' : 'pm' }, ctx.tag) + sentenceEnd(m[3], ctx)
      );
    },
  },
  {
    name: 'range',
    re: new RegExp(String.raw`(${NUM})(?:-|\s?[–—]\s?)(${NUM})(?:(\s?)(${UNIT}))?(?![\p{L}\p{N}])`, 'uy'),
    apply: (m, ctx) => {
      const [from, to] = [m[1], m[2]];
      if (/^0\d/.test(to)) return null;
      if (m[4] && m[3] && TIGHT_ONLY.has(m[4])) return null;
      const fromYear = /^\d{4}$/.test(from) && yearRange(Number(from));
      if (fromYear && !m[4] && (/^\d{4}$/.test(to) || /^\d{2}$/.test(to))) {
        const end = to.length === 2 ? cardinalEn(Number(to), ctx.tag) : yearEn(Number(to), ctx.tag);
        return `${yearEn(Number(from), ctx.tag)} to ${end}`;
      }
      const tail = m[4] ? unit(to, m[4], ctx.tag) : numberEn(to, ctx.tag);
      return `${numberEn(from, ctx.tag)} to ${tail}`;
    },
  },
  {
    name: 'decade',
    re: /(')?(\d{2}|\d{4})'?s(?![\p{L}\p{N}])/uy,
    apply: (m) => {
      const n = Number(m[2]);
      if (n % 10 !== 0 || (m[2].length === 4 && n < 1000)) return null;
      return pluralNumberWords(m[2].length === 4 ? yearEn(n) : cardinalEn(n));
    },
  },
  {
    name: 'ordinal',
    re: /(\d{1,3}(?:,\d{3}){1,6}|\d+)(?:st|nd|rd|th|ST|ND|RD|TH)(?![\p{L}\p{N}])/uy,
    apply: (m, ctx) => {
      const n = parseInteger(m[1]);
      return n === null ? null : ordinalEn(n, ctx.tag);
    },
  },
  {
    name: 'mixed-fraction',
    re: /(\d+)\s(\d{1,2})\/(\d{1,2})(?![\d/])/y,
    apply: (m, ctx) => {
      const [whole, numerator, denominator] = [Number(m[1]), Number(m[2]), Number(m[3])];
      if (numerator === 0 || numerator >= denominator) return null;
      const part =
        numerator === 1 && (denominator === 2 || denominator === 4)
          ? `a ${denominator === 2 ? 'half' : 'quarter'}`
          : fractionEn(numerator, denominator, ctx.tag);
      return `${cardinalEn(whole, ctx.tag)} and ${part}`;
    },
  },
  {
    name: 'fraction',
    re: /(\d+)\/(\d+)(?![\d/])/y,
    apply: (m, ctx) => {
      const idioms = lookup({ '24/7': 'twenty-four seven', '50/50': 'fifty-fifty', '9/11': 'nine eleven' });
      if (idioms[m[0]]) return idioms[m[0]];
      const [numerator, denominator] = [Number(m[1]), Number(m[2])];
      if (denominator >= 2 && denominator <= 100 && numerator > 0 && numerator < 1000 && !/^0/.test(m[1] + m[2]))
        return fractionEn(numerator, denominator, ctx.tag);
      return `${numberEn(m[1], ctx.tag)} slash ${numberEn(m[2], ctx.tag)}`;
    },
  },
  {
    name: 'dotted-numbers',
    re: /\d+(?:\.\d+){2,15}(?![\d.]\d)/y,
    apply: (m, ctx) =>
      m[0]
        .split('.')
        .map((part) => numberEn(part, ctx.tag))
        .join(' dot '),
  },
  {
    name: 'unit',
    re: new RegExp(String.raw`([-−]?)(${NUM})(\s?)(${UNIT})(?![\p{L}\p{N}])`, 'uy'),
    apply: (m, ctx) => {
      if (m[1] && !signAllowed(ctx)) return null;
      if (m[3] && TIGHT_ONLY.has(m[4])) return null;
      return (m[1] ? 'minus ' : '') + unit(m[2], m[4], ctx.tag);
    },
  },
  {
    name: 'number',
    re: new RegExp(String.raw`([-−]?)(${NUM})`, 'uy'),
    apply: (m, ctx) => {
      if (m[1] && !signAllowed(ctx)) return null;
      const written = m[2];
      if (!m[1] && /^\d{4}$/.test(written)) {
        const n = Number(written);
        const before = previousWord(ctx);
        const cue =
          before &&
          !/[\d]/.test(before.gap) &&
          (YEAR_CUES.has(before.word.toLowerCase()) || MONTH_BY_NAME[before.word.toLowerCase()] !== undefined);
        if ((cue && n >= 1000) || yearRange(n)) return yearEn(n, ctx.tag);
      }
      return (m[1] ? 'minus ' : '') + numberEn(written, ctx.tag);
    },
  },
  { name: 'hash-number', re: /#(\d+)/y, apply: (m, ctx) => `number ${numberEn(m[1], ctx.tag)}` },
];

/** A period the match swallowed that also ended the sentence ("at 5 p.m." at the end) is kept. */
export function sentenceEnd(period: string | undefined, ctx: RuleContext): string {
  if (!period) return '';
  const rest = ctx.text.slice(ctx.end);
  // Alternatives that each read the spaces once ("\s*[…]?\s+" backtracked over every split of a long run).
  return /^(?:\s*$|\s*\n|\s+\p{Lu}|\s*["”’)]\s+\p{Lu})/u.test(rest) ? '.' : '';
}
