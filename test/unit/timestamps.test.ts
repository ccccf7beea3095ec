import { captionCues, toSrt, toVtt } from '../../api/routes/tts/timestamps';
import { deliveredWords, offsetMap, textTokens, timeTokens } from '../../audio/timestamps';
import { normalizeForSpeech } from '../../engines/text';
import { festivalWords } from '../../engines/festival';
import { piperWords, withDurationOutput } from '../../engines/piper/durations';

describe('word alignment', () => {
  it('gives a number the span of every word the engine said for it, and keeps the words around it in place', () => {
    const words = [
      { text: 'I', start: 0, end: 0.2 },
      { text: 'paid', start: 0.3, end: 0.6 },
      { text: 'forty', start: 0.7, end: 1.0 },
      { text: 'two', start: 1.0, end: 1.3 },
      { text: 'dollars', start: 1.3, end: 1.8 },
      { text: 'today', start: 2.0, end: 2.5 },
    ];
    const timed = timeTokens('I paid $42 today.', words);
    expect(timed.map((word) => [word.word, word.start, word.end])).toEqual([
      ['I', 0, 0.2],
      ['paid', 0.3, 0.6],
      ['42', 0.7, 1.8],
      ['today', 2.0, 2.5],
    ]);
  });

  it('splits one phonetic word said for two text words (espeak-ng\'s "of the") by their letters, within the clause', () => {
    const clause = (start: number, end: number) => ({ start, end });
    const text = 'Top of the hill, at last.';
    const words = [
      { text: 'tˈɑːp', start: 0, end: 0.4, weight: 3, clause: clause(0, 15) },
      { text: 'ʌvðə', start: 0.4, end: 0.8, weight: 4, clause: clause(0, 15) },
      { text: 'hˈɪl', start: 0.8, end: 1.2, weight: 3, clause: clause(0, 15) },
      { text: 'æt', start: 1.5, end: 1.7, weight: 2, clause: clause(17, 24) },
      { text: 'lˈæst', start: 1.7, end: 2.1, weight: 4, clause: clause(17, 24) },
    ];
    const timed = timeTokens(text, words);
    expect(timed.map((word) => word.word)).toEqual(['Top', 'of', 'the', 'hill', 'at', 'last']);
    expect(timed[1].start).toBe(0.4);
    expect(timed[1].end).toBeCloseTo(0.4 + 0.4 * (2 / 5));
    expect(timed[2].end).toBe(0.8);
    expect(timed[4]).toMatchObject({ start: 1.5, end: 1.7, char_start: 17, char_end: 19 });
  });

  it('maps offsets of the normalized text back to the original', () => {
    const original = 'Hello,\u200b   world\r\n\r\n\r\nagain';
    const normalized = normalizeForSpeech(original);
    const map = offsetMap(original, normalized);
    for (const token of textTokens(normalized))
      expect(original.slice(map[token.start], map[token.end - 1] + 1)).toBe(token.word);
  });

  it('joins chunks with their pauses and counts offsets in code points', () => {
    const text = '😀 One two. Three.';
    const chunks = [
      {
        text: '😀 One two.',
        seconds: 1,
        words: [
          { word: 'One', start: 0.1, end: 0.4, char_start: 3, char_end: 6 },
          { word: 'two', start: 0.5, end: 0.9, char_start: 7, char_end: 10 },
        ],
      },
      { text: 'Three.', seconds: 0.8, words: [{ word: 'Three', start: 0.05, end: 0.7, char_start: 0, char_end: 5 }] },
    ];
    const words = deliveredWords(text, chunks, 0.35);
    expect(words.map((word) => [word.word, word.char_start, word.char_end])).toEqual([
      ['One', 2, 5],
      ['two', 6, 9],
      ['Three', 11, 16],
    ]);
    expect(words[2].start).toBeCloseTo(1.4);
    expect(words.map((word) => Array.from(text).slice(word.char_start, word.char_end).join(''))).toEqual([
      'One',
      'two',
      'Three',
    ]);
  });
});

describe('engine timing', () => {
  it("reads Festival's words file: utterance offset plus the word's time, with its token", () => {
    const words = festivalWords('0 16000 1 0.100000 0.500000 doctor\tDr\n16000 16000 2 0.200000 0.400000 forty\t$42\n');
    expect(words).toEqual([
      { text: 'doctor', start: 0.1, end: 0.5, token: { index: 1, text: 'Dr' } },
      { text: 'forty', start: 1.2, end: 1.4, token: { index: 2, text: '$42' } },
    ]);
  });

  it("times Piper's phonetic words from the frames of each id (a phoneme owns its pad), sentence after sentence", () => {
    const map = { _: [0], '^': [1], $: [2], a: [10], b: [11], ' ': [3], '.': [4] };
    const clause = { start: 0, end: 5 };
    const sentences = [
      { phonemes: ['a', 'b', ' ', 'a', '.'], clauses: Array(5).fill(clause) },
      { phonemes: ['b'], clauses: [clause] },
    ];
    // ids: ^ _ a _ b _ ' ' _ a _ . _ $  |  ^ _ b _ $
    const frames = [
      [1, 1, 2, 1, 2, 1, 1, 1, 3, 1, 2, 1, 1],
      [1, 1, 4, 1, 1],
    ];
    const words = piperWords(sentences, frames, map, 256, 0);
    expect(words.map((word) => [word.text, word.start, word.end])).toEqual([
      ['ab', 2, 8],
      ['a', 10, 14],
      ['b', 18 + 2, 18 + 7],
    ]);
  });

  it('adds the Ceil output of a model graph as a graph output (protobuf edit), and refuses a graph without one', () => {
    const field = (number: number, payload: Buffer) =>
      Buffer.concat([Buffer.from([(number << 3) | 2, payload.length]), payload]);
    const node = (op: string, output: string) =>
      field(1, Buffer.concat([field(2, Buffer.from(output)), field(4, Buffer.from(op))]));
    const model = Buffer.concat([
      Buffer.from([0x08, 0x07]),
      field(7, Buffer.concat([node('Exp', 'e'), node('Ceil', 'w_ceil'), field(12, field(1, Buffer.from('output')))])),
    ]);
    const edited = withDurationOutput(model)!;
    expect(edited.output).toBe('w_ceil');
    // The graph grew by one output holding the name, and its length prefix says so.
    const added = field(12, field(1, Buffer.from('w_ceil')));
    expect(Buffer.from(edited.model)).toEqual(
      Buffer.concat([Buffer.from([0x08, 0x07, 0x3a, model[3] + added.length]), model.subarray(4), added]),
    );
    expect(withDurationOutput(Buffer.concat([Buffer.from([0x08, 0x07]), field(7, node('Exp', 'e'))]))).toBeNull();
  });
});

describe('captions', () => {
  const text = 'Hello there. This is a test!';
  const words = [
    { word: 'Hello', start: 0, end: 0.4, char_start: 0, char_end: 5 },
    { word: 'there', start: 0.45, end: 0.9, char_start: 6, char_end: 11 },
    { word: 'This', start: 1.3, end: 1.5, char_start: 13, char_end: 17 },
    { word: 'is', start: 1.5, end: 1.6, char_start: 18, char_end: 20 },
    { word: 'a', start: 1.6, end: 1.65, char_start: 21, char_end: 22 },
    { word: 'test', start: 1.7, end: 3723.5, char_start: 23, char_end: 27 },
  ];
  it('cues at sentence ends, in SRT and WebVTT clocks', () => {
    const cues = captionCues(text, words);
    expect(cues.map((cue) => cue.text)).toEqual(['Hello there', 'This is a test']);
    expect(toSrt(cues)).toBe(
      '1\n00:00:00,000 --> 00:00:00,900\nHello there\n\n2\n00:00:01,300 --> 01:02:03,500\nThis is a test\n',
    );
    expect(toVtt(cues)).toBe(
      'WEBVTT\n\n00:00:00.000 --> 00:00:00.900\nHello there\n\n00:00:01.300 --> 01:02:03.500\nThis is a test\n',
    );
  });
});
