/** English: the number readers and the ordered rule list. */
import type { Language } from '../types';
import { cardinalEn, decimalEn, digitsEn, ordinalEn } from './numbers';
import { charactersEn, dateEn, parseDateEn, telephoneEn, timeEn } from './readers';
import { NUMBER_RULES } from './rules';
import { ADDRESS_RULES, WORD_RULES } from './words';

const RULES = [...ADDRESS_RULES, ...NUMBER_RULES, ...WORD_RULES];

export const english: Language = {
  code: 'en',
  cardinal: cardinalEn,
  ordinal: ordinalEn,
  decimal: decimalEn,
  digits: digitsEn,
  characters: charactersEn,
  date: (parts, tag) => dateEn(parts, tag),
  parseDate: parseDateEn,
  time: timeEn,
  telephone: telephoneEn,
  rulesFor: () => RULES,
};
