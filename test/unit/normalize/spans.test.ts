import fc from 'fast-check';
import {
  cardinal,
  characters,
  date,
  decimal,
  digits,
  normalizeText,
  normalizedLanguages,
  ordinal,
  telephone,
  time,
} from '../../../text/normalize';

const SAMPLES = [
  'Dr. Smith paid $1,250.50 on 3/4/2026 at 10:30am.',
  'Henry VIII met the WHO in 1984; call +1 555 0100 or mail ada@example.com.',
  'It was 21 °C, 5 km/h wind, 45% rain – see https://openvox.dev/docs.',
  'The 1990s, 1990–1995, 5-10 minutes, 3/4 cup, 21st of March.',
  'Straße 日本語 naïve café R&D.',
];

function checkSpans(text: string, language: string): void {
  const { words } = normalizeText(text, { language });
  let last = 0;
  for (const word of words) {
    expect(word.source_start).toBeGreaterThanOrEqual(0);
    expect(word.source_end).toBeLessThanOrEqual(text.length);
    expect(word.source_start).toBeLessThan(word.source_end);
    expect(word.source_start).toBeGreaterThanOrEqual(last);
    last = word.source_start;
  }
}

describe('span mapping', () => {
  test('"$5m" is three words with the same span', () => {
    const { spoken, words } = normalizeText('$5m', { language: 'en-US' });
    expect(spoken).toBe('five million dollars');
    expect(words).toEqual([
      { word: 'five', source_start: 0, source_end: 3 },
      { word: 'million', source_start: 0, source_end: 3 },
      { word: 'dollars', source_start: 0, source_end: 3 },
    ]);
  });

  test('untouched words map to themselves', () => {
    const text = 'Hello there, $5 friend.';
    const { words } = normalizeText(text, { language: 'en' });
    expect(words.map((w) => [w.word, text.slice(w.source_start, w.source_end)])).toEqual([
      ['Hello', 'Hello'],
      ['there', 'there'],
      ['five', '$5'],
      ['dollars', '$5'],
      ['friend', 'friend'],
    ]);
  });

  test('a replacement inside a word boundary is padded and mapped ("R&D")', () => {
    const { spoken, words } = normalizeText('R&D', { language: 'en' });
    expect(spoken).toBe('R and D');
    expect(words).toEqual([
      { word: 'R', source_start: 0, source_end: 1 },
      { word: 'and', source_start: 1, source_end: 2 },
      { word: 'D', source_start: 2, source_end: 3 },
    ]);
  });

  test('UTF-16 offsets past astral characters', () => {
    const text = '😀 $5';
    const { words } = normalizeText(text, { language: 'en' });
    expect(words[0]).toEqual({ word: 'five', source_start: 3, source_end: 5 });
  });

  test.each(SAMPLES.flatMap((s) => ['en-US', 'en-GB', 'de', 'fr', 'es', 'es-419', 'ja'].map((l) => [l, s] as const)))(
    '%s: spans in order and inside the source: %s',
    (language, text) => {
      checkSpans(text, language);
    },
  );

  test('every word of the spoken text is listed, in order', () => {
    for (const text of SAMPLES) {
      const { spoken, words } = normalizeText(text, { language: 'en-US' });
      expect(words.map((w) => w.word)).toEqual(
        Array.from(spoken.matchAll(/[\p{L}\p{N}\p{M}]+(?:['’-][\p{L}\p{N}\p{M}]+)*/gu), (m) => m[0]),
      );
    }
  });
});

describe('pass-through', () => {
  test.each(['ja', 'zh-CN', 'it-IT', 'x-unknown', ''])('%s returns the input unchanged, applied false', (language) => {
    const text = 'Dr. Smith paid $5 on 3/4/2026.';
    const result = normalizeText(text, { language });
    expect(result.applied).toBe(false);
    expect(result.spoken).toBe(text);
    expect(result.words.map((w) => text.slice(w.source_start, w.source_end))).toEqual(result.words.map((w) => w.word));
  });

  test('known languages say applied', () => {
    expect(normalizedLanguages().sort()).toEqual(['de', 'en', 'es', 'fr']);
    for (const language of ['en', 'en-GB', 'de-AT', 'fr-CA', 'es-419', 'EN_us'])
      expect(normalizeText('x', { language }).applied).toBe(true);
  });
});

describe('properties', () => {
  const pieces = fc.constantFrom(
    '$',
    '€',
    '£',
    '1',
    '23',
    '1,250',
    '.',
    ',',
    '-',
    '–',
    '/',
    ':',
    '%',
    '°C',
    ' ',
    '\n',
    'Dr.',
    'St.',
    'VIII',
    'I',
    'WHO',
    'the',
    'am',
    'km',
    '@',
    'a',
    '+',
    '(',
    ')',
    '2026',
    'März',
    '😀',
    'é',
    'x',
    'h',
    'e.g.',
  );
  const text = fc.oneof(
    fc.string({ maxLength: 60 }),
    fc.array(pieces, { maxLength: 30 }).map((a) => a.join('')),
    fc.string({ unit: 'binary', maxLength: 40 }),
  );

  test('random text never throws; spans stay in order and inside the source', () => {
    fc.assert(
      fc.property(text, fc.constantFrom('en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES', 'es-419'), (input, language) => {
        const result = normalizeText(input, { language });
        expect(typeof result.spoken).toBe('string');
        checkSpans(input, language);
      }),
      { numRuns: 800, seed: 42 },
    );
  });

  test('pass-through languages return the input', () => {
    fc.assert(
      fc.property(text, (input) => {
        expect(normalizeText(input, { language: 'ko' }).spoken).toBe(input);
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  test('text without digits, capitals or symbols is untouched', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('hello', 'world', 'cat', 'the', 'a', 'is', ' ', ', ', '. '), { maxLength: 20 }),
        (parts) => {
          const input = parts.join('');
          expect(normalizeText(input, { language: 'en' }).spoken).toBe(input);
        },
      ),
      { numRuns: 200, seed: 3 },
    );
  });
});

describe('say-as readers', () => {
  test.each([
    [cardinal(1250, 'en-US'), 'one thousand two hundred fifty'],
    [cardinal(1250, 'de'), 'eintausendzweihundertfünfzig'],
    [cardinal(1250, 'fr'), 'mille deux cent cinquante'],
    [cardinal(1250, 'es'), 'mil doscientos cincuenta'],
    [ordinal(21, 'en'), 'twenty-first'],
    [ordinal(3, 'de'), 'dritte'],
    [ordinal(21, 'fr'), 'vingt et unième'],
    [ordinal(3, 'es'), 'tercero'],
    [decimal('3', '14', 'en'), 'three point one four'],
    [decimal('3', '14', 'de'), 'drei Komma eins vier'],
    [decimal('3', '5', 'es-MX'), 'tres punto cinco'],
    [digits('0100', 'en'), 'zero one zero zero'],
    [digits('42', 'de'), 'vier zwei'],
    [characters('FBI', 'en'), 'F B I'],
    [characters('a1', 'en'), 'A one'],
    [telephone('+1 555 0100', 'en'), 'plus one, five five five, zero one zero zero'],
    [telephone('030 1234', 'de'), 'null drei null, eins zwei drei vier'],
    [date('2026-03-04', 'en-US'), 'March fourth, twenty twenty-six'],
    [date('3/4/2026', 'en-GB'), 'the third of April, twenty twenty-six'],
    [date('March 3rd, 2026', 'en'), 'March third, twenty twenty-six'],
    [date({ year: 2026, month: 3, day: 4 }, 'de'), 'vierter März zweitausendsechsundzwanzig'],
    [date('03/04/2026', 'fr'), 'trois avril deux mille vingt-six'],
    [date('03/04/2026', 'es'), 'tres de abril de dos mil veintiséis'],
    [date('not a date', 'en'), null],
    [time('10:30am', 'en'), 'ten thirty a m'],
    [time('14:05', 'en'), 'fourteen oh five'],
    [time('21:30', 'fr'), 'vingt et une heures trente'],
    [time('10:30', 'de'), 'zehn Uhr dreißig'],
    [time('25:00', 'en'), null],
    [time('hello', 'en'), null],
  ])('%s', (actual, expected) => {
    expect(actual).toBe(expected);
  });

  test('an unknown language is an error for say-as', () => {
    expect(() => cardinal(1, 'ja')).toThrow(RangeError);
  });
});
