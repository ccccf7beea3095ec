import {
  encodeText,
  escapeForEspeak,
  escapeForPico,
  normalizeForSpeech,
  splitText,
  transliterate,
} from '../../engines/text';

const squeeze = (text: string): string => text.replace(/\s+/g, '');
const length = (text: string): number => Array.from(text).length;
const graphemes = (text: string): string[] =>
  Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text), ({ segment }) => segment);

/** A small deterministic PRNG (mulberry32), so failures reproduce. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  'word',
  'the',
  'Straße',
  'naïve',
  'e\u0301',
  ' ',
  ' ',
  ' ',
  '  ',
  '\n',
  '\n\n',
  '.',
  '. ',
  '! ',
  '? ',
  ', ',
  '; ',
  ': ',
  '1,000',
  '12:30',
  'Mr. ',
  '…',
  '—',
  '。',
  '、',
  '，',
  '你好',
  '世界',
  'こんにちは',
  'สวัสดี',
  '안녕하세요',
  'Привет',
  'مرحبا',
  'नमस्ते',
  '👍',
  '👩‍👩‍👧',
  '🇨🇿',
  '\t',
  '"',
  '(',
  ')',
  'a'.repeat(40),
  'x',
];

function randomText(next: () => number): string {
  const count = 1 + Math.floor(next() * 120);
  let text = '';
  for (let index = 0; index < count; index++) text += PIECES[Math.floor(next() * PIECES.length)];
  return text;
}

function expectLossless(text: string, maxChars: number): string[] {
  const chunks = splitText(text, maxChars);
  expect(squeeze(chunks.join(''))).toBe(squeeze(text));
  for (const chunk of chunks) {
    expect(chunk).toBe(chunk.trim());
    expect(chunk.length).toBeGreaterThan(0);
    // Only a single grapheme longer than the limit may exceed it.
    if (length(chunk) > maxChars) expect(graphemes(chunk)).toHaveLength(1);
  }
  return chunks;
}

describe('splitText', () => {
  const samples: Record<string, string> = {
    english:
      'It was a bright cold day in April, and the clocks were striking thirteen. Winston Smith, his chin nuzzled into his breast in an effort to escape the vile wind, slipped quickly through the glass doors of Victory Mansions! Did he? Yes.',
    chinese:
      '你好，世界。今天天气很好，我们去公园散步吧！你觉得怎么样？我觉得非常好。这是一个很长的句子没有任何标点符号一直写下去直到超过限制为止看看会发生什么事情',
    japanese: 'これは日本語の文章です。句読点があります、そして長い文もあります。おわり',
    noPunctuation:
      'this text has no punctuation at all and just keeps going word after word without any sentence end in sight '.repeat(
        5,
      ),
    longWord: `prefix ${'supercalifragilistic'.repeat(30)} suffix. Next sentence here.`,
    noSpaces: 'x'.repeat(1234),
    newlines: 'Line one without a stop\nLine two\n\nParagraph two starts here. And goes on.\r\nWindows line.',
    numbers: 'The price rose from 1,000.50 to 2,345.75 dollars at 12:30 on 3.4.2024, i.e. fast.',
    emoji: '👍👍👍 Great job 👩‍👩‍👧 family 🇨🇿🇨🇿 flags. '.repeat(8),
    combining: 'Cafe\u0301 e\u0301le\u0300ve na\u0308ive '.repeat(20),
    thai: 'สวัสดีครับ นี่คือการทดสอบเสียงสั้นๆ ของฉัน '.repeat(10),
    arabic: 'مرحبا، هذا اختبار قصير لصوتي. '.repeat(10),
    markup: '<speak>hello</speak> $(rm -rf /) ; echo `id` && -v --help [[h@loU]] &amp; <break time="3s"/>',
  };

  it.each(Object.entries(samples))('never drops or repeats text: %s', (_, text) => {
    for (const maxChars of [1, 2, 7, 20, 50, 120, 400, 5000]) expectLossless(text, maxChars);
  });

  it('never drops or repeats text on 400 random mixed-script inputs', () => {
    const next = random(42);
    for (let round = 0; round < 400; round++) {
      const text = randomText(next);
      expectLossless(text, 1 + Math.floor(next() * 150));
    }
  });

  it('returns nothing for empty or whitespace-only text', () => {
    expect(splitText('', 100)).toEqual([]);
    expect(splitText(' \n\t ', 100)).toEqual([]);
  });

  it('keeps text that fits as one chunk', () => {
    expect(splitText('  Hello there. How are you?  ', 100)).toEqual(['Hello there. How are you?']);
  });

  it('cuts at sentence boundaries first, packing whole sentences', () => {
    const text = 'First sentence here. Second one is here. Third sentence now. Fourth and last.';
    const chunks = expectLossless(text, 45);
    expect(chunks).toEqual(['First sentence here. Second one is here.', 'Third sentence now. Fourth and last.']);
  });

  it('cuts CJK sentences at full-width stops without spaces', () => {
    const chunks = expectLossless('你好，世界。今天天气很好。我们去散步吧！', 8);
    expect(chunks).toEqual(['你好，世界。', '今天天气很好。', '我们去散步吧！']);
  });

  it('splits an over-long sentence at clauses, not inside "1,000"', () => {
    const text = 'We counted 1,000 birds, then we counted the trees, and finally we went home to rest.';
    const chunks = expectLossless(text, 40);
    expect(chunks[0]).toBe('We counted 1,000 birds,');
    expect(chunks.every((chunk) => length(chunk) <= 40)).toBe(true);
  });

  it('splits between words when a clause is still too long, and inside a word only as a last resort', () => {
    const sentence = 'alpha beta gamma delta epsilon zeta eta theta iota kappa';
    const words = expectLossless(sentence, 16);
    // No word was cut: the chunks' words are exactly the sentence's words.
    expect(words.join(' ').split(' ')).toEqual(sentence.split(' '));
    expect(words).toContain('alpha beta gamma');
    const long = expectLossless('a'.repeat(25), 10);
    expect(long).toEqual(['a'.repeat(10), 'a'.repeat(10), 'a'.repeat(5)]);
  });

  it('keeps punctuation with its word when a sentence must be cut', () => {
    const chunks = expectLossless('Finally the third one ends the paragraph.', 40);
    expect(chunks).toEqual(['Finally the third one ends the', 'paragraph.']);
  });

  it('never cuts inside a grapheme (emoji sequences, combining accents)', () => {
    const family = '👩‍👩‍👧';
    const chunks = expectLossless(family.repeat(3), 5);
    expect(chunks).toEqual([family, family, family]);
    expect(expectLossless('e\u0301'.repeat(4), 3)).toEqual(['e\u0301', 'e\u0301', 'e\u0301', 'e\u0301']);
  });

  it('rejects a non-positive limit', () => {
    expect(() => splitText('text', 0)).toThrow(RangeError);
  });
});

describe('normalizeForSpeech', () => {
  it('composes to NFC, drops control characters and tidies whitespace', () => {
    expect(normalizeForSpeech('  Cafe\u0301\u0000 au\u0007\tlait \r\n\r\n\r\n\r\nnext\u200b line\ufeff  ')).toBe(
      'Café au lait\n\nnext line',
    );
  });

  it('keeps joiners that Indic and Persian scripts need', () => {
    expect(normalizeForSpeech('क्\u200dष')).toBe('क्\u200dष');
  });
});

describe('engine escaping', () => {
  it('breaks espeak-ng phoneme brackets so they are spoken', () => {
    const escaped = escapeForEspeak('[[h@loU]] and [[[x]]]');
    expect(escaped).not.toContain('[[');
    expect(escaped).not.toContain(']]');
    expect(squeeze(escaped)).toBe(squeeze('[[h@loU]] and [[[x]]]'));
  });

  it('turns pico markup characters into entities', () => {
    expect(escapeForPico('<speak>Tom & "Jerry"</speak>')).toBe('&lt;speak&gt;Tom &amp; "Jerry"&lt;/speak&gt;');
  });

  it('encodes Czech in ISO-8859-2 and strips what a charset lacks', () => {
    expect([...encodeText('řžšůě', 'latin2')]).toEqual([0xf8, 0xbe, 0xb9, 0xf9, 0xec]);
    expect(encodeText('Příliš žluťoučký kůň', 'latin2')).toHaveLength(20);
    expect([...encodeText('äöå', 'latin1')]).toEqual([0xe4, 0xf6, 0xe5]);
    expect(encodeText('naïve “café” — Łódź €', 'ascii').toString('latin1')).toBe('naive "cafe"  -  Lodz  euro ');
    expect(encodeText('日本', 'latin1').toString('latin1')).toBe('  ');
    expect(encodeText('Ελλάδα', 'utf8').toString('utf8')).toBe('Ελλάδα');
  });

  it('transliterates everything outside a voice alphabet', () => {
    expect(transliterate('Hörst du, Ñandú?', /[äöåÄÖÅ]/u)).toBe('Hörst du, Nandu?');
  });
});
