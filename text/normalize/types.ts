/**
 * The shapes every language module fills in. A language is a set of number
 * readers (exported one by one so SSML <say-as> and pronunciation
 * dictionaries can call them) and an ordered list of rules the scanner tries
 * at each word boundary.
 */

/** What a rule sees besides its own match: the whole source and the match's span. */
export interface RuleContext {
  /**
   * The source text around the match (the scanner's window: at most
   * CONTEXT characters either side of what the rule may match); offsets
   * below index it. A rule never reads the whole text.
   */
  text: string;
  start: number;
  end: number;
  /** The full BCP 47 tag, e.g. en-GB: some readings depend on the region. */
  tag: string;
  /** Upper-case region subtag or '' ('US', 'GB', '419'). */
  region: string;
}

export interface Rule {
  name: string;
  /** Must carry the sticky flag (y): it is tried at one position at a time. */
  re: RegExp;
  /**
   * The longest text it matches (default REACH in scan.ts). The rule sees
   * only that much past where it is tried (and CONTEXT more either side), so
   * a text of n characters costs O(n) whatever it holds; a longer match is
   * not taken.
   */
  reach?: number;
  /** The spoken form, or null when the rule does not apply after all (the next rule is tried). */
  apply(match: RegExpExecArray, ctx: RuleContext): string | null;
}

/** A calendar date; month 1–12. Year may be absent ("March 3rd"). */
export interface DateParts {
  year?: number;
  month: number;
  day?: number;
}

export interface TimeParts {
  hour: number;
  minute: number;
  second?: number;
  /** 'am' | 'pm' when written with a 12-hour marker. */
  period?: 'am' | 'pm';
}

export interface Language {
  /** Primary language subtag: the registry key. */
  code: string;
  cardinal(n: number, tag: string): string;
  ordinal(n: number, tag: string): string;
  /** A decimal number written with its digits: int part and fraction digits as strings. */
  decimal(integer: string, fraction: string, tag: string): string;
  digits(text: string, tag: string): string;
  characters(text: string, tag: string): string;
  date(parts: DateParts, tag: string): string;
  /** Reads a written date ("2026-03-04", "3/4/2026", locale order) into parts, or null. */
  parseDate(text: string, tag: string): DateParts | null;
  time(parts: TimeParts, tag: string): string;
  telephone(text: string, tag: string): string;
  /** The rules in the order they are tried; they may depend on the region (es-419 writes 3.5, es-ES 3,5). */
  rulesFor(tag: string): readonly Rule[];
}
