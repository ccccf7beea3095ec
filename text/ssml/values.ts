/**
 * SSML attribute values: breaks, prosody, emphasis, and say-as readings, with
 * the durations and ranges docs/text.md ("SSML") documents.
 */
import { cardinal, characters, date, digits, ordinal, telephone, time, type DateParts } from '../normalize';

export interface Prosody {
  /** Speaking rate multiplier, 0.5–2.0 (1 = the voice's own). */
  rate: number;
  /** Pitch shift in semitones, −12..+12. */
  pitch: number;
  /** Linear gain, 0–2 (0 = silent, 1 = unchanged, 2 ≈ +6 dB). */
  volume: number;
}

export const NEUTRAL: Prosody = { rate: 1, pitch: 0, volume: 1 };
export const RANGE = { rate: [0.5, 2], pitch: [-12, 12], volume: [0, 2] } as const;

/*
 * The tables below are looked up by attribute values the client wrote, so
 * they are Maps: a plain object would also "find" __proto__, constructor or
 * toString (a strength of "__proto__" made the running break total a string
 * and lifted its cap; a rate of "constructor" became NaN).
 */

/** <break strength>: milliseconds. A <break/> without attributes is "medium". */
export const BREAK_STRENGTH: ReadonlyMap<string, number> = new Map([
  ['none', 0],
  ['x-weak', 100],
  ['weak', 250],
  ['medium', 400],
  ['strong', 700],
  ['x-strong', 1200],
]);
/** Pauses at the end (and start) of a sentence <s> and a paragraph <p>. */
export const SENTENCE_PAUSE = 300;
export const PARAGRAPH_PAUSE = 600;

/** Named values set the value (absolute); numbers, percentages, semitones and decibels change the enclosing one. */
const table = <T>(entries: Record<string, T>): ReadonlyMap<string, T> => new Map(Object.entries(entries));
const RATES = table({ 'x-slow': 0.5, slow: 0.75, medium: 1, default: 1, fast: 1.25, 'x-fast': 1.75 });
const PITCHES = table({ 'x-low': -6, low: -3, medium: 0, default: 0, high: 3, 'x-high': 6 });
const VOLUMES = table({ silent: 0, 'x-soft': 0.25, soft: 0.5, medium: 1, default: 1, loud: 1.41, 'x-loud': 2 });
/** <emphasis level>: rate ×, pitch + semitones, volume ×. */
export const EMPHASIS: ReadonlyMap<string, Prosody> = table({
  strong: { rate: 0.85, pitch: 2, volume: 1.41 },
  moderate: { rate: 0.92, pitch: 1, volume: 1.19 },
  none: { rate: 1, pitch: 0, volume: 1 },
  reduced: { rate: 1.05, pitch: -1, volume: 0.71 },
});

/** Result of reading a value: the number, or an error message for the attribute. `ignored`: a valid value we cannot apply. */
type Read = { value: number; ignored?: string } | { error: string };

export function breakTime(value: string): Read {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s)\s*$/.exec(value);
  if (!m) return { error: `time="${value}" is not a duration (e.g. 500ms, 1s, 1.5s)` };
  return { value: Math.round(Number(m[1]) * (m[2] === 's' ? 1000 : 1)) };
}

export function rate(value: string, enclosing: number): Read {
  const v = value.trim();
  const named = RATES.get(v);
  if (named !== undefined) return { value: named };
  const percent = /^([+-]?)(\d+(?:\.\d+)?)%$/.exec(v);
  if (percent) {
    const p = Number(percent[2]) * (percent[1] === '-' ? -1 : 1);
    const factor = percent[1] ? 1 + p / 100 : p / 100;
    return factor > 0
      ? { value: enclosing * factor }
      : { error: `rate="${value}" would stop speech (must be above 0)` };
  }
  if (/^\d+(?:\.\d+)?$/.test(v) && Number(v) > 0) return { value: enclosing * Number(v) };
  return {
    error: `rate="${value}" is not a rate (x-slow, slow, medium, fast, x-fast, a percentage such as 80% or +10%, or a multiplier such as 1.2)`,
  };
}

export function pitch(value: string, enclosing: number): Read {
  const v = value.trim();
  const named = PITCHES.get(v);
  if (named !== undefined) return { value: named };
  const st = /^([+-]?\d+(?:\.\d+)?)st$/.exec(v);
  if (st) return { value: enclosing + Number(st[1]) };
  const percent = /^([+-]?\d+(?:\.\d+)?)%$/.exec(v);
  if (percent && Number(percent[1]) > -100) return { value: enclosing + 12 * Math.log2(1 + Number(percent[1]) / 100) };
  if (/^[+-]?\d+(?:\.\d+)?Hz$/.test(v))
    return {
      value: enclosing,
      ignored: `pitch="${value}" in hertz depends on the voice and is ignored (use semitones, e.g. +2st)`,
    };
  return {
    error: `pitch="${value}" is not a pitch (x-low, low, medium, high, x-high, semitones such as +2st, or a percentage such as -10%)`,
  };
}

export function volume(value: string, enclosing: number): Read {
  const v = value.trim();
  const named = VOLUMES.get(v);
  if (named !== undefined) return { value: named };
  const db = /^([+-]?\d+(?:\.\d+)?)dB$/.exec(v);
  if (db) return { value: enclosing * 10 ** (Number(db[1]) / 20) };
  return {
    error: `volume="${value}" is not a volume (silent, x-soft, soft, medium, loud, x-loud, or decibels such as +3dB)`,
  };
}

/** `value` clamped to `[min, max]` and rounded to 3 decimals; `clamped` when it was outside. */
export function clamp(value: number, [min, max]: readonly [number, number]): { value: number; clamped: boolean } {
  const bounded = Math.min(max, Math.max(min, value));
  return { value: Math.round(bounded * 1000) / 1000, clamped: bounded !== value };
}

const INTEGER = /^[-−]?(?:\d+|\d{1,3}(?:[,.\s\u00a0\u202f'’]\d{3})+)$/;

function readInteger(text: string, language: string, read: (n: number, tag: string) => string): string | null {
  if (!INTEGER.test(text)) return null;
  const negative = /^[-−]/.test(text);
  const figures = text.replace(/\D/g, '');
  if (figures.length > 15) return negative ? null : digits(figures, language);
  return read(negative ? -Number(figures) : Number(figures), language);
}

const DATE_FORMATS = ['mdy', 'dmy', 'ymd', 'ydm', 'md', 'dm', 'ym', 'my'];

function formattedDate(text: string, format: string, language: string): string | null {
  const parts = text.split(/[-/.\s]+/).filter(Boolean);
  if (parts.length !== format.length || !parts.every((p) => /^\d+$/.test(p))) return null;
  const get = (letter: string): number | undefined =>
    format.includes(letter) ? Number(parts[format.indexOf(letter)]) : undefined;
  const value: DateParts = { month: get('m') ?? 0, day: get('d'), year: get('y') };
  if (value.month < 1 || value.month > 12 || (value.day !== undefined && (value.day < 1 || value.day > 31)))
    return null;
  return date(value, language);
}

export const SAY_AS = [
  'characters',
  'spell-out',
  'verbatim',
  'cardinal',
  'number',
  'ordinal',
  'digits',
  'date',
  'time',
  'telephone',
];

/**
 * The reading of a <say-as> content, or null when it does not fit the
 * interpretation (then it is read as ordinary text, with a warning). Throws
 * RangeError for a language without a text module (the caller warns too).
 */
export function sayAs(interpretAs: string, format: string | undefined, text: string, language: string): string | null {
  switch (interpretAs) {
    case 'characters':
    case 'spell-out':
    case 'verbatim':
      return characters(text, language);
    case 'cardinal':
    case 'number':
      return readInteger(text, language, cardinal);
    case 'ordinal':
      return readInteger(text.replace(/(?:st|nd|rd|th|\.|º|ª|er|re|e|ème|o|a)$/i, ''), language, ordinal);
    case 'digits':
      return /^[\d\s-]+$/.test(text) ? digits(text.replace(/\D/g, ''), language) : null;
    case 'telephone':
      return /\d/.test(text) && /^[\d\s()+.\-/]+$/.test(text) ? telephone(text, language) : null;
    case 'date':
      if (format !== undefined && DATE_FORMATS.includes(format)) return formattedDate(text, format, language);
      return date(text, language);
    case 'time':
      return time(text, language);
    default:
      return null;
  }
}

export const isDateFormat = (format: string): boolean => DATE_FORMATS.includes(format);
