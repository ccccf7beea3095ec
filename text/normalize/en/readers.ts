/** English readings of dates, times, telephone numbers, addresses and spelled strings. */
import { MONTH_BY_NAME, MONTHS, LETTER_SYMBOLS } from './lexicon';
import { cardinalEn, digitsEn, ordinalEn, yearEn } from './numbers';
import type { DateParts, TimeParts } from '../types';

const monthFirst = (tag: string): boolean => /^en(-(US|PH|CA))?$/i.test(tag) || !/^en-/i.test(tag);

/**
 * US order "March fourth, twenty twenty-six"; elsewhere "the fourth of March,
 * twenty twenty-six". `order` overrides the locale (a date written "3 March"
 * reads day first everywhere).
 */
export function dateEn(parts: DateParts, tag = 'en-US', order?: 'month-first' | 'day-first'): string {
  const month = MONTHS[parts.month - 1];
  const year = parts.year === undefined ? '' : yearEn(parts.year, tag);
  if (parts.day === undefined) return year ? `${month} ${year}` : month;
  const dayFirst = order ? order === 'day-first' : !monthFirst(tag);
  const head = dayFirst ? `the ${ordinalEn(parts.day, tag)} of ${month}` : `${month} ${ordinalEn(parts.day, tag)}`;
  return year ? `${head}, ${year}` : head;
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
export const validDate = (month: number, day: number): boolean =>
  month >= 1 && month <= 12 && day >= 1 && day <= DAYS_IN_MONTH[month - 1];

/** Two-digit years: 00–49 → 2000s, 50–99 → 1900s. */
export const fullYear = (year: string): number =>
  year.length === 2 ? (Number(year) < 50 ? 2000 : 1900) + Number(year) : Number(year);

/**
 * A numeric date's parts in the locale's order (month first in en-US, day
 * first elsewhere and in every other language); if that order gives no valid
 * date but the other does ("25/12/2026" in en-US), the other.
 */
export function numericDate(a: number, b: number, year: number | undefined, firstIsMonth: boolean): DateParts | null {
  const [month, day] = firstIsMonth ? [a, b] : [b, a];
  if (validDate(month, day)) return { year, month, day };
  if (validDate(day, month)) return { year, month: day, day: month };
  return null;
}

/** ISO 2026-03-04, numeric 3/4/2026 (locale order), "March 3rd, 2026", "3 March 2026". */
export function parseDateEn(text: string, tag = 'en-US'): DateParts | null {
  const trimmed = text.trim();
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(trimmed);
  if (m)
    return validDate(Number(m[2]), Number(m[3]))
      ? { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }
      : null;
  m = /^(\d{1,2})([/.-])(\d{1,2})(?:\2(\d{4}|\d{2}))?$/.exec(trimmed);
  if (m) return numericDate(Number(m[1]), Number(m[3]), m[4] ? fullYear(m[4]) : undefined, monthFirst(tag));
  m = /^([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?$/.exec(trimmed);
  if (m && MONTH_BY_NAME[m[1].toLowerCase()] && validDate(MONTH_BY_NAME[m[1].toLowerCase()], Number(m[2]))) {
    return { year: m[3] ? Number(m[3]) : undefined, month: MONTH_BY_NAME[m[1].toLowerCase()], day: Number(m[2]) };
  }
  m = /^(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([A-Za-z]+)\.?(?:,?\s+(\d{4}))?$/.exec(trimmed);
  if (m && MONTH_BY_NAME[m[2].toLowerCase()] && validDate(MONTH_BY_NAME[m[2].toLowerCase()], Number(m[1]))) {
    return { year: m[3] ? Number(m[3]) : undefined, month: MONTH_BY_NAME[m[2].toLowerCase()], day: Number(m[1]) };
  }
  return null;
}

const minutes = (minute: number, tag: string): string =>
  minute < 10 ? `oh ${cardinalEn(minute, tag)}` : cardinalEn(minute, tag);

/**
 * With a.m./p.m.: "ten thirty a m", "ten a m", "twelve p m" → "noon", "twelve a m" → "midnight".
 * 24-hour clock, read as written: "fourteen oh five", "ten o'clock", "fourteen hundred", "zero thirty".
 */
export function timeEn(parts: TimeParts, tag = 'en-US'): string {
  const { hour, minute, second, period } = parts;
  let spoken: string;
  if (period) {
    if (hour === 12 && minute === 0 && !second) return period === 'pm' ? 'noon' : 'midnight';
    spoken = cardinalEn(hour, tag) + (minute ? ' ' + minutes(minute, tag) : '') + (period === 'am' ? ' a m' : ' p m');
  } else if (minute === 0 && !second) {
    spoken = hour >= 1 && hour <= 12 ? `${cardinalEn(hour, tag)} o'clock` : `${cardinalEn(hour, tag)} hundred`;
  } else {
    spoken = `${cardinalEn(hour, tag)} ${minute === 0 ? 'hundred' : minutes(minute, tag)}`;
  }
  if (second) spoken += ` and ${cardinalEn(second, tag)} ${second === 1 ? 'second' : 'seconds'}`;
  return spoken;
}

/** "+1 555 0100" → "plus one, five five five, zero one zero zero": digit by digit, a pause between groups. */
export function telephoneEn(text: string): string {
  const plus = text.trim().startsWith('+') ? 'plus ' : '';
  const extension = /\s*(?:ext\.?|x)\s*(\d+)\s*$/i.exec(text);
  const main = extension ? text.slice(0, extension.index) : text;
  const spoken = (main.match(/\d+/g) ?? []).map((group) => digitsEn(group)).join(', ');
  return plus + spoken + (extension ? `, extension ${digitsEn(extension[1])}` : '');
}

/** Letter by letter: "FBI" → "F B I", "a1" → "A one", symbols by name. */
export function charactersEn(text: string): string {
  const out: string[] = [];
  for (const char of text) {
    if (/\p{L}/u.test(char)) out.push(char.toUpperCase());
    else if (/\d/.test(char)) out.push(digitsEn(char));
    else if (LETTER_SYMBOLS[char] && char !== ' ') out.push(LETTER_SYMBOLS[char]);
  }
  return out.join(' ');
}

/** A host, path or mailbox read piece by piece: "openvox.dev/docs" → "openvox dot dev slash docs". */
export function addressEn(text: string, tag = 'en-US'): string {
  const out: string[] = [];
  for (const [token] of text.matchAll(/\p{L}+|\d+|[^\p{L}\d]/gu)) {
    if (/^\p{L}/u.test(token))
      out.push(token.length > 1 && token === token.toUpperCase() ? charactersEn(token) : token.toLowerCase());
    else if (/^\d/.test(token))
      out.push(token.length <= 3 && !token.startsWith('0') ? cardinalEn(Number(token), tag) : digitsEn(token));
    else if (LETTER_SYMBOLS[token]) out.push(LETTER_SYMBOLS[token]);
  }
  return out.join(' ');
}
