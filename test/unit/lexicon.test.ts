import {
  applyLexicon,
  parsePls,
  PlsError,
  toPls,
  MAX_APPLIED_ENTRIES,
  MAX_ENTRIES,
  type Lexicon,
  type LexiconEntry,
} from '../../text/lexicon';

const PLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <!-- a comment -->
  <lexeme>
    <grapheme>Ada</grapheme>
    <grapheme>ADA</grapheme>
    <phoneme>ˈeɪdə</phoneme>
  </lexeme>
  <lexeme>
    <grapheme>W3C</grapheme>
    <alias>World Wide Web Consortium</alias>
  </lexeme>
  <lexeme>
    <grapheme>tomato</grapheme>
    <phoneme>təˈmeɪtoʊ</phoneme>
    <phoneme prefer="true">təˈmɑːtoʊ</phoneme>
    <alias>tomahto</alias>
  </lexeme>
  <lexeme>
    <grapheme>AT&amp;T</grapheme>
    <alias>A T and T</alias>
  </lexeme>
</lexicon>`;

const errorOf = (xml: string): PlsError => {
  try {
    parsePls(xml);
  } catch (error) {
    if (error instanceof PlsError) return error;
    throw error;
  }
  throw new Error('no PlsError');
};
const head = '<lexicon version="1.0" alphabet="ipa" xml:lang="en">';

describe('PLS', () => {
  test('parses a PLS 1.0 document', () => {
    expect(parsePls(PLS)).toEqual({
      language: 'en-US',
      alphabet: 'ipa',
      entries: [
        { graphemes: ['Ada', 'ADA'], phoneme: 'ˈeɪdə' },
        { graphemes: ['W3C'], alias: 'World Wide Web Consortium' },
        { graphemes: ['tomato'], phoneme: 'təˈmɑːtoʊ', alias: 'tomahto' },
        { graphemes: ['AT&T'], alias: 'A T and T' },
      ],
    });
  });

  test('round trip: toPls then parsePls gives the same dictionary, and toPls is stable', () => {
    const lexicon = parsePls(PLS);
    const written = toPls(lexicon);
    expect(parsePls(written)).toEqual(lexicon);
    expect(toPls(parsePls(written))).toBe(written);
  });

  test('toPls escapes markup in values', () => {
    const lexicon: Lexicon = {
      language: 'en',
      alphabet: 'ipa',
      entries: [{ graphemes: ['<b> & "c"'], alias: 'x < y' }],
    };
    expect(toPls(lexicon)).toContain('<grapheme>&lt;b&gt; &amp; &quot;c&quot;</grapheme>');
    expect(parsePls(toPls(lexicon))).toEqual(lexicon);
  });

  test.each([
    [
      'a DTD',
      '<!DOCTYPE lexicon [<!ENTITY a "b">]>\n<lexicon/>',
      'DTDs (<!DOCTYPE …>) and entity declarations are not accepted',
      1,
      1,
    ],
    ['another root', '<speak/>', 'the root element must be <lexicon>, not <speak>', 1, 1],
    ['no alphabet', '<lexicon xml:lang="en"/>', '<lexicon> needs an alphabet attribute (alphabet="ipa")', 1, 1],
    [
      'another alphabet',
      '<lexicon alphabet="x-sampa" xml:lang="en"/>',
      'alphabet="x-sampa" is not supported (only "ipa")',
      1,
      1,
    ],
    ['no language', '<lexicon alphabet="ipa"/>', '<lexicon> needs an xml:lang attribute (e.g. xml:lang="en-US")', 1, 1],
    [
      'another version',
      '<lexicon version="2.0" alphabet="ipa" xml:lang="en"/>',
      'version="2.0" is not supported (only PLS 1.0)',
      1,
      1,
    ],
    [
      'lexeme without pronunciation',
      `${head}\n  <lexeme><grapheme>a</grapheme></lexeme></lexicon>`,
      '<lexeme> has neither <phoneme> nor <alias>',
      2,
      3,
    ],
    [
      'lexeme without grapheme',
      `${head}\n<lexeme><alias>a</alias></lexeme></lexicon>`,
      '<alias> must follow at least one <grapheme>',
      2,
      9,
    ],
    [
      'non-IPA phoneme',
      `${head}<lexeme><grapheme>a</grapheme><phoneme>t@(</phoneme></lexeme></lexicon>`,
      '<phoneme> contains "@" (U+0040), which is not an IPA character',
      1,
      83,
    ],
    [
      'unknown element',
      `${head}<lexeme><grapheme>a</grapheme><foo/></lexeme></lexicon>`,
      '<foo> is not allowed in <lexeme> (expected grapheme, phoneme, alias or example)',
      1,
      83,
    ],
    ['text in lexicon', `${head}\n  hello</lexicon>`, 'text is not allowed directly in <lexicon>', 2, 3],
    ['unclosed', `${head}\n<lexeme>`, '<lexeme> is never closed', 2, 1],
    [
      'mismatched',
      `${head}<lexeme></lexicon>`,
      '</lexicon> does not close <lexeme> (opened at line 1, column 53)',
      1,
      61,
    ],
    [
      'empty grapheme',
      `${head}<lexeme><grapheme> </grapheme><alias>x</alias></lexeme></lexicon>`,
      '<grapheme> is empty',
      1,
      61,
    ],
    [
      'grapheme over 100 characters',
      `${head}<lexeme><grapheme>${'a'.repeat(101)}</grapheme><alias>x</alias></lexeme></lexicon>`,
      'a grapheme is longer than 100 characters',
      1,
      61,
    ],
    [
      'alias over 500 characters',
      `${head}<lexeme><grapheme>a</grapheme><alias>${'a'.repeat(501)}</alias></lexeme></lexicon>`,
      '<alias> is longer than 500 characters',
      1,
      83,
    ],
  ])('error: %s', (_name, xml, message, line, column) => {
    const error = errorOf(xml);
    expect(error.message).toBe(`${message} at line ${line}, column ${column}`);
    expect([error.line, error.column]).toEqual([line, column]);
  });

  test(`more than ${MAX_ENTRIES} entries are refused; ${MAX_ENTRIES} are accepted`, () => {
    const lexeme = '<lexeme><grapheme>a</grapheme><alias>b</alias></lexeme>\n';
    expect(parsePls(`${head}\n${lexeme.repeat(MAX_ENTRIES)}</lexicon>`).entries).toHaveLength(MAX_ENTRIES);
    expect(errorOf(`${head}\n${lexeme.repeat(MAX_ENTRIES + 1)}</lexicon>`).message).toBe(
      `more than ${MAX_ENTRIES} lexemes at line ${MAX_ENTRIES + 2}, column 1`,
    );
  });
});

describe('applyLexicon matching', () => {
  const entries: LexiconEntry[] = [
    { graphemes: ['Ada'], alias: 'Ay-dah' },
    { graphemes: ['New York'], alias: 'the Big Apple' },
    { graphemes: ['New York City'], alias: 'NYC' },
    { graphemes: ['Dr.'], alias: 'Doctor' },
    { graphemes: ['SQL'], alias: 'sequel', caseSensitive: true },
    { graphemes: ['Nguyen'], phoneme: 'ŋwiən' },
    { graphemes: ['Zoë'], alias: 'Zoey' },
    { graphemes: ['example'], alias: 'sample' },
  ];
  const spoken = (text: string): string => applyLexicon(text, entries, { language: 'en-US', normalize: false }).spoken;
  test.each([
    ['word boundary: not inside a longer word', 'Adam met Ada.', 'Adam met Ay-dah.'],
    ['case-insensitive by default', 'ADA and ada', 'Ay-dah and Ay-dah'],
    ['case-sensitive entry', 'SQL, not sql', 'sequel, not sql'],
    ['longest grapheme first', 'New York City and New York', 'NYC and the Big Apple'],
    ['multi-word across a line break', 'New\nYork', 'the Big Apple'],
    ['grapheme ending in punctuation', 'Dr. Who', 'Doctor Who'],
    ['possessive', "Ada's", "Ay-dah's"],
    ['Unicode letters are word characters', 'Zoë and Zoëy', 'Zoey and Zoëy'],
    ['not inside an e-mail address', 'ada@example.com', 'ada@example.com'],
    ['not inside a URL', 'https://example.org/Ada', 'https://example.org/Ada'],
    ['not inside a domain', 'see example.com for an example', 'see example.com for an sample'],
    ['phoneme without alias keeps the written form', 'Mr Nguyen', 'Mr Nguyen'],
  ])('%s', (_name, text, expected) => {
    expect(spoken(text)).toBe(expected);
  });

  test('applied before normalization: the alias is said, the rest normalized', () => {
    expect(applyLexicon('Dr. Ada paid $5.', entries, { language: 'en-US' }).spoken).toBe(
      'Doctor Ay-dah paid five dollars.',
    );
  });

  test('context across a match still normalizes ("Dr." before a name stays Doctor)', () => {
    expect(
      applyLexicon('Dr. Nguyen', [{ graphemes: ['Nguyen'], phoneme: 'ŋwiən' }], { language: 'en-US' }).spoken,
    ).toBe('Doctor Nguyen');
  });

  test('spans point into the source; phoneme stretches carry IPA', () => {
    const text = 'Dr. Nguyen met Ada in New York City.';
    const result = applyLexicon(text, entries, { language: 'en-US' });
    expect(result.spoken).toBe('Doctor Nguyen met Ay-dah in NYC.');
    expect(result.words.map((w) => `${w.word}=${text.slice(w.source_start, w.source_end)}`)).toEqual([
      'Doctor=Dr.',
      'Nguyen=Nguyen',
      'met=met',
      'Ay-dah=Ada',
      'in=in',
      'NYC=New York City',
    ]);
    expect(result.pronunciations).toEqual([{ ipa: 'ŋwiən', start: 7, end: 13, source_start: 4, source_end: 10 }]);
    expect(result.matches).toBe(4);
  });

  test('an alias with a phoneme: the alias is the text, the IPA covers it', () => {
    const result = applyLexicon('a tomato', [{ graphemes: ['tomato'], alias: 'tomahto', phoneme: 'təˈmɑːtoʊ' }], {
      language: 'en-US',
    });
    expect(result.spoken).toBe('a tomahto');
    expect(result.pronunciations).toEqual([{ ipa: 'təˈmɑːtoʊ', start: 2, end: 9, source_start: 2, source_end: 8 }]);
  });

  test('limits', () => {
    const many = Array.from({ length: MAX_APPLIED_ENTRIES + 1 }, () => ({ graphemes: ['a'], alias: 'b' }));
    expect(() => applyLexicon('a', many, { language: 'en' })).toThrow(RangeError);
    // Two full dictionaries apply together (the default: all of an account's).
    expect(applyLexicon('a', many.slice(0, 2 * MAX_ENTRIES), { language: 'en' }).spoken).toBe('b');
    expect(() => applyLexicon('a', [{ graphemes: ['a'.repeat(101)], alias: 'b' }], { language: 'en' })).toThrow(
      RangeError,
    );
    expect(() => applyLexicon('a', [{ graphemes: ['a'], alias: 'b'.repeat(501) }], { language: 'en' })).toThrow(
      RangeError,
    );
    expect(() => applyLexicon('a', [{ graphemes: ['a'] }], { language: 'en' })).toThrow(RangeError);
  });

  // How fast is bench material, not a test threshold: this checks that the largest allowed dictionary applies.
  test('10,000 entries over a long text all apply', () => {
    const big = Array.from({ length: MAX_ENTRIES }, (_, i) => ({ graphemes: [`word${i}`], alias: `w${i}` }));
    const text = Array.from({ length: 5000 }, (_, i) => `word${i * 2} other`).join(' ');
    expect(applyLexicon(text, big, { language: 'en', normalize: false }).matches).toBe(5000);
  });
});
