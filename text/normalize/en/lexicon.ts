/** English word lists: abbreviations, acronyms, units, currencies, months. Tables looked up by text have a null prototype (`lookup`). */
import { lookup } from '../shared';

export const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** "Jan", "Sept" … → month number (1–12). */
export const MONTH_BY_NAME: Readonly<Record<string, number>> = lookup(
  Object.fromEntries([
    ...MONTHS.map((name, i) => [name.toLowerCase(), i + 1]),
    ...['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'].map((name, i) => [
      name,
      i + 1,
    ]),
    ['sept', 9],
  ]) as Record<string, number>,
);

/** Abbreviations that always read the same way (the trailing period is part of the key). */
export const ABBREVIATIONS: Readonly<Record<string, string>> = lookup({
  'Mr.': 'Mister',
  'Mrs.': 'Missus',
  'Ms.': 'Miz',
  'Prof.': 'Professor',
  'Jr.': 'Junior',
  'Sr.': 'Senior',
  'Gen.': 'General',
  'Capt.': 'Captain',
  'Lt.': 'Lieutenant',
  'Col.': 'Colonel',
  'Sgt.': 'Sergeant',
  'Gov.': 'Governor',
  'Sen.': 'Senator',
  'Rev.': 'Reverend',
  'Ave.': 'Avenue',
  'Blvd.': 'Boulevard',
  'Rd.': 'Road',
  'Ln.': 'Lane',
  'Mt.': 'Mount',
  'Inc.': 'Incorporated',
  'Ltd.': 'Limited',
  'Corp.': 'Corporation',
  'Dept.': 'Department',
  'Univ.': 'University',
  'approx.': 'approximately',
  'Approx.': 'Approximately',
  'etc.': 'et cetera',
  'vs.': 'versus',
  vs: 'versus',
  'e.g.': 'for example',
  'E.g.': 'For example',
  'i.e.': 'that is',
  'I.e.': 'That is',
  'a.k.a.': 'also known as',
  aka: 'also known as',
  'U.S.': 'U S',
  'U.K.': 'U K',
  'U.N.': 'U N',
  'D.C.': 'D C',
  'min.': 'minimum',
  'max.': 'maximum',
  'dept.': 'department',
  'est.': 'established',
  'fig.': 'figure',
  'Fig.': 'Figure',
});

/** Titles: always followed by a name, so their period never ends a sentence. */
export const TITLES = new Set([
  'Mr.',
  'Mrs.',
  'Ms.',
  'Prof.',
  'Gen.',
  'Capt.',
  'Lt.',
  'Col.',
  'Sgt.',
  'Gov.',
  'Sen.',
  'Rev.',
  'Mt.',
]);

/** Abbreviations that read two ways: [before a name, after a name]. */
export const TITLE_OR_PLACE: Readonly<Record<string, [string, string]>> = lookup({
  'Dr.': ['Doctor', 'Drive'],
  'St.': ['Saint', 'Street'],
});

/** Read letter by letter even though they could be pronounced. */
export const SPELLED = new Set(
  'FBI CIA NSA USA UK EU UN BBC CNN CEO CFO CTO COO HTML CSS URL URI API CPU GPU RAM SSD HDD PDF USB DNA RNA IBM HTTP HTTPS SQL TV PC ID AI ML IQ UFO FAQ DIY ATM BMW HP VIP MBA DVD CD LCD LED GPS PIN SMS MMS EOF ETA IOU MIT UCLA NYC LA NYPD IRS DOJ FDA EPA IOS OS IP TCP UDP SSH AWS GCP JSON XML YAML CSV SDK IDE UI UX QA HR PR OK'.split(
    ' ',
  ),
);

/** Read as words even though they are all capitals. */
export const AS_WORD = new Set(
  'NASA NATO UNESCO UNICEF LASER RADAR SCUBA AIDS OPEC FIFA UEFA NAFTA ASCII GIF JPEG PNG WAN LAN SIM POTUS SWAT OSHA FEMA INTERPOL ISIS ZIP SAT GUI CAPTCHA RAID NIMBY YOLO'.split(
    ' ',
  ),
);

/** Spelled only after "the": "the WHO", "the US" (elsewhere they are the words who, us). */
export const SPELLED_AFTER_THE = new Set(['WHO', 'US']);

/** Interjections and words without a vowel letter that are never acronyms. */
export const NOT_ACRONYM = new Set('HMM HM SHH SH PSST BRR GRR TSK ZZZ NTH MM MMM'.split(' '));

/** Special readings: "OK" is a word, "JPEG" says "jay peg". */
export const ACRONYM_READING: Readonly<Record<string, string>> = lookup({
  OK: 'okay',
  JPEG: 'jay peg',
  GIF: 'gif',
  ASCII: 'ask ee',
});

/** Unit symbol → [singular, plural]. Case matters (m metre, M mega…, MB megabyte, Mb megabit). */
export const UNITS: Readonly<Record<string, [string, string]>> = lookup({
  'km/h': ['kilometer per hour', 'kilometers per hour'],
  kph: ['kilometer per hour', 'kilometers per hour'],
  mph: ['mile per hour', 'miles per hour'],
  'm/s': ['meter per second', 'meters per second'],
  km: ['kilometer', 'kilometers'],
  m: ['meter', 'meters'],
  cm: ['centimeter', 'centimeters'],
  mm: ['millimeter', 'millimeters'],
  µm: ['micrometer', 'micrometers'],
  nm: ['nanometer', 'nanometers'],
  mi: ['mile', 'miles'],
  ft: ['foot', 'feet'],
  yd: ['yard', 'yards'],
  'km²': ['square kilometer', 'square kilometers'],
  'm²': ['square meter', 'square meters'],
  'm³': ['cubic meter', 'cubic meters'],
  sqft: ['square foot', 'square feet'],
  kg: ['kilogram', 'kilograms'],
  g: ['gram', 'grams'],
  mg: ['milligram', 'milligrams'],
  t: ['tonne', 'tonnes'],
  lb: ['pound', 'pounds'],
  lbs: ['pound', 'pounds'],
  oz: ['ounce', 'ounces'],
  l: ['liter', 'liters'],
  L: ['liter', 'liters'],
  ml: ['milliliter', 'milliliters'],
  mL: ['milliliter', 'milliliters'],
  gal: ['gallon', 'gallons'],
  s: ['second', 'seconds'],
  sec: ['second', 'seconds'],
  ms: ['millisecond', 'milliseconds'],
  min: ['minute', 'minutes'],
  mins: ['minute', 'minutes'],
  h: ['hour', 'hours'],
  hr: ['hour', 'hours'],
  hrs: ['hour', 'hours'],
  B: ['byte', 'bytes'],
  KB: ['kilobyte', 'kilobytes'],
  kB: ['kilobyte', 'kilobytes'],
  MB: ['megabyte', 'megabytes'],
  GB: ['gigabyte', 'gigabytes'],
  TB: ['terabyte', 'terabytes'],
  Kb: ['kilobit', 'kilobits'],
  Mb: ['megabit', 'megabits'],
  Gb: ['gigabit', 'gigabits'],
  kbps: ['kilobit per second', 'kilobits per second'],
  Mbps: ['megabit per second', 'megabits per second'],
  Gbps: ['gigabit per second', 'gigabits per second'],
  Hz: ['hertz', 'hertz'],
  kHz: ['kilohertz', 'kilohertz'],
  MHz: ['megahertz', 'megahertz'],
  GHz: ['gigahertz', 'gigahertz'],
  W: ['watt', 'watts'],
  kW: ['kilowatt', 'kilowatts'],
  kWh: ['kilowatt hour', 'kilowatt hours'],
  MW: ['megawatt', 'megawatts'],
  V: ['volt', 'volts'],
  mA: ['milliamp', 'milliamps'],
  A: ['amp', 'amps'],
  mAh: ['milliamp hour', 'milliamp hours'],
  '°C': ['degree Celsius', 'degrees Celsius'],
  '° C': ['degree Celsius', 'degrees Celsius'],
  '° F': ['degree Fahrenheit', 'degrees Fahrenheit'],
  '°F': ['degree Fahrenheit', 'degrees Fahrenheit'],
  K: ['kelvin', 'kelvins'],
  '°': ['degree', 'degrees'],
  '%': ['percent', 'percent'],
  '‰': ['per mille', 'per mille'],
  px: ['pixel', 'pixels'],
  dB: ['decibel', 'decibels'],
});

/** Units that are only units right after a number with no space ("5m", "3h"), never after a space ("5 A" is not five amps). */
export const TIGHT_ONLY = new Set(['A', 'B', 'K', 't', 'V', 'W']);

/** Currency symbol → [major singular, major plural, minor singular, minor plural]; no minor unit for yen. */
export const CURRENCIES: Readonly<Record<string, [string, string, string, string]>> = lookup({
  $: ['dollar', 'dollars', 'cent', 'cents'],
  '€': ['euro', 'euros', 'cent', 'cents'],
  '£': ['pound', 'pounds', 'penny', 'pence'],
  '¥': ['yen', 'yen', '', ''],
  '₹': ['rupee', 'rupees', 'paisa', 'paise'],
});

/** Scale suffixes after a money amount: "$5m", "€1.2bn", "$3 million". */
export const SCALE_WORDS: Readonly<Record<string, string>> = lookup({
  k: 'thousand',
  K: 'thousand',
  thousand: 'thousand',
  m: 'million',
  M: 'million',
  mn: 'million',
  mln: 'million',
  million: 'million',
  b: 'billion',
  B: 'billion',
  bn: 'billion',
  billion: 'billion',
  tn: 'trillion',
  T: 'trillion',
  trillion: 'trillion',
});

/** Words after which a 4-digit number is a year. */
export const YEAR_CUES = new Set(
  'in since of year by from until till before after during circa around early late mid spring summer autumn fall winter'.split(
    ' ',
  ),
);

/** Words after which a Roman numeral is a cardinal number ("World War II", "Chapter IV"). */
export const ROMAN_CUES = new Set(
  'War Chapter Part Book Volume Vol Act Scene Section Article Phase Type Class Level Title Appendix Round Stage Episode Season Bowl Grade Schedule Category Canto Psalm Plate Figure Table'.split(
    ' ',
  ),
);

/** Symbols read on their own. */
export const SYMBOLS: Readonly<Record<string, string>> = lookup({
  '&': 'and',
  '@': 'at',
  '+': 'plus',
  '=': 'equals',
  '×': 'times',
  '÷': 'divided by',
  '%': 'percent',
  '°': 'degrees',
  '§': 'section',
  '±': 'plus or minus',
  '≈': 'approximately',
  '<': 'less than',
  '>': 'greater than',
  '~': 'about',
});

/** How symbols inside addresses and spelled strings read. */
export const LETTER_SYMBOLS: Readonly<Record<string, string>> = lookup({
  '.': 'dot',
  '-': 'dash',
  _: 'underscore',
  '/': 'slash',
  ':': 'colon',
  '@': 'at',
  '+': 'plus',
  '#': 'hash',
  '&': 'and',
  '=': 'equals',
  '?': 'question mark',
  '~': 'tilde',
  '%': 'percent',
  ' ': 'space',
});
