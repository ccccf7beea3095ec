/** Spanish: "veintiuno"/"veintiún euros", "cien"/"ciento uno", decimal comma in Spain and point in Mexico and es-419, "3 de marzo de 2026". */
import { decimalPoint, digitReader, europeanReaders, europeanRules, type EuropeanWords } from './european';
import type { DateParts, Language, Rule, TimeParts } from './types';

const ONES = [
  'cero',
  'uno',
  'dos',
  'tres',
  'cuatro',
  'cinco',
  'seis',
  'siete',
  'ocho',
  'nueve',
  'diez',
  'once',
  'doce',
  'trece',
  'catorce',
  'quince',
  'dieciséis',
  'diecisiete',
  'dieciocho',
  'diecinueve',
];
const TWENTIES = [
  'veinte',
  'veintiuno',
  'veintidós',
  'veintitrés',
  'veinticuatro',
  'veinticinco',
  'veintiséis',
  'veintisiete',
  'veintiocho',
  'veintinueve',
];
const TENS = ['', '', '', 'treinta', 'cuarenta', 'cincuenta', 'sesenta', 'setenta', 'ochenta', 'noventa'];
const HUNDREDS = [
  '',
  'ciento',
  'doscientos',
  'trescientos',
  'cuatrocientos',
  'quinientos',
  'seiscientos',
  'setecientos',
  'ochocientos',
  'novecientos',
];

function belowThousand(n: number): string {
  if (n === 100) return 'cien';
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const parts: string[] = hundreds ? [HUNDREDS[hundreds]] : [];
  if (rest >= 30) parts.push(TENS[Math.floor(rest / 10)] + (rest % 10 ? ' y ' + ONES[rest % 10] : ''));
  else if (rest >= 20) parts.push(TWENTIES[rest - 20]);
  else if (rest) parts.push(ONES[rest]);
  return parts.join(' ');
}

/** "uno" → "un" before a noun or a scale word: "veintiún mil", "un millón". */
const apocope = (words: string): string => words.replace(/veintiuno$/, 'veintiún').replace(/uno$/, 'un');

/** 1250 → "mil doscientos cincuenta"; 21000 → "veintiún mil"; 1e9 → "mil millones". */
export function cardinalEs(n: number): string {
  if (n < 0) return 'menos ' + cardinalEs(-n);
  n = Math.trunc(n);
  if (n === 0) return 'cero';
  if (n >= 1e15) return String(n);
  const parts: string[] = [];
  const millions = Math.floor(n / 1e6);
  if (millions >= 1e6) {
    const billions = Math.floor(millions / 1e6);
    parts.push(billions === 1 ? 'un billón' : `${apocope(cardinalEs(billions))} billones`);
  }
  const lowMillions = millions % 1e6;
  if (lowMillions) parts.push(lowMillions === 1 ? 'un millón' : `${apocope(cardinalEs(lowMillions))} millones`);
  const thousands = Math.floor((n % 1e6) / 1000);
  if (thousands) parts.push(thousands === 1 ? 'mil' : `${apocope(belowThousand(thousands))} mil`);
  if (n % 1000) parts.push(belowThousand(n % 1000));
  return parts.join(' ');
}

/** Before a masculine noun "un"/"veintiún", before a feminine one "una"/"veintiuna". */
const beforeNoun = (n: number, feminine: boolean): string =>
  feminine ? cardinalEs(n).replace(/uno$/, 'una') : apocope(cardinalEs(n));

const ORD_UNITS = ['', 'primero', 'segundo', 'tercero', 'cuarto', 'quinto', 'sexto', 'séptimo', 'octavo', 'noveno'];
const ORD_TENS = [
  '',
  'décimo',
  'vigésimo',
  'trigésimo',
  'cuadragésimo',
  'quincuagésimo',
  'sexagésimo',
  'septuagésimo',
  'octogésimo',
  'nonagésimo',
];
const ORD_HUNDREDS = [
  '',
  'centésimo',
  'ducentésimo',
  'tricentésimo',
  'cuadringentésimo',
  'quingentésimo',
  'sexcentésimo',
  'septingentésimo',
  'octingentésimo',
  'noningentésimo',
];
const TEENS: Record<number, string> = {
  11: 'undécimo',
  12: 'duodécimo',
  13: 'decimotercero',
  14: 'decimocuarto',
  15: 'decimoquinto',
  16: 'decimosexto',
  17: 'decimoséptimo',
  18: 'decimoctavo',
  19: 'decimonoveno',
};

/** 1 → "primero", 21 → "vigésimo primero", 1000 → "milésimo"; from 1001 on, the cardinal. */
export function ordinalEs(n: number): string {
  if (n === 1000) return 'milésimo';
  if (n < 1 || n > 999) return cardinalEs(n);
  const rest = n % 100;
  const parts = [ORD_HUNDREDS[Math.floor(n / 100)]];
  if (TEENS[rest]) parts.push(TEENS[rest]);
  else parts.push(ORD_TENS[Math.floor(rest / 10)], ORD_UNITS[rest % 10]);
  return parts.filter(Boolean).join(' ');
}

export const MONTHS_ES = [
  'enero',
  'febrero',
  'marzo',
  'abril',
  'mayo',
  'junio',
  'julio',
  'agosto',
  'septiembre',
  'octubre',
  'noviembre',
  'diciembre',
];

/** "tres de marzo de dos mil veintiséis"; the first is "uno" in Spain, "primero" in the Americas. */
export function dateEs(parts: DateParts, tag: string): string {
  const first = /^es(-ES)?$/i.test(tag) ? 'uno' : 'primero';
  const day = parts.day === undefined ? '' : parts.day === 1 ? first : cardinalEs(parts.day);
  return [day, MONTHS_ES[parts.month - 1], parts.year === undefined ? '' : cardinalEs(parts.year)]
    .filter(Boolean)
    .join(' de ');
}

/** "diez y treinta", "una y cuarto" is not used: "una y quince"; on the hour "diez en punto". */
export const timeEs = (parts: TimeParts): string =>
  `${beforeNoun(parts.hour, true)} ${parts.minute ? 'y ' + cardinalEs(parts.minute) : 'en punto'}`;

const digitsEs = digitReader(ONES);

const words = (point: boolean): EuropeanWords => ({
  cardinal: cardinalEs,
  beforeNoun,
  decimalWord: point ? 'punto' : 'coma',
  minus: 'menos',
  and: 'y',
  to: 'a',
  months: MONTHS_ES,
  date: (parts, _ctx, tag) => dateEs(parts, tag),
  time: timeEs,
  currencies: {
    '€': ['euro', 'euros', 'céntimo', 'céntimos'],
    EUR: ['euro', 'euros', 'céntimo', 'céntimos'],
    $: ['dólar', 'dólares', 'centavo', 'centavos'],
    USD: ['dólar', 'dólares', 'centavo', 'centavos'],
    MXN: ['peso', 'pesos', 'centavo', 'centavos'],
    '£': ['libra', 'libras', 'penique', 'peniques', true],
    '¥': ['yen', 'yenes', '', ''],
  },
  moneyAnd: 'con',
  scales: {
    millones: ['millón', 'millones'],
    millón: ['millón', 'millones'],
    M: ['millón', 'millones'],
    mill: ['millón', 'millones'],
  },
  units: {
    '%': ['por ciento', 'por ciento'],
    '°C': ['grado Celsius', 'grados Celsius'],
    '° C': ['grado Celsius', 'grados Celsius'],
    '°F': ['grado Fahrenheit', 'grados Fahrenheit'],
    '°': ['grado', 'grados'],
    'km/h': ['kilómetro por hora', 'kilómetros por hora'],
    km: ['kilómetro', 'kilómetros'],
    m: ['metro', 'metros'],
    cm: ['centímetro', 'centímetros'],
    mm: ['milímetro', 'milímetros'],
    kg: ['kilogramo', 'kilogramos'],
    g: ['gramo', 'gramos'],
    l: ['litro', 'litros'],
    min: ['minuto', 'minutos'],
    MB: ['megabyte', 'megabytes'],
    GB: ['gigabyte', 'gigabytes'],
  },
  abbreviations: {
    'Sr.': 'señor',
    'Sra.': 'señora',
    'Srta.': 'señorita',
    'Dr.': 'doctor',
    'Dra.': 'doctora',
    'etc.': 'etcétera',
    'p. ej.': 'por ejemplo',
    'Ud.': 'usted',
    'Uds.': 'ustedes',
    'núm.': 'número',
    nº: 'número',
    'Avda.': 'avenida',
    'EE. UU.': 'Estados Unidos',
    'EE.UU.': 'Estados Unidos',
  },
  hourWords: ['h'],
  digits: digitsEs,
});

const ORDINAL: Rule = {
  name: 'ordinal',
  re: /(\d{1,3})\.?[ºª°](?![\p{L}\p{N}])/uy,
  apply: (m) => (m[0].includes('ª') ? ordinalEs(Number(m[1])).replace(/o(?=\s|$)/g, 'a') : ordinalEs(Number(m[1]))),
};
const COMMA_RULES = europeanRules(words(false), false, [ORDINAL]);
const POINT_RULES = europeanRules(words(true), true, [ORDINAL]);

export const spanish: Language = {
  code: 'es',
  cardinal: (n) => cardinalEs(n),
  ordinal: (n) => ordinalEs(n),
  ...europeanReaders({
    cardinal: cardinalEs,
    digits: digitsEs,
    decimalWord: (tag) => (decimalPoint(tag) ? 'punto' : 'coma'),
    dateSeparator: '/',
  }),
  date: dateEs,
  time: timeEs,
  rulesFor: (tag) => (decimalPoint(tag) ? POINT_RULES : COMMA_RULES),
};
