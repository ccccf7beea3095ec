import fc from 'fast-check';
import { normalizeText } from '../../text/normalize';

/**
 * The bound docs/api.md states for audio per credit: a credit is one written
 * character (or one character an alias says), and the normalizer reads a
 * written character as at most 16 spoken ones (the most measured: "¾"
 * alone, "three quarters", 14; French "97", 21 for 2). Property-checked over the written forms it expands most.
 */
const PIECES = [
  '¼',
  '½',
  '¾',
  '7',
  '77',
  '97',
  '1997',
  '%',
  '‰',
  '$',
  '£',
  '€',
  '°',
  '°C',
  '°F',
  '±',
  '÷',
  '×',
  '.',
  '/',
  ':',
  '-',
];
const MORE = [
  ' ',
  '1',
  '0',
  'x',
  '§',
  '#',
  '&',
  '@',
  '+',
  'a',
  'kg',
  'km/h',
  'Dr.',
  'St.',
  'XVII',
  'th',
  ',',
  '(',
  ')',
];

describe('the normalizer’s expansion', () => {
  it.each(['en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES'])(
    'says at most 16 characters per written one in %s',
    (language) => {
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...PIECES, ...MORE), { minLength: 1, maxLength: 60 }), (pieces) => {
          const text = pieces.join('');
          const written = [...text].length;
          const spoken = [...normalizeText(text, { language }).spoken].length;
          return spoken <= 16 * written;
        }),
        { numRuns: 2000 },
      );
    },
  );
});
