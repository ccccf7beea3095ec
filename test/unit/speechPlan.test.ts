import { planSpeech } from '../../synthesis/speechPlan';
import { documentWords } from '../../audio/render';
import { deliveredWords } from '../../audio/timestamps';
import { espeakInput, ipaToEspeak } from '../../engines/espeakPhonemes';
import { compileLexicon } from '../../text/lexicon';

const plan = (text: string, extra: Partial<Parameters<typeof planSpeech>[0]> = {}) =>
  planSpeech({ text, textType: 'ssml', streaming: false, language: 'en-US', normalize: true, ...extra });

describe('the speech plan', () => {
  it('cuts plain text as before: slices of the text, the default pause', () => {
    const text = 'One. Two. Three.';
    expect(planSpeech({ text, textType: 'text', streaming: true, language: 'en-US', normalize: true })).toEqual({
      chunks: [{ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' }],
      warnings: [],
      pauseSeconds: null,
    });
    expect(planSpeech({ text, textType: 'text', streaming: false, language: 'en-US', normalize: true }).chunks).toEqual(
      [{ text }],
    );
  });

  it('reads SSML into chunks with their prosody, the silence before and after, and spans into the document', () => {
    const text =
      '<speak><break time="200ms"/>Hello <break time="500ms"/> <prosody rate="slow" pitch="+2st">$5m</prosody> world<break time="1s"/></speak>';
    const { chunks, pauseSeconds, warnings } = plan(text);
    expect(pauseSeconds).toBe(0);
    expect(warnings).toEqual([]);
    expect(
      chunks.map((chunk) => [
        chunk.text,
        chunk.read!.pauseBeforeSeconds,
        chunk.read!.pauseAfterSeconds,
        chunk.read!.prosody,
      ]),
    ).toEqual([
      ['Hello', 0.2, 0, { rate: 1, pitch: 0, volume: 1 }],
      ['five million dollars', 0.5, 0, { rate: 0.75, pitch: 2, volume: 1 }],
      ['world', 0, 1, { rate: 1, pitch: 0, volume: 1 }],
    ]);
    const at = text.indexOf('$5m');
    expect(chunks[1].read!.words).toEqual(
      ['five', 'million', 'dollars'].map((word) => ({ word, source_start: at, source_end: at + 3 })),
    );
  });

  it('pauses between sentences and paragraphs, not at the edges', () => {
    const { chunks } = plan('<speak><p><s>One.</s><s>Two.</s></p><p>Three.</p></speak>');
    // Adjacent text of one prosody is one segment: the pauses fall where the segments meet.
    expect(chunks.map((chunk) => chunk.read!.pauseBeforeSeconds)).toEqual(
      chunks.map((_, index) => (index === 0 ? 0 : expect.any(Number))),
    );
    expect(chunks[0].read!.pauseBeforeSeconds).toBe(0);
    expect(chunks.at(-1)!.read!.pauseAfterSeconds).toBe(0);
  });

  it('carries <phoneme> and dictionary IPA as stretches of the chunk text', () => {
    const lexicon = compileLexicon([{ graphemes: ['Nguyen'], phoneme: 'ŋwiən' }]);
    const { chunks } = plan('<speak>Say <phoneme alphabet="ipa" ph="təˈmɑːtoʊ">tomato</phoneme> to Nguyen.</speak>', {
      lexicon,
    });
    expect(chunks).toHaveLength(1);
    const { text, read } = chunks[0];
    expect(read!.pronunciations.map((p) => [p.ipa, text.slice(p.start, p.end)])).toEqual([
      ['təˈmɑːtoʊ', 'tomato'],
      ['ŋwiən', 'Nguyen'],
    ]);
  });

  it('cuts a long segment into chunks of at most 400 characters, with the default pause between them', () => {
    const sentence = 'This sentence is here to make the text long enough. ';
    const { chunks } = plan(`<speak><prosody rate="fast">${sentence.repeat(20)}</prosody></speak>`);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(400);
    expect(chunks.slice(1).every((chunk) => chunk.read!.pauseBeforeSeconds === null)).toBe(true);
    expect(chunks.flatMap((chunk) => chunk.read!.words)).toHaveLength(20 * 10);
  });

  it('leaves markup inside text as text: escaped tags, CDATA and Scheme are words, never segments', () => {
    const { chunks, warnings } = plan(
      '<speak>a &lt;break time="10s"/&gt; b <![CDATA[<break time="10s"/>]]> "); (system "rm -rf /") ("<unknown>c</unknown></speak>',
      { normalize: false },
    );
    expect(chunks).toHaveLength(1);
    expect(chunks[0].text).toContain('<break time="10s"/>');
    expect(chunks[0].text).toContain('(system "rm -rf /")');
    expect(chunks[0].read!.pauseAfterSeconds).toBe(0);
    expect(warnings).toEqual([
      expect.stringMatching(/unknown element <unknown> read as its text at line 1, column \d+/),
    ]);
  });

  it('times a read chunk as words of the document: words of one span join, shifted by the silence before', () => {
    const document = '<speak>I paid $5m.</speak>';
    const at = document.indexOf('$5m');
    const read = [
      { word: 'I', source_start: 7, source_end: 8 },
      { word: 'paid', source_start: 9, source_end: 13 },
      ...['five', 'million', 'dollars'].map((word) => ({ word, source_start: at, source_end: at + 3 })),
    ];
    const spoken = 'I paid five million dollars.';
    const timed = ['I', 'paid', 'five', 'million', 'dollars'].map((word, index) => ({
      word,
      start: index,
      end: index + 0.5,
      char_start: spoken.indexOf(word),
      char_end: spoken.indexOf(word) + word.length,
    }));
    const words = documentWords(spoken, timed, read, 2);
    expect(words.map((word) => [word.char_start, word.char_end, word.start, word.end])).toEqual([
      [7, 8, 2, 2.5],
      [9, 13, 3, 3.5],
      [at, at + 3, 4, 6.5],
    ]);
    expect(deliveredWords(document, [{ text: null, seconds: 8, words }], 0).map((word) => word.word)).toEqual([
      'I',
      'paid',
      '$5m',
    ]);
  });
});

describe('eSpeak phoneme input', () => {
  it('turns IPA into eSpeak mnemonics', () => {
    expect(ipaToEspeak('təˈmɑːtoʊ')).toBe("t@'mA:toU");
    expect(ipaToEspeak('ˈθɪŋk ðæt')).toBe("'TINk Dat");
    expect(ipaToEspeak('ˈdʒʌdʒ')).toBe("'dZVdZ");
  });

  it('puts the phonemes in [[…]] and escapes the text around them, so nothing else is phoneme input', () => {
    const text = 'Say [[x]] tomato ]] now';
    const start = text.indexOf('tomato');
    const input = espeakInput(text, [{ ipa: 'təˈmɑːtoʊ', start, end: start + 6 }]);
    expect(input).toBe("Say [ [x] ]  [[t@'mA:toU]]  ] ] now");
    expect(input.match(/\[\[/g)).toHaveLength(1);
  });

  it('cannot be made to close the brackets from the IPA', () => {
    expect(ipaToEspeak("a]] [[ '(system)")).toBe("a 'system");
    expect(espeakInput('word', [{ ipa: ']]x', start: 0, end: 4 }])).toBe(' [[x]] ');
  });
});
