/** French: traditional spelling ("vingt et un", "quatre-vingts", "deux cents"), "21 h 30", "1er", dates day first. */
import { digitReader, europeanReaders, europeanRules, type EuropeanWords } from './european';
import type { DateParts, Language, TimeParts } from './types';

const ONES = [
  'zéro',
  'un',
  'deux',
  'trois',
  'quatre',
  'cinq',
  'six',
  'sept',
  'huit',
  'neuf',
  'dix',
  'onze',
  'douze',
  'treize',
  'quatorze',
  'quinze',
  'seize',
  'dix-sept',
  'dix-huit',
  'dix-neuf',
];
const TENS = ['', '', 'vingt', 'trente', 'quarante', 'cinquante', 'soixante'];

function belowHundred(n: number, final: boolean): string {
  if (n < 20) return ONES[n];
  const tens = Math.floor(n / 10);
  const unit = n % 10;
  if (tens === 7 || tens === 9) {
    const base = tens === 7 ? 'soixante' : 'quatre-vingt';
    return tens === 7 && unit === 1 ? 'soixante et onze' : `${base}-${ONES[10 + unit]}`;
  }
  if (tens === 8) return unit ? `quatre-vingt-${ONES[unit]}` : final ? 'quatre-vingts' : 'quatre-vingt';
  return TENS[tens] + (unit === 1 ? ' et un' : unit ? '-' + ONES[unit] : '');
}

/** `final`: nothing follows but a noun, so "cents" and "quatre-vingts" take their s (not before "mille"). */
function belowThousand(n: number, final: boolean): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const parts: string[] = [];
  if (hundreds) parts.push(hundreds === 1 ? 'cent' : `${ONES[hundreds]} ${rest === 0 && final ? 'cents' : 'cent'}`);
  if (rest) parts.push(belowHundred(rest, final));
  return parts.join(' ');
}

const BIG: [number, string, string][] = [
  [1e12, 'billion', 'billions'],
  [1e9, 'milliard', 'milliards'],
  [1e6, 'million', 'millions'],
];

/** 1250 → "mille deux cent cinquante"; 80 → "quatre-vingts"; 2000000 → "deux millions". */
export function cardinalFr(n: number): string {
  if (n < 0) return 'moins ' + cardinalFr(-n);
  n = Math.trunc(n);
  if (n === 0) return 'zéro';
  const parts: string[] = [];
  let rest = n;
  for (const [size, one, many] of BIG) {
    const count = Math.floor(rest / size);
    if (count >= 1000) return String(n);
    if (count) parts.push(`${belowThousand(count, true)} ${count === 1 ? one : many}`);
    rest %= size;
  }
  const thousands = Math.floor(rest / 1000);
  if (thousands) parts.push(thousands === 1 ? 'mille' : `${belowThousand(thousands, false)} mille`);
  if (rest % 1000) parts.push(belowThousand(rest % 1000, true));
  return parts.join(' ');
}

/** Before a feminine noun "un" becomes "une" ("vingt et une heures"). */
const beforeNoun = (n: number, feminine: boolean): string =>
  feminine ? cardinalFr(n).replace(/\bun$/, 'une') : cardinalFr(n);

/** 1 → "premier", 2 → "deuxième", 5 → "cinquième", 9 → "neuvième", 21 → "vingt et unième". */
export function ordinalFr(n: number, feminine = false): string {
  if (n === 1) return feminine ? 'première' : 'premier';
  const cardinal = cardinalFr(n).replace(/(cent|vingt)s$/, '$1');
  if (cardinal.endsWith('cinq')) return cardinal + 'uième';
  if (cardinal.endsWith('neuf')) return cardinal.slice(0, -1) + 'vième';
  return cardinal.replace(/e$/, '') + 'ième';
}

export const MONTHS_FR = [
  'janvier',
  'février',
  'mars',
  'avril',
  'mai',
  'juin',
  'juillet',
  'août',
  'septembre',
  'octobre',
  'novembre',
  'décembre',
];

/** "trois avril deux mille vingt-six"; the first of the month is "premier". */
export function dateFr(parts: DateParts): string {
  const day = parts.day === undefined ? '' : parts.day === 1 ? 'premier' : cardinalFr(parts.day);
  return [day, MONTHS_FR[parts.month - 1], parts.year === undefined ? '' : cardinalFr(parts.year)]
    .filter(Boolean)
    .join(' ');
}

/** "vingt et une heures trente", "une heure", "midi" and "minuit" stay as written. */
export const timeFr = (parts: TimeParts): string =>
  `${beforeNoun(parts.hour, true)} ${parts.hour <= 1 ? 'heure' : 'heures'}${parts.minute ? ' ' + cardinalFr(parts.minute) : ''}`;

const digitsFr = digitReader(ONES);

const WORDS: EuropeanWords = {
  cardinal: cardinalFr,
  beforeNoun,
  decimalWord: 'virgule',
  minus: 'moins',
  and: 'et',
  to: 'à',
  months: MONTHS_FR,
  date: (parts) => dateFr(parts),
  time: timeFr,
  currencies: {
    '€': ['euro', 'euros', 'centime', 'centimes'],
    EUR: ['euro', 'euros', 'centime', 'centimes'],
    $: ['dollar', 'dollars', 'cent', 'cents'],
    '£': ['livre', 'livres', 'penny', 'pence', true],
    '¥': ['yen', 'yens', '', ''],
    CHF: ['franc suisse', 'francs suisses', 'centime', 'centimes'],
  },
  moneyAnd: 'et',
  scales: {
    millions: ['million', 'millions'],
    million: ['million', 'millions'],
    milliards: ['milliard', 'milliards'],
    milliard: ['milliard', 'milliards'],
    M: ['million', 'millions'],
    Md: ['milliard', 'milliards'],
    Mds: ['milliard', 'milliards'],
  },
  units: {
    '%': ['pour cent', 'pour cent'],
    '°C': ['degré Celsius', 'degrés Celsius'],
    '° C': ['degré Celsius', 'degrés Celsius'],
    '°F': ['degré Fahrenheit', 'degrés Fahrenheit'],
    '°': ['degré', 'degrés'],
    'km/h': ['kilomètre par heure', 'kilomètres par heure'],
    km: ['kilomètre', 'kilomètres'],
    m: ['mètre', 'mètres'],
    cm: ['centimètre', 'centimètres'],
    mm: ['millimètre', 'millimètres'],
    kg: ['kilogramme', 'kilogrammes'],
    g: ['gramme', 'grammes'],
    l: ['litre', 'litres'],
    ml: ['millilitre', 'millilitres'],
    min: ['minute', 'minutes', true],
    Mo: ['mégaoctet', 'mégaoctets'],
    Go: ['gigaoctet', 'gigaoctets'],
  },
  abbreviations: {
    'M.': 'Monsieur',
    MM: 'Messieurs',
    Mme: 'Madame',
    Mmes: 'Mesdames',
    Mlle: 'Mademoiselle',
    Dr: 'Docteur',
    'Dr.': 'Docteur',
    'etc.': 'et cetera',
    'p. ex.': 'par exemple',
    'c.-à-d.': "c'est-à-dire",
    'n°': 'numéro',
    'av.': 'avenue',
    bd: 'boulevard',
  },
  hourWords: ['h'],
  digits: digitsFr,
};

const ORDINAL = {
  name: 'ordinal',
  re: /(\d+)(er|re|ère|e|ème|eme|es|èmes)(?![\p{L}\p{N}])/uy,
  apply: (m: RegExpExecArray) => {
    const feminine = m[2] === 're' || m[2] === 'ère';
    const ordinal = ordinalFr(Number(m[1]), feminine);
    return m[2].endsWith('s') ? ordinal + 's' : ordinal;
  },
};
const RULES = europeanRules(WORDS, false, [ORDINAL]);

export const french: Language = {
  code: 'fr',
  cardinal: (n) => cardinalFr(n),
  ordinal: (n) => ordinalFr(n),
  ...europeanReaders({ cardinal: cardinalFr, digits: digitsFr, decimalWord: () => 'virgule', dateSeparator: '/' }),
  date: dateFr,
  time: timeFr,
  rulesFor: () => RULES,
};
