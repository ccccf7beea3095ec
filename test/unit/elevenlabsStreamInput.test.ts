import {
  inactivitySecondsOf,
  keyOfMessage,
  parseStreamInputMessage,
  StreamInputError,
  TextBuffer,
} from '../../api/routes/elevenlabs/streamInput';

/** Feeds words one message each, as an agent's tokens arrive; returns the pieces in order. */
const feed = (buffer: TextBuffer, words: string[]) => words.flatMap((word) => buffer.add(`${word} `));

describe('ElevenLabs stream-input protocol', () => {
  it('makes a piece at the first sentence end, not before', () => {
    const buffer = new TextBuffer();
    expect(feed(buffer, ['Hello', 'there'])).toEqual([]);
    expect(feed(buffer, ['friend.'])).toEqual(['Hello there friend.']);
    expect(feed(buffer, ['How', 'are', 'you?'])).toEqual(['How are you?']);
    expect(buffer.end()).toEqual([]);
  });

  it('keeps the text after the last sentence end for the next piece', () => {
    const buffer = new TextBuffer();
    expect(buffer.add('One. Two')).toEqual(['One.']);
    expect(buffer.add('. Three ')).toEqual(['Two.']);
    expect(buffer.end()).toEqual(['Three']);
  });

  it('cuts at a word end once the chunk schedule is reached, the schedule moving on per piece', () => {
    const buffer = new TextBuffer([50, 60]);
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`);
    const pieces = feed(buffer, words);
    expect(pieces[0]!.length).toBeGreaterThanOrEqual(50);
    expect(pieces[1]!.length).toBeGreaterThanOrEqual(60);
    expect([...pieces, ...buffer.end()].join(' ')).toBe(words.join(' '));
  });

  it('never splits a word still arriving', () => {
    const buffer = new TextBuffer([50]);
    expect(buffer.add('a'.repeat(60))).toEqual([]);
    expect(buffer.add('bc more')).toEqual([`${'a'.repeat(60)}bc`]);
  });

  it('flushes everything on flush, and try_trigger_generation only past the minimum', () => {
    const buffer = new TextBuffer();
    expect(buffer.add('short ', { tryTrigger: true })).toEqual([]);
    expect(buffer.add('words', { flush: true })).toEqual(['short words']);
    expect(buffer.add(`${'x '.repeat(30)}`, { tryTrigger: true })).toEqual([Array(30).fill('x').join(' ')]);
    expect(buffer.add(' ', { flush: true })).toEqual([]);
  });

  it('parses messages and says what is wrong in ElevenLabs error shape', () => {
    const first = parseStreamInputMessage(
      JSON.stringify({ text: ' ', generation_config: { chunk_length_schedule: [50] }, xi_api_key: 'vk_1' }),
    );
    expect(keyOfMessage(first)).toBe('vk_1');
    expect(keyOfMessage(parseStreamInputMessage('{"text":" ","authorization":"Bearer tok"}'))).toBe('tok');
    expect(keyOfMessage(parseStreamInputMessage('{"text":" ","xi-api-key":"vk_2"}'))).toBe('vk_2');
    for (const raw of [
      '{not json',
      '{"flush":true}',
      '{"text":" ","generation_config":{"chunk_length_schedule":[5]}}',
    ]) {
      expect(() => parseStreamInputMessage(raw)).toThrow(StreamInputError);
      try {
        parseStreamInputMessage(raw);
      } catch (error) {
        expect((error as StreamInputError).toMessage()).toEqual({
          message: expect.any(String),
          error: 'invalid_message',
          code: 1007,
        });
      }
    }
  });

  it('takes inactivity_timeout from 1 to 180 seconds, 20 by default', () => {
    expect(inactivitySecondsOf(undefined)).toBe(20);
    expect(inactivitySecondsOf('180')).toBe(180);
    for (const bad of ['0', '181', '2.5', 'x']) expect(() => inactivitySecondsOf(bad)).toThrow(StreamInputError);
  });
});
