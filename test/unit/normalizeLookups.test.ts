import { normalizeText } from '../../text/normalize';
import { parseDateEn } from '../../text/normalize/en/readers';

/**
 * Issue 41, item 5: the normalizer looks words of the text up in its tables
 * (is the word before "2500" a month?). A plain object answered "constructor"
 * with the function it inherits; the tables have a null prototype.
 */
const NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', '__defineGetter__'];

test.each(NAMES)('"%s 2500" is not a month and a year', (name) => {
  expect(normalizeText(`${name} 2500`, { language: 'en-US' }).spoken).toBe(`${name} two thousand five hundred`);
});

test.each(NAMES)('"%s 5" is not a date', (name) => {
  expect(parseDateEn(`${name} 5`)).toBeNull();
  expect(parseDateEn(`5 ${name}`)).toBeNull();
});

test.each(['en-US', 'de-DE', 'fr-FR', 'es-ES', 'es-MX'])('prototype names read as written in %s', (language) => {
  for (const name of NAMES) {
    const text = `5 ${name} ${name}. 3${name} $ ${name} 1 ${name}`;
    expect(normalizeText(text, { language }).spoken).not.toMatch(/function|\[object|undefined|NaN/);
  }
});
