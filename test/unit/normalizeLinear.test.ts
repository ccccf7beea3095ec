import { normalizationSteps, normalizeText } from '../../text/normalize';

/**
 * Issue 41, item 3: the normalizer's work grows linearly with the text. Rules
 * used to read to the end of a long run at every word inside it ("a.a.….a@":
 * the e-mail rule from each "a" to the @), so doubling such a text made it
 * four times slower (1.1 s at 10 k characters, 2.8 s at 20 k). The scanner
 * counts the characters it shows the rules and those it steps over; doubling
 * the text may at most about double that count. Counts, not clocks: the
 * assertion does not depend on the machine.
 */
const SHAPES: Record<string, (n: number) => string> = {
  'a. … @': (n) => 'a.'.repeat(n / 2) + '@',
  'a- …': (n) => 'a-'.repeat(n / 2),
  '- …': (n) => '-'.repeat(n),
  '1 123 … x': (n) => '1' + ' 123'.repeat(n / 4) + 'x',
  '1.123 … x': (n) => '1' + '.123'.repeat(n / 4) + 'x',
  '1,123 … x': (n) => '1' + ',123'.repeat(n / 4) + 'x',
  'a_ … @': (n) => 'a_'.repeat(n / 2) + '@',
  '+1 1 1 …': (n) => '+1' + ' 1'.repeat(n / 2),
  '1.1.1 …': (n) => '1.'.repeat(n / 2) + '1',
  'www.a www.a …': (n) => 'www.a '.repeat(n / 6),
  'aaaa… (one word)': (n) => 'a'.repeat(n),
  '1111… (one number)': (n) => '1'.repeat(n),
  'spaces then a.m.': (n) => '5 a.m.' + ' '.repeat(n) + 'x',
  'Dr. … after spaces': (n) => ' '.repeat(n) + 'Dr. Smith',
  prose: (n) => 'Dr. Smith paid $1,250.50 on 3/4/2026 at 10:30am for 5 kg of XIV. '.repeat(n / 64),
};
const LANGUAGES = ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES', 'es-419'];

describe.each(LANGUAGES)('%s', (language) => {
  test.each(Object.keys(SHAPES))('doubling "%s" at most 2.5 times the work', (shape) => {
    const make = SHAPES[shape];
    const [small, large] = [3000, 6000].map((n) => normalizationSteps(make(n), { language }));
    expect(large).toBeGreaterThan(small);
    expect(large / small).toBeLessThanOrEqual(2.5);
  });
});

test('the work of a 200 k-character text is at most 100 times that of a 2 k one', () => {
  const make = SHAPES['a. … @'];
  const [small, large] = [2000, 200_000].map((n) => normalizationSteps(make(n), { language: 'en-US' }));
  expect(large / small).toBeLessThanOrEqual(110);
});

describe('what the bounded rules still read', () => {
  const say = (text: string, language = 'en-US'): string => normalizeText(text, { language }).spoken;

  test('a long address, a 2,000-character URL and a grouped number read as before', () => {
    expect(say('write to first.last@mail.example.co.uk')).toBe(
      'write to first dot last at mail dot example dot co dot uk',
    );
    expect(say(`see https://example.com/${'a'.repeat(1900)} now`)).toBe(
      `see example dot com slash ${'a'.repeat(1900)} now`,
    );
    expect(say('1,234,567,890')).toBe(
      'one billion two hundred thirty-four million five hundred sixty-seven thousand eight hundred ninety',
    );
    expect(say('1 234 567', 'fr-FR')).toBe('un million deux cent trente-quatre mille cinq cent soixante-sept');
  });

  test('a period after "a.m." still ends the sentence before a capital, not before a lower-case word', () => {
    expect(say('at 5 a.m.' + ' '.repeat(10) + 'Then')).toBe('at five a m.' + ' '.repeat(10) + 'Then');
    expect(say('at 5 a.m.' + ' '.repeat(10) + 'then')).toBe('at five a m' + ' '.repeat(10) + 'then');
  });
});
