import { SentenceBuffer } from '../../api/wyoming/sentences';
import {
  inWyomingOrder,
  resolveWyomingVoice,
  UnknownVoiceError,
  type WyomingVoiceRow,
  wyomingVoices,
} from '../../api/wyoming/voices';

/** What Wyoming's info lists, how a synthesize's voice is resolved, and how a stream's text becomes sentences. */

const row = (fields: Partial<WyomingVoiceRow> & Pick<WyomingVoiceRow, 'id'>): WyomingVoiceRow => ({
  category: 'premade',
  name: fields.id,
  language: 'en-US',
  engine: 'piper',
  engine_voice: fields.id,
  quality: 'neural',
  sort_order: 0,
  licence: null,
  ...fields,
});

const ROWS = inWyomingOrder([
  row({ id: 'en-us-slt', engine: 'flite', quality: 'classic', sort_order: 1 }),
  row({ id: 'my-clone', category: 'cloned', name: 'Grandma', engine: null, engine_voice: null, sort_order: 0 }),
  row({ id: 'en-gb-alan', language: 'en-GB', engine: 'rhvoice', quality: 'classic', sort_order: 2 }),
  row({ id: 'en-us-joe', name: 'Joe', engine_voice: 'en_US-joe-medium', sort_order: 3 }),
  row({ id: 'en-gb-vctk-p225', language: 'en-GB', engine_voice: 'en_GB-vctk-medium#p225', sort_order: 4 }),
  row({ id: 'en-gb-vctk-p226', language: 'en-GB', engine_voice: 'en_GB-vctk-medium#p226', sort_order: 5 }),
  row({ id: 'de-de-thorsten', language: 'de-DE', engine_voice: 'de_DE-thorsten-medium', sort_order: 6 }),
]);

describe('Wyoming voices', () => {
  it('orders neural voices first (the catalog, then the clones), then the classic ones', () => {
    expect(ROWS.map((voice) => voice.id)).toEqual([
      'en-us-joe',
      'en-gb-vctk-p225',
      'en-gb-vctk-p226',
      'de-de-thorsten',
      'my-clone',
      'en-us-slt',
      'en-gb-alan',
    ]);
  });

  it("lists a multi-speaker model once, named as wyoming-piper names it, with its speakers; every voice with its languages and its engine's attribution", () => {
    const voices = wyomingVoices(ROWS, 'https://voice.example');
    expect(voices.map((voice) => [voice.name, voice.languages, voice.speakers])).toEqual([
      ['en-us-joe', ['en-US'], null],
      ['en_GB-vctk-medium', ['en-GB'], [{ name: 'p225' }, { name: 'p226' }]],
      ['de-de-thorsten', ['de-DE'], null],
      ['my-clone', ['en-US'], null],
      ['en-us-slt', ['en-US'], null],
      ['en-gb-alan', ['en-GB'], null],
    ]);
    expect(voices[0]).toMatchObject({
      attribution: { name: 'Piper' },
      installed: true,
      description: 'Joe (en-US, neural)',
    });
    expect(voices[3]).toMatchObject({
      attribution: { url: 'https://voice.example' },
      description: 'Grandma (en-US, your cloned voice)',
    });
    expect(voices[4].attribution.name).toBe('Flite');
  });

  it.each([
    [{ name: 'en-us-slt' }, 'en-us-slt'],
    [{ name: 'EN-US-JOE' }, 'en-us-joe'],
    [{ name: 'en_US-joe-medium' }, 'en-us-joe'],
    [{ name: 'en_GB-vctk-medium', speaker: 'p226' }, 'en-gb-vctk-p226'],
    [{ name: 'en_GB-vctk-medium' }, 'en-gb-vctk-p225'],
    [{ name: 'my-clone' }, 'my-clone'],
    [{ language: 'de_DE' }, 'de-de-thorsten'],
    [{ language: 'en-GB' }, 'en-gb-vctk-p225'],
    [{ language: 'de_AT' }, 'de-de-thorsten'],
    [{ language: 'en' }, 'en-us-joe'],
    [{}, 'en-us-joe'],
  ])('resolves %j to %s', (request, id) => {
    expect(resolveWyomingVoice(ROWS, request).id).toBe(id);
  });

  it.each([
    [{ name: 'nobody' }, /No voice named nobody/],
    [{ name: 'en_GB-vctk-medium', speaker: 'p999' }, /no speaker p999/],
    [{ language: 'fi_FI' }, /No voice speaks fi_FI/],
  ])('refuses %j', (request, message) => {
    expect(() => resolveWyomingVoice(ROWS, request)).toThrow(UnknownVoiceError);
    expect(() => resolveWyomingVoice(ROWS, request)).toThrow(message);
  });
});

describe("a Wyoming stream's sentences", () => {
  it('gives each sentence once the text after it has begun, and the rest at the end', () => {
    const buffer = new SentenceBuffer();
    expect(buffer.add('Turning on the ')).toEqual([]);
    expect(buffer.add('porch light.')).toEqual([]);
    expect(buffer.add(' It costs 3.')).toEqual(['Turning on the porch light.']);
    expect(buffer.add('5 euros! Done')).toEqual(['It costs 3.5 euros!']);
    expect(buffer.finish()).toBe('Done');
    expect(buffer.finish()).toBe('');
  });

  it('keeps what says nothing with the next sentence, and drops it at the end', () => {
    const buffer = new SentenceBuffer();
    expect(buffer.add('... ')).toEqual([]);
    expect(buffer.add('Hello there. Next')).toEqual(['... Hello there.']);
    expect(buffer.finish()).toBe('Next');
    expect(buffer.add('!!! ')).toEqual([]);
    expect(buffer.finish()).toBe('');
  });

  it('lets a sentence without an end go at a space once it is longer than the limit', () => {
    const buffer = new SentenceBuffer(20);
    expect(buffer.add('one two three four five six seven')).toEqual(['one two three four']);
    expect(buffer.finish()).toBe('five six seven');
  });
});
