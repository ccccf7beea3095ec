/**
 * Rules shared by the languages that write numbers the continental way
 * (German, French, Spanish): decimal comma (or point, by region), grouped
 * thousands, day-first numeric dates, 24-hour times. Each language supplies
 * its words; this file supplies the patterns.
 */
import { alternation, lookup, parseInteger, WORD_END } from './shared';
import type { DateParts, Language, Rule, RuleContext, TimeParts } from './types';

export interface EuropeanWords {
  cardinal(n: number, tag: string): string;
  /** The cardinal before a noun ("ein Euro", "un euro", "una hora"), feminine when asked. */
  beforeNoun(n: number, feminine: boolean, tag: string): string;
  decimalWord: string;
  minus: string;
  /** "und", "et", "y": for &. */
  and: string;
  /** "bis", "à", "a". */
  to: string;
  /** Month names, January first, lower case as written in running text (German capitalizes). */
  months: string[];
  /** Reads a date; ctx lets a language choose a form (German "am dritten"). */
  date(parts: DateParts, ctx: RuleContext | null, tag: string): string;
  time(parts: TimeParts, tag: string): string;
  /** symbol or code → [singular, plural, minor singular, minor plural, feminine]. */
  currencies: Record<string, [string, string, string, string, boolean?]>;
  /** How a money amount joins units and cents: "und", "et", "con". */
  moneyAnd: string;
  /** Scale words after an amount ("Mio.", "millions") → [singular, plural, feminine]. */
  scales: Record<string, [string, string, boolean?]>;
  units: Record<string, [string, string, boolean?]>;
  abbreviations: Record<string, string>;
  /** Words for French "21 h 30" and German "10 Uhr". */
  hourWords: string[];
  digits(text: string): string;
}

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const valid = (month: number, day: number): boolean => month >= 1 && month <= 12 && day >= 1 && day <= DAYS[month - 1];
const signAllowed = (ctx: RuleContext): boolean => ctx.start === 0 || /[\s(\[{"'“«:;=]/.test(ctx.text[ctx.start - 1]);

/** Decimal point regions: Mexico, Central America, the US, and the es-419 block; elsewhere a comma. */
export const decimalPoint = (tag: string): boolean =>
  /^es-(419|MX|US|GT|HN|SV|NI|PA|DO|PR|CU)$/i.test(tag) || /^(en|ja|zh|ko)\b/i.test(tag);

/** Digit by digit, with the language's words for zero to nine. */
export const digitReader =
  (ones: readonly string[]) =>
  (text: string): string =>
    Array.from(text.replace(/\D/g, ''), (d) => ones[Number(d)]).join(' ');

/**
 * The readers a continental language needs beyond its own words: a decimal
 * read "<integer> <decimalWord> <digits>", letters spelled one by one, a
 * telephone number group by group after "plus", and a date written ISO or
 * day first with `dateSeparator` (a regex: "/", or "\.\s?" in German).
 */
export function europeanReaders(words: {
  cardinal(n: number): string;
  digits(text: string): string;
  decimalWord(tag: string): string;
  dateSeparator: string;
}): Pick<Language, 'decimal' | 'digits' | 'characters' | 'parseDate' | 'telephone'> {
  const { cardinal, digits, decimalWord, dateSeparator: sep } = words;
  const numericDate = new RegExp(
    String.raw`^\s*(?:(\d{4})-(\d{1,2})-(\d{1,2})|(\d{1,2})${sep}(\d{1,2})${sep}(\d{4}))\s*$`,
  );
  return {
    decimal: (integer, fraction, tag) => `${cardinal(Number(integer || 0))} ${decimalWord(tag)} ${digits(fraction)}`,
    digits,
    characters: (text) =>
      Array.from(text.replace(/\s/g, ''), (c) => (/\d/.test(c) ? digits(c) : c.toUpperCase())).join(' '),
    parseDate: (text) => {
      const m = numericDate.exec(text);
      if (!m) return null;
      return m[1]
        ? { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }
        : { year: Number(m[6]), month: Number(m[5]), day: Number(m[4]) };
    },
    telephone: (text) =>
      (text.trim().startsWith('+') ? 'plus ' : '') + (text.match(/\d+/g) ?? []).map(digits).join(', '),
  };
}

/** `extra` rules (ordinals like French "1er") are tried after dates and times, before ranges and plain numbers. */
export function europeanRules(given: EuropeanWords, point: boolean, extra: Rule[] = []): Rule[] {
  // The tables are looked up by what the text says: null-prototype copies.
  const words: EuropeanWords = {
    ...given,
    currencies: lookup(given.currencies),
    scales: lookup(given.scales),
    units: lookup(given.units),
    abbreviations: lookup(given.abbreviations),
  };
  const [dec, group] = point ? ['\\.', ','] : [',', '.'];
  // Groups: "." (or ",") and (narrow) no-break spaces; French also plain spaces, which need exact groups of three.
  // At most six groups (21 digits): tried at each group of "1 123 123 … x" a rule reads a few groups, not the run.
  const NUM = String.raw`(?:\d{1,3}(?:[${group}\u00a0\u202f]\d{3}){1,6}|\d{1,3}(?: \d{3}){1,6}(?![\d])|\d+)(?:${dec}\d+)?`;
  const CURRENCY = alternation(Object.keys(words.currencies));
  const SCALE = alternation(Object.keys(words.scales));
  const UNIT = alternation(Object.keys(words.units));
  const MONTH = words.months.map((m) => `${m}|${m[0].toUpperCase()}${m.slice(1)}`).join('|');
  const ABBREVIATION = alternation(Object.keys(words.abbreviations));
  const HOUR = alternation(words.hourWords);

  const split = (written: string): [number | null, string | undefined] => {
    const [integer, fraction] = written.split(point ? '.' : ',');
    return [parseInteger(integer.replace(/[.,\u00a0\u202f ]/g, ''), '_'), fraction];
  };
  const number = (written: string, tag: string): string => {
    const [value, fraction] = split(written);
    if (value === null) return words.digits(written);
    if (/^0\d/.test(written) && fraction === undefined) return words.digits(written);
    if (fraction === undefined) return words.cardinal(value, tag);
    // Fractions read as a number ("drei Komma vierzehn"), with leading zeros digit by digit first.
    const zeros = /^0*/.exec(fraction)?.[0] ?? '';
    const rest = fraction.slice(zeros.length);
    const tail = [
      zeros ? words.digits(zeros) : '',
      rest ? (rest.length > 3 ? words.digits(rest) : words.cardinal(Number(rest), tag)) : '',
    ]
      .filter(Boolean)
      .join(' ');
    return `${words.cardinal(value, tag)} ${words.decimalWord} ${tail}`;
  };
  const money = (sign: string, amount: string, scale: string | undefined, symbol: string, tag: string): string => {
    const [one, many, minor, minors, feminine = false] = words.currencies[symbol];
    const minus = sign ? words.minus + ' ' : '';
    if (scale) {
      const [value, fraction] = split(amount);
      const [s1, sn, feminine] = words.scales[scale];
      const plural = value !== 1 || fraction !== undefined;
      return `${minus}${value === 1 && fraction === undefined ? words.beforeNoun(1, feminine ?? false, tag) : number(amount, tag)} ${plural ? sn : s1} ${many}`;
    }
    const [value, cents = ''] = split(amount);
    if (value === null) return `${minus}${words.digits(amount)} ${many}`;
    const units = `${words.beforeNoun(value, feminine, tag)} ${value === 1 ? one : many}`;
    if (!cents || /^0+$/.test(cents)) return minus + units;
    if (cents.length > 2 || !minor) return `${minus}${number(amount, tag)} ${many}`;
    const sub = Number(cents.padEnd(2, '0'));
    const subunits = `${words.beforeNoun(sub, false, tag)} ${sub === 1 ? minor : minors}`;
    return minus + (value === 0 ? subunits : `${units} ${words.moneyAnd} ${subunits}`);
  };
  const unit = (written: string, symbol: string, tag: string): string => {
    const [one, many, feminine] = words.units[symbol];
    const isOne = /^1$/.test(written);
    const [value, fraction] = split(written);
    // A whole number agrees with the unit: "veintiún grados", "vingt et une minutes".
    const amount =
      value !== null && fraction === undefined && !/^0\d/.test(written)
        ? words.beforeNoun(value, feminine ?? false, tag)
        : number(written, tag);
    return `${amount} ${isOne ? one : many}`;
  };
  const dateOf = (ctx: RuleContext, parts: DateParts | null): string | null =>
    parts && valid(parts.month, parts.day ?? 1) ? words.date(parts, ctx, ctx.tag) : null;
  const monthNumber = (name: string): number => words.months.indexOf(name.toLowerCase()) + 1;

  return [
    {
      name: 'money-before',
      re: new RegExp(String.raw`([-−]?)(${CURRENCY})\s?(${NUM})(?:\s?(${SCALE})${WORD_END})?`, 'uy'),
      apply: (m, ctx) => (m[1] && !signAllowed(ctx) ? null : money(m[1], m[3], m[4], m[2], ctx.tag)),
    },
    {
      name: 'money-after',
      re: new RegExp(String.raw`([-−]?)(${NUM})\s?(?:(${SCALE})\s?)?(${CURRENCY})(?![\p{L}])`, 'uy'),
      apply: (m, ctx) => (m[1] && !signAllowed(ctx) ? null : money(m[1], m[2], m[3], m[4], ctx.tag)),
    },
    {
      name: 'iso-date',
      re: /(\d{4})-(\d{2})-(\d{2})(?![\d-])/y,
      apply: (m, ctx) => dateOf(ctx, { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }),
    },
    {
      name: 'numeric-date',
      re: /(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})(?![\d./-]\d)/y,
      apply: (m, ctx) =>
        dateOf(ctx, {
          day: Number(m[1]),
          month: Number(m[3]),
          year: m[4].length === 2 ? (Number(m[4]) < 50 ? 2000 : 1900) + Number(m[4]) : Number(m[4]),
        }),
    },
    {
      name: 'month-date',
      re: new RegExp(String.raw`(\d{1,2})(?:\.|er|º|°)?\s(?:de\s)?(${MONTH})(?:\s(?:de\s)?(\d{4}))?${WORD_END}`, 'uy'),
      apply: (m, ctx) =>
        dateOf(ctx, { day: Number(m[1]), month: monthNumber(m[2]), year: m[3] ? Number(m[3]) : undefined }),
    },
    {
      name: 'time',
      re: new RegExp(
        String.raw`(\d{1,2})(?::(\d{2})(?:\s?(?:${HOUR}))?|\s?(?:${HOUR})(?:\s?(\d{2}))?)${WORD_END}`,
        'uy',
      ),
      apply: (m, ctx) => {
        const hour = Number(m[1]);
        const minute = Number(m[2] ?? m[3] ?? 0);
        return hour > 24 || minute > 59 ? null : words.time({ hour, minute }, ctx.tag);
      },
    },
    ...extra,
    {
      name: 'range',
      re: new RegExp(String.raw`(${NUM})(?:-|\s?[–—]\s?)(${NUM})(?:\s?(${UNIT}))?${WORD_END}`, 'uy'),
      apply: (m, ctx) =>
        /^0\d/.test(m[2])
          ? null
          : `${number(m[1], ctx.tag)} ${words.to} ${m[3] ? unit(m[2], m[3], ctx.tag) : number(m[2], ctx.tag)}`,
    },
    {
      name: 'unit',
      re: new RegExp(String.raw`([-−]?)(${NUM})\s?(${UNIT})(?![\p{L}\p{N}])`, 'uy'),
      apply: (m, ctx) =>
        m[1] && !signAllowed(ctx) ? null : (m[1] ? words.minus + ' ' : '') + unit(m[2], m[3], ctx.tag),
    },
    {
      name: 'number',
      re: new RegExp(String.raw`([-−]?)(${NUM})`, 'uy'),
      apply: (m, ctx) => {
        if (m[1] && !signAllowed(ctx)) return null;
        return (m[1] ? words.minus + ' ' : '') + number(m[2], ctx.tag);
      },
    },
    {
      name: 'abbreviation',
      re: new RegExp(String.raw`(?:${ABBREVIATION})(?![\p{L}])`, 'uy'),
      apply: (m, ctx) => {
        const spoken = words.abbreviations[m[0]];
        // A title before a name is the same word; the period that also ends a sentence stays.
        const endsSentence = m[0].endsWith('.') && /^\s*($|\n)/.test(ctx.text.slice(ctx.end));
        return spoken + (endsSentence ? '.' : '');
      },
    },
    { name: 'ampersand', re: /&/y, apply: () => words.and },
  ];
}
