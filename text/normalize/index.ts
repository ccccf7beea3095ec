/**
 * Text normalization: written forms ("$1,250.50", "3/4/2026", "10:30am",
 * "Dr. Smith", "Henry VIII") become the words a person would say, in the
 * request's language, before any engine sees the text. One module for every
 * engine, pure (no I/O), and every spoken word keeps the span of the source
 * it came from, so word timestamps point into the text the client sent.
 *
 * Languages live in a registry keyed by primary subtag (en, de, fr, es); a
 * language it does not know passes through unchanged (applied: false).
 *
 * The per-category readers are exported for SSML <say-as interpret-as=…>
 * and for pronunciation dictionaries, which reuse the same pieces.
 */
import { english } from './en';
import { german } from './de';
import { french } from './fr';
import { spanish } from './es';
import { run, type SpokenWord } from './scan';
import type { DateParts, Language, TimeParts } from './types';

export type { SpokenWord } from './scan';
export type { DateParts, Language, TimeParts } from './types';

export interface NormalizeOptions {
  /** BCP 47 tag: en-US, en-GB, de-DE, fr, es-419 … */
  language: string;
}

export interface Normalized {
  /** The text with written forms turned into words; the rest (punctuation included) as written. */
  spoken: string;
  /** Each spoken word with the source span (UTF-16, end exclusive) it came from. */
  words: SpokenWord[];
  /** False when the language is not known: spoken is the input itself. */
  applied: boolean;
}

const LANGUAGES = new Map<string, Language>(
  [english, german, french, spanish].map((language) => [language.code, language]),
);

/** The language module for a BCP 47 tag (by primary subtag), or undefined. */
export function languageFor(tag: string): Language | undefined {
  return LANGUAGES.get(tag.split(/[-_]/)[0].toLowerCase());
}

/** The languages normalizeText reads (primary subtags). */
export const normalizedLanguages = (): string[] => [...LANGUAGES.keys()];

export function normalizeText(text: string, options: NormalizeOptions): Normalized {
  const language = languageFor(options.language);
  const { spoken, words } = run(text, language?.rulesFor(options.language) ?? [], options.language);
  return language ? { spoken, words, applied: true } : { spoken: text, words, applied: false };
}

/** The work normalizeText does on `text`: characters shown to the rules plus those stepped over (tests check it is linear). */
export const normalizationSteps = (text: string, options: NormalizeOptions): number =>
  run(text, languageFor(options.language)?.rulesFor(options.language) ?? [], options.language).steps;

function need(tag: string): Language {
  const language = languageFor(tag);
  if (!language) throw new RangeError(`No text normalization for language ${tag}`);
  return language;
}

/** say-as interpret-as="cardinal": 1250 → "one thousand two hundred fifty". */
export const cardinal = (n: number, tag: string): string => need(tag).cardinal(n, tag);
/** say-as interpret-as="ordinal": 21 → "twenty-first". */
export const ordinal = (n: number, tag: string): string => need(tag).ordinal(n, tag);
/** A decimal from its written parts: ("3", "14") → "three point one four". */
export const decimal = (integer: string, fraction: string, tag: string): string =>
  need(tag).decimal(integer, fraction, tag);
/** say-as interpret-as="digits": "0100" → "zero one zero zero". */
export const digits = (text: string, tag: string): string => need(tag).digits(text, tag);
/** say-as interpret-as="characters": "FBI" → "F B I". */
export const characters = (text: string, tag: string): string => need(tag).characters(text, tag);
/** say-as interpret-as="telephone": "+1 555 0100" → "plus one, five five five, zero one zero zero". */
export const telephone = (text: string, tag: string): string => need(tag).telephone(text, tag);

/** say-as interpret-as="date": a written date (ISO, numeric in the locale's order, or with a month name), or parts. Null if it is not a date. */
export function date(value: string | DateParts, tag: string): string | null {
  const language = need(tag);
  const parts = typeof value === 'string' ? language.parseDate(value, tag) : value;
  return parts ? language.date(parts, tag) : null;
}

/** say-as interpret-as="time": "10:30am", "14:05", or parts. Null if it is not a time. */
export function time(value: string | TimeParts, tag: string): string | null {
  const language = need(tag);
  if (typeof value !== 'string') return language.time(value, tag);
  const m = /^(\d{1,2})(?:[:.h]\s?(\d{2}))?(?::(\d{2}))?\s*(?:([aApP])\.?\s?[mM]\.?)?$/.exec(
    value
      .trim()
      .replace(/\s?(?:h|Uhr)\s?/i, ':')
      .replace(/:$/, ''),
  );
  if (!m || (m[2] === undefined && !m[4] && !/h|uhr/i.test(value))) return null;
  const parts: TimeParts = {
    hour: Number(m[1]),
    minute: m[2] === undefined ? 0 : Number(m[2]),
    second: m[3] === undefined ? undefined : Number(m[3]),
    period: m[4] ? (m[4].toLowerCase() === 'a' ? 'am' : 'pm') : undefined,
  };
  if (
    parts.minute > 59 ||
    (parts.second ?? 0) > 59 ||
    (parts.period ? parts.hour < 1 || parts.hour > 12 : parts.hour > 23)
  )
    return null;
  return language.time(parts, tag);
}
