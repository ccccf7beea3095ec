/** German: numbers written as one word below a million, "eins" alone but "ein Euro", dates day first, 24-hour times. */
import { digitReader, europeanReaders, europeanRules, type EuropeanWords } from './european';
import { previousWord } from './shared';
import type { DateParts, Language, RuleContext, TimeParts } from './types';

const ONES = [
  'null',
  'eins',
  'zwei',
  'drei',
  'vier',
  'fünf',
  'sechs',
  'sieben',
  'acht',
  'neun',
  'zehn',
  'elf',
  'zwölf',
  'dreizehn',
  'vierzehn',
  'fünfzehn',
  'sechzehn',
  'siebzehn',
  'achtzehn',
  'neunzehn',
];
const TENS = ['', '', 'zwanzig', 'dreißig', 'vierzig', 'fünfzig', 'sechzig', 'siebzig', 'achtzig', 'neunzig'];
const BIG: [number, string, string][] = [
  [1e12, 'Billion', 'Billionen'],
  [1e9, 'Milliarde', 'Milliarden'],
  [1e6, 'Million', 'Millionen'],
];

/** 1–999 as the first part of a compound: 1 is "ein" ("einhundert", "eintausend"). */
function compound(n: number): string {
  if (n === 0) return '';
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  let out = hundreds ? (hundreds === 1 ? 'ein' : ONES[hundreds]) + 'hundert' : '';
  if (rest === 1) out += 'ein';
  else if (rest < 20 && rest) out += ONES[rest];
  else if (rest)
    out += (rest % 10 ? (rest % 10 === 1 ? 'ein' : ONES[rest % 10]) + 'und' : '') + TENS[Math.floor(rest / 10)];
  return out;
}

/** 1250 → "eintausendzweihundertfünfzig"; 2000000 → "zwei Millionen"; 1 → "eins". */
export function cardinalDe(n: number): string {
  if (n < 0) return 'minus ' + cardinalDe(-n);
  n = Math.trunc(n);
  if (n === 0) return 'null';
  const parts: string[] = [];
  let rest = n;
  for (const [size, one, many] of BIG) {
    const count = Math.floor(rest / size);
    if (count >= 1000) return String(n);
    if (count) parts.push(count === 1 ? `eine ${one}` : `${cardinalDe(count)} ${many}`);
    rest %= size;
  }
  if (rest) {
    const thousands = Math.floor(rest / 1000);
    let small = (thousands ? compound(thousands) + 'tausend' : '') + compound(rest % 1000);
    if (rest % 100 === 1) small += 's';
    parts.push(small);
  }
  return parts.join(' ');
}

/** Before a noun "eins" becomes "ein", before a feminine one "eine" ("eine Minute", "eine Milliarde"). */
const beforeNoun = (n: number, feminine = false): string => cardinalDe(n).replace(/eins$/, feminine ? 'eine' : 'ein');

const SMALL_ORDINALS: Record<number, string> = { 1: 'erste', 3: 'dritte', 7: 'siebte', 8: 'achte' };

/** 3 → "dritte", 21 → "einundzwanzigste", 101 → "einhunderterste". The bare form; endings are the caller's. */
export function ordinalDe(n: number): string {
  const last = n % 100;
  if (last > 0 && last < 20) {
    const head = n - last ? cardinalDe(n - last) : '';
    return head + (SMALL_ORDINALS[last] ?? ONES[last] + 'te');
  }
  return cardinalDe(n) + 'ste';
}

export const MONTHS_DE = [
  'januar',
  'februar',
  'märz',
  'april',
  'mai',
  'juni',
  'juli',
  'august',
  'september',
  'oktober',
  'november',
  'dezember',
];

const capital = (word: string): string => word[0].toUpperCase() + word.slice(1);

/** Years 1100–1999 in hundreds ("neunzehnhundertvierundachtzig"), others as cardinals. */
export const yearDe = (year: number): string =>
  year >= 1100 && year < 2000
    ? compound(Math.floor(year / 100)) + 'hundert' + compound(year % 100).replace(/ein$/, 'eins')
    : cardinalDe(year);

/** "am dritten März zweitausendsechsundzwanzig"; without a preposition "dritter März …". */
export function dateDe(parts: DateParts, ctx: RuleContext | null): string {
  const before = ctx ? previousWord(ctx)?.word.toLowerCase() : undefined;
  const dative = before !== undefined && ['am', 'vom', 'zum', 'dem', 'ab', 'bis', 'seit'].includes(before);
  const accusative = before === 'den';
  const day =
    parts.day === undefined
      ? ''
      : ordinalDe(parts.day) +
        (dative || accusative ? 'n' : ctx && previousWord(ctx)?.word.toLowerCase() === 'der' ? '' : 'r');
  return [day, capital(MONTHS_DE[parts.month - 1]), parts.year === undefined ? '' : yearDe(parts.year)]
    .filter(Boolean)
    .join(' ');
}

/** "zehn Uhr dreißig", "vierzehn Uhr fünf", "ein Uhr". */
export const timeDe = (parts: TimeParts): string =>
  `${beforeNoun(parts.hour, false)} Uhr${parts.minute ? ' ' + cardinalDe(parts.minute) : ''}`;

const digitsDe = digitReader(ONES);

const WORDS: EuropeanWords = {
  cardinal: cardinalDe,
  beforeNoun,
  decimalWord: 'Komma',
  minus: 'minus',
  and: 'und',
  to: 'bis',
  months: MONTHS_DE,
  date: dateDe,
  time: timeDe,
  currencies: {
    '€': ['Euro', 'Euro', 'Cent', 'Cent'],
    EUR: ['Euro', 'Euro', 'Cent', 'Cent'],
    $: ['Dollar', 'Dollar', 'Cent', 'Cent'],
    USD: ['US-Dollar', 'US-Dollar', 'Cent', 'Cent'],
    '£': ['Pfund', 'Pfund', 'Penny', 'Pence'],
    '¥': ['Yen', 'Yen', '', ''],
    CHF: ['Franken', 'Franken', 'Rappen', 'Rappen'],
  },
  moneyAnd: 'und',
  scales: {
    'Mio.': ['Million', 'Millionen', true],
    Mio: ['Million', 'Millionen', true],
    'Mrd.': ['Milliarde', 'Milliarden', true],
    Mrd: ['Milliarde', 'Milliarden', true],
    Millionen: ['Million', 'Millionen', true],
    Milliarden: ['Milliarde', 'Milliarden', true],
  },
  units: {
    '%': ['Prozent', 'Prozent'],
    '°C': ['Grad Celsius', 'Grad Celsius'],
    '° C': ['Grad Celsius', 'Grad Celsius'],
    '°F': ['Grad Fahrenheit', 'Grad Fahrenheit'],
    '°': ['Grad', 'Grad'],
    'km/h': ['Kilometer pro Stunde', 'Kilometer pro Stunde'],
    km: ['Kilometer', 'Kilometer'],
    m: ['Meter', 'Meter'],
    cm: ['Zentimeter', 'Zentimeter'],
    mm: ['Millimeter', 'Millimeter'],
    kg: ['Kilogramm', 'Kilogramm'],
    g: ['Gramm', 'Gramm'],
    l: ['Liter', 'Liter'],
    ml: ['Milliliter', 'Milliliter'],
    min: ['Minute', 'Minuten', true],
    Std: ['Stunde', 'Stunden', true],
    MB: ['Megabyte', 'Megabyte'],
    GB: ['Gigabyte', 'Gigabyte'],
  },
  abbreviations: {
    'z. B.': 'zum Beispiel',
    'z.B.': 'zum Beispiel',
    'd. h.': 'das heißt',
    'd.h.': 'das heißt',
    'usw.': 'und so weiter',
    'bzw.': 'beziehungsweise',
    'ca.': 'circa',
    'evtl.': 'eventuell',
    'ggf.': 'gegebenenfalls',
    'inkl.': 'inklusive',
    'Nr.': 'Nummer',
    'Dr.': 'Doktor',
    'Prof.': 'Professor',
    'Str.': 'Straße',
    'u. a.': 'unter anderem',
    'u.a.': 'unter anderem',
    'Hr.': 'Herr',
    'Fr.': 'Frau',
  },
  hourWords: ['Uhr'],
  digits: digitsDe,
};

const RULES = europeanRules(WORDS, false);

export const german: Language = {
  code: 'de',
  cardinal: (n) => cardinalDe(n),
  ordinal: (n) => ordinalDe(n),
  ...europeanReaders({
    cardinal: cardinalDe,
    digits: digitsDe,
    decimalWord: () => 'Komma',
    dateSeparator: String.raw`\.\s?`,
  }),
  date: (parts) => dateDe(parts, null),
  time: (parts) => timeDe(parts),
  rulesFor: () => RULES,
};
