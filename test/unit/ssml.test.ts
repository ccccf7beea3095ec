import { parseSsml, SsmlError, type Segment, type SpeechSegment } from '../../text/ssml';

const language = 'en-US';
const speech = (segments: Segment[]): SpeechSegment[] =>
  segments.filter((s): s is SpeechSegment => s.type === 'speech');
const said = (input: string): string => parseSsml(input, { language }).plainText;
const errorOf = (input: string): SsmlError => {
  try {
    parseSsml(input, { language });
  } catch (error) {
    if (error instanceof SsmlError) return error;
    throw error;
  }
  throw new Error(`no SsmlError for ${input}`);
};

describe('elements', () => {
  test.each([
    ['plain text, no <speak>', 'Hello world', 'Hello world'],
    [
      '<speak> with xml:lang',
      '<speak version="1.1" xmlns="http://www.w3.org/2001/10/synthesis" xml:lang="en-US">Hi</speak>',
      'Hi',
    ],
    [
      'entities',
      '<speak>R &amp; D &lt;3 &#65;&#x42; &quot;q&quot; &apos;</speak>',
      'R and D less than three AB "q" \'',
    ],
    ['CDATA kept as text', '<speak><![CDATA[a < b]]></speak>', 'a less than b'],
    ['comments dropped', '<speak>a<!-- secret -->b</speak>', 'ab'],
    ['normalization of plain text', '<speak>Dr. Smith paid $5m.</speak>', 'Doctor Smith paid five million dollars.'],
    ['sub', '<speak><sub alias="World Wide Web Consortium">W3C</sub> rules</speak>', 'World Wide Web Consortium rules'],
    [
      'phoneme keeps the grapheme as text',
      '<speak><phoneme alphabet="ipa" ph="təˈmɑːtoʊ">tomato</phoneme></speak>',
      'tomato',
    ],
    ['unknown element read as text', '<speak><foo>bar</foo> baz</speak>', 'bar baz'],
    ['lang read in the request voice', '<speak><lang xml:lang="fr-FR">bonjour</lang></speak>', 'bonjour'],
    ['audio fallback text', '<speak><audio src="x.wav">a beep</audio></speak>', 'a beep'],
  ])('%s', (_name, input, expected) => {
    expect(said(input)).toBe(expected);
  });

  test.each([
    ['interpret-as="characters"', 'FBI', 'F B I'],
    ['interpret-as="spell-out"', 'abc', 'A B C'],
    ['interpret-as="cardinal"', '1,250', 'one thousand two hundred fifty'],
    ['interpret-as="ordinal"', '21st', 'twenty-first'],
    ['interpret-as="digits"', '0100', 'zero one zero zero'],
    ['interpret-as="date"', '2026-03-04', 'March fourth, twenty twenty-six'],
    ['interpret-as="date" format="dmy"', '3/4/2026', 'April third, twenty twenty-six'],
    ['interpret-as="date" format="mdy"', '3/4/2026', 'March fourth, twenty twenty-six'],
    ['interpret-as="date" format="ymd"', '2026.03.04', 'March fourth, twenty twenty-six'],
    ['interpret-as="time"', '10:30am', 'ten thirty a m'],
    ['interpret-as="telephone"', '+1 555 0100', 'plus one, five five five, zero one zero zero'],
  ])('<say-as %s>', (attributes, written, spoken) => {
    expect(said(`<speak><say-as ${attributes}>${written}</say-as></speak>`)).toBe(spoken);
  });

  test('German say-as uses the German readers', () => {
    expect(
      parseSsml('<speak><say-as interpret-as="cardinal">1.250</say-as></speak>', { language: 'de-DE' }).plainText,
    ).toBe('eintausendzweihundertfünfzig');
  });

  test('normalize: false leaves the text as written', () => {
    expect(parseSsml('<speak>$5</speak>', { language, normalize: false }).plainText).toBe('$5');
  });
});

describe('breaks, sentences, paragraphs, marks', () => {
  test.each([
    ['<break time="500ms"/>', 500],
    ['<break time="1s"/>', 1000],
    ['<break time="1.5s"/>', 1500],
    ['<break/>', 400],
    ['<break strength="x-weak"/>', 100],
    ['<break strength="weak"/>', 250],
    ['<break strength="medium"/>', 400],
    ['<break strength="strong"/>', 700],
    ['<break strength="x-strong"/>', 1200],
    ['<break strength="weak" time="2s"/>', 2000],
  ])('%s → %i ms', (tag, ms) => {
    const segments = parseSsml(`<speak>a ${tag} b</speak>`, { language }).segments;
    expect(segments.map((s) => s.type)).toEqual(['speech', 'break', 'speech']);
    expect(segments[1]).toMatchObject({ type: 'break', ms, reason: 'break', source_start: 9 });
  });

  test('strength="none" is no pause', () => {
    expect(parseSsml('<speak>a <break strength="none"/> b</speak>', { language }).segments.map((s) => s.type)).toEqual([
      'speech',
    ]);
  });

  test('sentences and paragraphs pause between, not at the ends; the longer pause wins', () => {
    const { segments } = parseSsml('<speak><p><s>One.</s><s>Two.</s></p><p>Three.</p></speak>', { language });
    expect(
      segments.map((s) => (s.type === 'break' ? `${s.reason}:${s.ms}` : s.type === 'speech' ? s.text : s.type)),
    ).toEqual(['One.', 'sentence:300', 'Two.', 'paragraph:600', 'Three.']);
  });

  test('an explicit break replaces the sentence pause next to it', () => {
    const { segments } = parseSsml('<speak><s>One.</s><break time="2s"/><s>Two.</s></speak>', { language });
    expect(segments.filter((s) => s.type === 'break')).toEqual([
      expect.objectContaining({ ms: 2000, reason: 'break' }),
    ]);
  });

  test('mark is kept as a marker', () => {
    const input = '<speak>a <mark name="here"/> b</speak>';
    expect(parseSsml(input, { language }).segments[1]).toEqual({
      type: 'mark',
      name: 'here',
      source_start: 9,
      source_end: 28,
    });
  });
});

describe('prosody and emphasis', () => {
  const prosodyOf = (input: string): Array<[string, number, number, number]> =>
    speech(parseSsml(input, { language }).segments).map((s) => [
      s.text,
      s.prosody.rate,
      s.prosody.pitch,
      s.prosody.volume,
    ]);
  test.each([
    ['rate x-slow', '<prosody rate="x-slow">a</prosody>', [['a', 0.5, 0, 1]]],
    ['rate slow', '<prosody rate="slow">a</prosody>', [['a', 0.75, 0, 1]]],
    ['rate fast', '<prosody rate="fast">a</prosody>', [['a', 1.25, 0, 1]]],
    ['rate x-fast', '<prosody rate="x-fast">a</prosody>', [['a', 1.75, 0, 1]]],
    ['rate 80%', '<prosody rate="80%">a</prosody>', [['a', 0.8, 0, 1]]],
    ['rate +10%', '<prosody rate="+10%">a</prosody>', [['a', 1.1, 0, 1]]],
    ['rate 1.2', '<prosody rate="1.2">a</prosody>', [['a', 1.2, 0, 1]]],
    ['pitch +2st', '<prosody pitch="+2st">a</prosody>', [['a', 1, 2, 1]]],
    ['pitch high', '<prosody pitch="high">a</prosody>', [['a', 1, 3, 1]]],
    ['pitch -10%', '<prosody pitch="-10%">a</prosody>', [['a', 1, -1.824, 1]]],
    ['volume +6dB', '<prosody volume="+6dB">a</prosody>', [['a', 1, 0, 1.995]]],
    ['volume silent', '<prosody volume="silent">a</prosody>', [['a', 1, 0, 0]]],
    [
      'nested multiplies and adds',
      '<prosody rate="1.5" pitch="+2st">a <prosody rate="1.2" pitch="+3st">b</prosody></prosody>',
      [
        ['a', 1.5, 2, 1],
        ['b', 1.8, 5, 1],
      ],
    ],
    [
      'clamped to 2.0 and +12',
      '<prosody rate="1.5" pitch="+10st"><prosody rate="1.5" pitch="+10st">b</prosody></prosody>',
      [['b', 2, 12, 1]],
    ],
    ['clamped to 0.5', '<prosody rate="20%">a</prosody>', [['a', 0.5, 0, 1]]],
    ['emphasis strong', '<emphasis level="strong">a</emphasis>', [['a', 0.85, 2, 1.41]]],
    ['emphasis default moderate', '<emphasis>a</emphasis>', [['a', 0.92, 1, 1.19]]],
    ['emphasis reduced', '<emphasis level="reduced">a</emphasis>', [['a', 1.05, -1, 0.71]]],
    ['same prosody joins one segment', 'a <prosody rate="100%">b</prosody> c', [['a b c', 1, 0, 1]]],
  ])('%s', (_name, inner, expected) => {
    expect(prosodyOf(`<speak>${inner}</speak>`)).toEqual(expected);
  });

  test('clamping is a warning', () => {
    expect(parseSsml('<speak><prosody rate="3">a</prosody></speak>', { language }).warnings).toEqual([
      '<prosody> rate 3 is outside 0.5..2 and was clamped to 2 at line 1, column 8',
    ]);
  });
});

describe('warnings', () => {
  test.each([
    ['<speak><foo>x</foo></speak>', 'unknown element <foo> read as its text at line 1, column 8'],
    ['<speak>\n  <bar name="x">y</bar></speak>', 'unknown element <bar> read as its text at line 2, column 3'],
    [
      '<speak><voice name="a" gender="female">y</voice></speak>',
      'attribute gender of <voice> is not supported and was ignored at line 1, column 32',
    ],
    [
      '<speak><lang xml:lang="fr">x</lang></speak>',
      '<lang xml:lang="fr"> is read in the request\'s voice and language (en-US) at line 1, column 8',
    ],
    ['<speak><audio src="a.wav"/></speak>', '<audio> is not played; its text, if any, is read at line 1, column 8'],
    [
      '<speak><phoneme alphabet="x-sampa" ph="t@">to</phoneme></speak>',
      '<phoneme alphabet="x-sampa"> is not supported (only ipa); its text is read at line 1, column 27',
    ],
    [
      '<speak><say-as interpret-as="currency">5</say-as></speak>',
      '<say-as interpret-as="currency"> is not supported; its text is read as written at line 1, column 30',
    ],
    [
      '<speak><say-as interpret-as="cardinal">many</say-as></speak>',
      '<say-as interpret-as="cardinal"> could not read "many" that way; read as ordinary text at line 1, column 8',
    ],
    [
      '<speak><prosody pitch="200Hz">x</prosody></speak>',
      'pitch="200Hz" in hertz depends on the voice and is ignored (use semitones, e.g. +2st) at line 1, column 24',
    ],
    [
      '<speak><break time="1s" foo="x"/></speak>',
      'attribute foo of <break> is not supported and was ignored at line 1, column 30',
    ],
    [
      '<speak xml:lang="de-DE">x</speak>',
      '<speak xml:lang="de-DE"> is read in the request\'s language and voice (en-US) at line 1, column 18',
    ],
  ])('%s', (input, warning) => {
    expect(parseSsml(input, { language }).warnings).toEqual([warning]);
  });

  test('the phoneme of another alphabet is read as its text, without IPA', () => {
    const [segment] = speech(
      parseSsml('<speak><phoneme alphabet="x-sampa" ph="t@">to</phoneme></speak>', { language }).segments,
    );
    expect(segment.pronunciations).toEqual([]);
  });
});

describe('errors with line and column', () => {
  test.each([
    ['<speak><prosody rate="fast">x</speak>', '</speak> does not close <prosody> (opened at line 1, column 8)', 1, 30],
    ['<speak>\n<p>x</s></p></speak>', '</s> does not close <p> (opened at line 2, column 1)', 2, 5],
    ['<speak><emphasis>x', '<emphasis> is never closed', 1, 8],
    ['Hello <emphasis>x', '<emphasis> is never closed', 1, 7],
    ['<speak>\n  <break time="abc"/></speak>', '<break> time="abc" is not a duration (e.g. 500ms, 1s, 1.5s)', 2, 16],
    [
      '<speak><break strength="loud"/></speak>',
      '<break> strength="loud" is not one of none, x-weak, weak, medium, strong, x-strong',
      1,
      25,
    ],
    ['<speak><break time="11s"/></speak>', '<break> time="11s" is longer than 10 s', 1, 21],
    ['<speak>' + '<break time="10s"/>'.repeat(7) + '</speak>', 'the breaks add up to more than 60 s', 1, 122],
    ['<speak a=1>x</speak>', 'not well-formed XML: unquoted attribute value', 1, 10],
    ['<speak>x</speak> tail', 'text outside the root element', 1, 22],
    ['<speak>&nbsp;</speak>', 'unknown entity (only &amp; &lt; &gt; &quot; &apos; and &#…; are accepted)', 1, 8],
    [
      '<speak><prosody rate="fastest">x</prosody></speak>',
      '<prosody> rate="fastest" is not a rate (x-slow, slow, medium, fast, x-fast, a percentage such as 80% or +10%, or a multiplier such as 1.2)',
      1,
      23,
    ],
    [
      '<speak><emphasis level="loud">x</emphasis></speak>',
      '<emphasis> level="loud" is not one of strong, moderate, none, reduced',
      1,
      25,
    ],
    ['<speak><say-as>5</say-as></speak>', '<say-as> needs an interpret-as attribute', 1, 8],
    [
      '<speak><say-as interpret-as="date" format="qq">5</say-as></speak>',
      '<say-as> format="qq" is not a date format (mdy, dmy, ymd, ydm, md, dm, ym, my)',
      1,
      44,
    ],
    ['<speak><sub>x</sub></speak>', '<sub> needs an alias attribute', 1, 8],
    ['<speak><phoneme>x</phoneme></speak>', '<phoneme> needs a ph attribute', 1, 8],
    [
      '<speak><say-as interpret-as="digits"><break/>1</say-as></speak>',
      '<break> is not allowed inside <say-as>, which holds text only',
      1,
      38,
    ],
    ['<speak><speak>x</speak></speak>', '<speak> must be the root element', 1, 8],
    ['Hi <speak>x</speak>', '<speak> must be the root element (the document does not start with it)', 1, 4],
    ['<speak><mark/></speak>', '<mark> needs a name attribute', 1, 8],
  ])('%s', (input, message, line, column) => {
    const error = errorOf(input);
    expect(error.message).toBe(`${message} at line ${line}, column ${column}`);
    expect([error.line, error.column]).toEqual([line, column]);
  });

  test('columns count Unicode characters', () => {
    const error = errorOf('<speak>😀😀 <break time="x"/></speak>');
    expect(error.column).toBe(24);
  });

  test('documents over 100 KB are refused', () => {
    expect(errorOf(`<speak>${'a'.repeat(102_400)}</speak>`).message).toMatch(/more than the 102400 accepted/);
  });

  test('nesting deeper than 32 is refused', () => {
    expect(errorOf(`<speak>${'<p>'.repeat(32)}x${'</p>'.repeat(32)}</speak>`).message).toMatch(
      /^elements are nested more than 32 deep at line 1, column 101$/,
    );
    expect(() =>
      parseSsml(`<speak>${'<emphasis>'.repeat(31)}x${'</emphasis>'.repeat(31)}</speak>`, { language }),
    ).not.toThrow();
  });
});

describe('hostile markup', () => {
  test('Festival Scheme stays inert text in one speech segment', () => {
    const result = parseSsml('<speak>"); (system "rm -rf /") ("</speak>', { language });
    expect(result.segments).toHaveLength(1);
    expect(result.segments[0]).toMatchObject({ type: 'speech', text: '"); (system "rm -rf /") ("' });
  });

  test('<voice name> says its content in that voice, the innermost one winning, with a pause at each change', () => {
    const input =
      '<speak>Narrator here. <voice name="en-us-slt">She speaks. <voice name="en-us-joe">He answers.</voice> She again.</voice> Back.</speak>';
    const result = parseSsml(input, { language, normalize: false });
    const speech = result.segments.filter((segment) => segment.type === 'speech');
    expect(speech.map((segment) => [segment.text, segment.voice])).toEqual([
      ['Narrator here.', null],
      ['She speaks.', 'en-us-slt'],
      ['He answers.', 'en-us-joe'],
      ['She again.', 'en-us-slt'],
      ['Back.', null],
    ]);
    // Between every two speech segments: a pause.
    result.segments.forEach((segment, index) => {
      if (segment.type === 'speech' && index > 0) expect(result.segments[index - 1].type).toBe('break');
    });
    expect(result.voices).toEqual(['en-us-slt', 'en-us-joe']);
    expect(result.warnings).toEqual([]);
    // Word spans still index the document as sent.
    for (const word of result.words) expect(input.slice(word.source_start, word.source_end)).toBe(word.word);
  });

  test('<voice> without a name is an error with its place', () => {
    expect(() => parseSsml('<speak><voice>x</voice></speak>', { language })).toThrow(/<voice> needs a name attribute/);
  });

  test('CDATA markup is text, not a voice change', () => {
    const result = parseSsml('<speak><![CDATA[<voice name="x">]]></speak>', { language, normalize: false });
    expect(result.segments).toEqual([expect.objectContaining({ type: 'speech', text: '<voice name="x">' })]);
    expect(result.warnings).toEqual([]);
  });

  test('an escaped break is read as text, not obeyed', () => {
    const result = parseSsml('<speak>&lt;break time="10s"/&gt;</speak>', { language, normalize: false });
    expect(result.segments).toEqual([expect.objectContaining({ type: 'speech', text: '<break time="10s"/>' })]);
  });

  test.each([
    ['internal subset', '<!DOCTYPE speak [<!ENTITY a "aaaaaaaaaa">]><speak>&a;</speak>'],
    [
      'billion laughs',
      '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>\n<speak>&lol2;</speak>',
    ],
    ['external entity (XXE)', '<!DOCTYPE speak [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><speak>&xxe;</speak>'],
    ['plain DOCTYPE', '<!DOCTYPE speak><speak>x</speak>'],
  ])('DTD refused: %s', (_name, input) => {
    expect(errorOf(input).message).toMatch(
      /^DTDs \(<!DOCTYPE …>\) and entity declarations are not accepted at line \d+, column 1$/,
    );
  });

  test('a DOCTYPE inside the content is refused too', () => {
    expect(errorOf('Hi <!DOCTYPE x>').message).toMatch(/^DTDs/);
  });

  test('huge attribute values are refused', () => {
    expect(errorOf(`<speak><sub alias="${'a'.repeat(1001)}">x</sub></speak>`).message).toBe(
      'attribute alias is longer than 1000 characters at line 1, column 20',
    );
  });

  test.each([
    ['markup characters', 'tə(m)ˈɑ', 'contains "(" (U+0028), which is not an IPA character'],
    ['upper-case X-SAMPA', 't@mA:', 'contains "@" (U+0040), which is not an IPA character'],
    ['digits', 'ma3', 'contains "3" (U+0033), which is not an IPA character'],
    ['a control character', 'a&#x7f;b', 'contains U+007F, which is not an IPA character'],
    ['an empty transcription', '', 'is empty'],
  ])('phoneme refused: %s', (_name, ph, problem) => {
    expect(errorOf(`<speak><phoneme ph="${ph}">x</phoneme></speak>`).message).toBe(
      `<phoneme> ph ${problem} at line 1, column 21`,
    );
  });

  test('XML-forbidden control characters are refused by the tokenizer', () => {
    expect(errorOf('<speak>a\u0007b</speak>').message).toMatch(/^not well-formed XML/);
  });
});

describe('spans into the SSML source', () => {
  const spans = (input: string, options = {}): string[] =>
    parseSsml(input, { language, ...options }).words.map(
      (w) => `${w.word}=${input.slice(w.source_start, w.source_end)}`,
    );
  test.each([
    ['plain words', '<speak>Hello world</speak>', ['Hello=Hello', 'world=world']],
    ['entity', '<speak>R &amp; D</speak>', ['R=R', 'and=&amp;', 'D=D']],
    ['normalized', '<speak>paid $5</speak>', ['paid=paid', 'five=$5', 'dollars=$5']],
    ['say-as → its content', '<speak><say-as interpret-as="cardinal"> 12 </say-as></speak>', ['twelve=12']],
    ['sub → the written form', '<speak><sub alias="Doctor">Dr.</sub> Who</speak>', ['Doctor=Dr.', 'Who=Who']],
    ['across breaks and prosody', 'a<break/><prosody rate="slow">b</prosody>', ['a=a', 'b=b']],
    ['CDATA', '<speak><![CDATA[x y]]></speak>', ['x=x', 'y=y']],
    ['wrapped input offsets', 'Hi <emphasis>there</emphasis>', ['Hi=Hi', 'there=there']],
  ])('%s', (_name, input, expected) => {
    expect(spans(input)).toEqual(expected);
  });

  test('a phoneme carries its IPA over its grapheme, with both spans', () => {
    const input = '<speak>I say <phoneme alphabet="ipa" ph="təˈmɑːtoʊ">tomato</phoneme>.</speak>';
    const [segment] = speech(parseSsml(input, { language }).segments);
    expect(segment.text).toBe('I say tomato.');
    expect(segment.pronunciations).toEqual([
      {
        ipa: 'təˈmɑːtoʊ',
        start: 6,
        end: 12,
        source_start: input.indexOf('tomato<'),
        source_end: input.indexOf('tomato<') + 6,
      },
    ]);
  });

  test('the pronunciation dictionary applies to text, not inside sub', () => {
    const lexicon = [{ graphemes: ['Ada'], phoneme: 'ˈeɪdə' }];
    const input = '<speak>Ada and <sub alias="Ada">A.</sub></speak>';
    const [segment] = speech(parseSsml(input, { language, lexicon }).segments);
    expect(segment.text).toBe('Ada and Ada');
    expect(segment.pronunciations).toEqual([{ ipa: 'ˈeɪdə', start: 0, end: 3, source_start: 7, source_end: 10 }]);
  });
});

/** Names every plain object inherits: a table lookup by client text must not find them (issue 41, item 5). */
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'prototype'];

describe('prototype names in attribute values', () => {
  test.each(PROTOTYPE_NAMES)('<break strength="%s"/> is an error, not a lifted break cap', (name) => {
    expect(errorOf(`<speak>a<break strength="${name}"/>b</speak>`).message).toBe(
      `<break> strength="${name}" is not one of none, x-weak, weak, medium, strong, x-strong at line 1, column 26`,
    );
  });

  test('twelve 10 s breaks after a prototype-named strength still hit the 60 s cap', () => {
    const breaks = '<break time="10s"/>a'.repeat(12);
    for (const name of PROTOTYPE_NAMES)
      expect(() => parseSsml(`<speak>a<break strength="${name}"/>${breaks}</speak>`, { language })).toThrow(SsmlError);
  });

  test.each(PROTOTYPE_NAMES.flatMap((name) => ['rate', 'pitch', 'volume'].map((key) => [key, name])))(
    '<prosody %s="%s"> is an error, not NaN',
    (key, name) => {
      expect(errorOf(`<speak><prosody ${key}="${name}">a</prosody></speak>`).message).toMatch(
        new RegExp(`^<prosody> ${key}="${name.replace(/[$]/g, '\\$&')}" is not a`),
      );
    },
  );

  test.each(PROTOTYPE_NAMES)('<emphasis level="%s"> is an error, not NaN or silence', (name) => {
    expect(errorOf(`<speak><emphasis level="${name}">a</emphasis></speak>`).message).toBe(
      `<emphasis> level="${name}" is not one of strong, moderate, none, reduced at line 1, column 25`,
    );
  });

  test.each(PROTOTYPE_NAMES.filter((name) => name !== '__proto__'))(
    'an element named <%s> is an unknown element read as its text',
    (name) => {
      const result = parseSsml(`<speak><${name} a="b">x</${name}></speak>`, { language });
      expect(result.plainText).toBe('x');
      expect(result.warnings).toEqual([`unknown element <${name}> read as its text at line 1, column 8`]);
    },
  );

  test.each(PROTOTYPE_NAMES)('an attribute named %s is ignored with a warning', (name) => {
    const result = parseSsml(`<speak><break time="1s" ${name}="x"/>a</speak>`, { language });
    expect(result.segments[0]).toMatchObject({ type: 'break', ms: 1000 });
    expect(result.warnings).toEqual([
      `attribute ${name} of <break> is not supported and was ignored at line 1, column ${27 + name.length}`,
    ]);
  });

  test('every prosody, emphasis and break value stays a finite number', () => {
    for (const name of PROTOTYPE_NAMES)
      for (const markup of [
        `<prosody rate="${name}">a</prosody>`,
        `<prosody pitch="${name}">a</prosody>`,
        `<prosody volume="${name}">a</prosody>`,
        `<emphasis level="${name}">a</emphasis>`,
        `<break strength="${name}"/>`,
      ]) {
        let segments: Segment[] = [];
        try {
          segments = parseSsml(`<speak>b ${markup} c</speak>`, { language }).segments;
        } catch (error) {
          if (!(error instanceof SsmlError)) throw error;
        }
        for (const segment of segments)
          if (segment.type === 'speech') expect(Object.values(segment.prosody).every(Number.isFinite)).toBe(true);
          else if (segment.type === 'break') expect(Number.isFinite(segment.ms)).toBe(true);
      }
  });
});

describe('many warnings (issue 41, item 4)', () => {
  test('at most 100 are kept, then one line counts the rest', () => {
    const { warnings } = parseSsml(`<speak>a${'<x/>'.repeat(500)}</speak>`, { language });
    expect(warnings).toHaveLength(101);
    expect(warnings[0]).toBe('unknown element <x> read as its text at line 1, column 9');
    expect(warnings[99]).toBe(`unknown element <x> read as its text at line 1, column ${9 + 99 * 4}`);
    expect(warnings[100]).toBe('and 400 more warnings like these');
  });

  test('lines and columns stay exact past newlines and surrogate pairs', () => {
    const { warnings } = parseSsml('<speak>😀\n<x/> 😀😀<y/>\n\n  <z/></speak>', { language });
    expect(warnings).toEqual([
      'unknown element <x> read as its text at line 2, column 1',
      'unknown element <y> read as its text at line 2, column 8',
      'unknown element <z> read as its text at line 4, column 3',
    ]);
  });
});

describe('one parse for a preview (issue 41, item 4)', () => {
  test.each([
    ['<speak>a</speak>', true],
    ['<speak>%</speak>', false],
    ['<speak> <break time="1s"/> </speak>', false],
    ['<speak><sub alias="five">%</sub></speak>', true],
    ['<speak><say-as interpret-as="cardinal">5</say-as></speak>', true],
    ['<speak><phoneme ph="a">ah</phoneme></speak>', true],
  ])('%s speaks: %s (as the text is written, whatever normalization says)', (input, speaks) => {
    expect(parseSsml(input, { language }).speaks).toBe(speaks);
    expect(parseSsml(input, { language, normalize: false }).speaks).toBe(speaks);
  });
});
