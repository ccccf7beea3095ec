import { aliasExpansion, applyLexicon, compileLexicon, matcherWork, type LexiconEntry } from '../../text/lexicon';

/**
 * Dictionary matching is linear in the text, whatever the number of entries:
 * counted in the matcher's hash lookups (no timing in tests). Before, every
 * entry sharing a first word was a regular expression tried at every word:
 * 10,000 entries starting with "a" and a text of 1,000 "a"s stalled the API
 * for seconds.
 */

const manyA: LexiconEntry[] = Array.from({ length: 10_000 }, (_, i) => ({
  graphemes: [`a b${i}`],
  alias: `alias ${i}`,
}));

function lookupsFor(text: string, entries: readonly LexiconEntry[]): number {
  const lexicon = compileLexicon(entries);
  const before = matcherWork.lookups;
  applyLexicon(text, lexicon, { language: 'en-US', normalize: false });
  return matcherWork.lookups - before;
}

describe('dictionary matching', () => {
  it('does work linear in the text: twice the text, at most 2.5 times the lookups', () => {
    for (const unit of ['a ', 'a b1 ', 'a.', 'a~']) {
      const once = lookupsFor(unit.repeat(1000), manyA);
      const twice = lookupsFor(unit.repeat(2000), manyA);
      expect(once).toBeGreaterThan(0);
      expect(twice / once).toBeLessThanOrEqual(2.5);
    }
  });

  it('does work bounded per place in the text, whatever the number of entries sharing a first word', () => {
    const text = 'a '.repeat(1000);
    // 10,000 entries of four lengths ("a b0" to "a b9999"): at most one lookup per length and word, not one per entry.
    expect(lookupsFor(text, manyA)).toBeLessThanOrEqual(4 * 1000);
    const oneOfEachLength = [manyA[0], manyA[10], manyA[100], manyA[1000]];
    expect(lookupsFor(text, manyA)).toBe(lookupsFor(text, oneOfEachLength));
  });

  it('keeps its rules: longest form first, earlier entry among equals, whole words, whitespace runs, guards', () => {
    const entries: LexiconEntry[] = [
      { graphemes: ['New York'], alias: 'NY' },
      { graphemes: ['New York City'], alias: 'NYC' },
      { graphemes: ['ada'], alias: 'first' },
      { graphemes: ['Ada'], alias: 'second' },
      { graphemes: ['NASA'], alias: 'nasa', caseSensitive: true },
    ];
    const said = (text: string) => applyLexicon(text, entries, { language: 'en-US', normalize: false }).spoken;
    expect(said('New\n\tYork City is big')).toBe('NYC is big');
    expect(said('New  York is big')).toBe('NY is big');
    expect(said("Ada's, Adam")).toBe("first's, Adam");
    expect(said('NASA Nasa')).toBe('nasa Nasa');
    expect(said('mail ada@example.com or see www.ada.org and ada.com, then Ada.')).toBe(
      'mail ada@example.com or see www.ada.org and ada.com, then first.',
    );
  });
});

describe('aliasExpansion', () => {
  const tilde = compileLexicon([{ graphemes: ['~'], alias: 'x'.repeat(499) }]);

  it('counts what the aliases add to the text (the audit: 10 characters saying 4,492)', () => {
    expect(aliasExpansion('a~~~~~~~~~', tilde)).toBe(9 * 498);
    expect(aliasExpansion('no tilde here', tilde)).toBe(0);
  });

  it('counts code points, and an alias shorter than its form subtracts', () => {
    const lexicon = compileLexicon([
      { graphemes: ['Doctor'], alias: 'Dr' },
      { graphemes: ['😀'], alias: 'smile' },
    ]);
    expect(aliasExpansion('Doctor 😀', lexicon)).toBe(-4 + 4);
  });
});
