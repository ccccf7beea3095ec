import { normalizeText } from '../../../text/normalize';

/** Each case: written form → expected spoken form, checked with test.each under `language`. */
export type Cases = ReadonlyArray<readonly [written: string, spoken: string]>;

export function table(language: string, category: string, cases: Cases): void {
  describe(`${language} ${category}`, () => {
    test.each(cases)('%s → %s', (written, spoken) => {
      expect(normalizeText(written, { language }).spoken).toBe(spoken);
    });
  });
}
