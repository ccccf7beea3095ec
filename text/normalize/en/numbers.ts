/** English number words: cardinals (US without "and", GB with it), ordinals, decimals, years, digits. */

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES = ['', 'thousand', 'million', 'billion', 'trillion', 'quadrillion'];

const britishAnd = (tag: string): boolean => /^en-(GB|IE|AU|NZ|ZA|IN)\b/i.test(tag);

function belowHundred(n: number): string {
  if (n < 20) return ONES[n];
  return TENS[Math.floor(n / 10)] + (n % 10 ? '-' + ONES[n % 10] : '');
}

function belowThousand(n: number, and: boolean): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const parts: string[] = [];
  if (hundreds) parts.push(ONES[hundreds], 'hundred');
  if (rest) parts.push(...(hundreds && and ? ['and'] : []), belowHundred(rest));
  return parts.join(' ');
}

/** 1250 → "one thousand two hundred fifty" (en-US) or "… two hundred and fifty" (en-GB). Integers only. */
export function cardinalEn(n: number, tag = 'en-US'): string {
  if (!Number.isFinite(n)) return String(n);
  if (n < 0) return 'minus ' + cardinalEn(-n, tag);
  n = Math.trunc(n);
  if (n === 0) return 'zero';
  if (n < 1000) return belowThousand(n, britishAnd(tag));
  const and = britishAnd(tag);
  const groups: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 1000)) groups.push(rest % 1000);
  if (groups.length > SCALES.length) return digitsEn(String(n));
  const parts: string[] = [];
  for (let i = groups.length - 1; i >= 0; i--) {
    if (!groups[i]) continue;
    // GB: "one thousand and five" when the last group is below a hundred.
    if (i === 0 && and && groups[i] < 100 && parts.length) parts.push('and');
    parts.push(belowThousand(groups[i], and));
    if (SCALES[i]) parts.push(SCALES[i]);
  }
  return parts.join(' ');
}

const ORDINAL_WORDS: Record<string, string> = {
  one: 'first',
  two: 'second',
  three: 'third',
  five: 'fifth',
  eight: 'eighth',
  nine: 'ninth',
  twelve: 'twelfth',
};

/** Turns the last word of a cardinal into its ordinal: "twenty-one" → "twenty-first". */
export function ordinalWord(words: string): string {
  const match = /([a-z]+)$/.exec(words);
  if (!match) return words;
  const last = match[1];
  const ordinal = ORDINAL_WORDS[last] ?? (last.endsWith('y') ? last.slice(0, -1) + 'ieth' : last + 'th');
  return words.slice(0, match.index) + ordinal;
}

export function ordinalEn(n: number, tag = 'en-US'): string {
  return ordinalWord(cardinalEn(n, tag));
}

const DIGIT_NAMES = ONES.slice(0, 10);

/** Digit by digit: "0100" → "zero one zero zero". Non-digits are skipped. */
export function digitsEn(text: string): string {
  return Array.from(text.replace(/\D/g, ''), (d) => DIGIT_NAMES[Number(d)]).join(' ');
}

/** "3" + "14" → "three point one four"; an empty integer part reads "point five". */
export function decimalEn(integer: string, fraction: string, tag = 'en-US'): string {
  const whole = integer === '' ? '' : cardinalEn(Number(integer), tag) + ' ';
  return fraction ? `${whole}point ${digitsEn(fraction)}` : whole.trim();
}

/** A year as people say it: 1984 "nineteen eighty-four", 2005 "two thousand five", 2010 "twenty ten", 1900 "nineteen hundred". */
export function yearEn(year: number, tag = 'en-US'): string {
  if (year < 1000 || year > 9999 || year % 1000 === 0 || (year > 2000 && year < 2010)) return cardinalEn(year, tag);
  const high = Math.floor(year / 100);
  const low = year % 100;
  if (low === 0) return `${belowHundred(high)} hundred`;
  if (low < 10) return `${belowHundred(high)} oh ${ONES[low]}`;
  return `${belowHundred(high)} ${belowHundred(low)}`;
}

/** The decade or century plural: "nineteen ninety" → "nineteen nineties", "eighty" → "eighties". */
export function pluralNumberWords(words: string): string {
  const match = /([a-z]+)$/.exec(words);
  if (!match) return words;
  const last = match[1];
  const plural = last.endsWith('y') ? last.slice(0, -1) + 'ies' : last.endsWith('x') ? last + 'es' : last + 's';
  return words.slice(0, match.index) + plural;
}

/** A fraction: 3/4 "three quarters", 1/2 "one half", 2/3 "two thirds", 5/100 "five hundredths". */
export function fractionEn(numerator: number, denominator: number, tag = 'en-US'): string {
  const one = numerator === 1;
  let unit: string;
  if (denominator === 2) unit = one ? 'half' : 'halves';
  else if (denominator === 4) unit = one ? 'quarter' : 'quarters';
  else {
    unit = ordinalEn(denominator, tag).replace(/^one /, '');
    if (!one) unit += 's';
  }
  return `${cardinalEn(numerator, tag)} ${unit}`;
}
