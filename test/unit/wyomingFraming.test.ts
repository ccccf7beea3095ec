import { isDeepStrictEqual } from 'node:util';
import { encodeEvent, EventDecoder, FramingError, WYOMING_VERSION, type WyomingEvent } from '../../api/wyoming/framing';

/** The Wyoming framing: a JSON header line, then data and payload bytes, read however the bytes are split. */

const AUDIO = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7) % 256));
const EVENTS: WyomingEvent[] = [
  { type: 'describe', data: {} },
  { type: 'synthesize', data: { text: 'Grüße, 世界! Line\nbreak.', voice: { name: 'en-us-joe' } } },
  { type: 'audio-chunk', data: { rate: 24000, width: 2, channels: 1 }, payload: AUDIO },
  { type: 'audio-stop', data: {} },
];
const STREAM = Buffer.concat(EVENTS.map(encodeEvent));

const decodeAll = (pieces: Buffer[], decoder = new EventDecoder()) => pieces.flatMap((piece) => decoder.push(piece));

describe('Wyoming framing', () => {
  it('writes the header line as the wyoming package does: type, version and the lengths, data and payload after it', () => {
    const bytes = encodeEvent(EVENTS[2]);
    const newline = bytes.indexOf(0x0a);
    const header = JSON.parse(bytes.subarray(0, newline).toString('utf8'));
    const data = JSON.stringify(EVENTS[2].data);
    expect(header).toEqual({
      type: 'audio-chunk',
      version: WYOMING_VERSION,
      data_length: Buffer.byteLength(data),
      payload_length: AUDIO.length,
    });
    expect(bytes.subarray(newline + 1, newline + 1 + header.data_length).toString('utf8')).toBe(data);
    expect(bytes.subarray(newline + 1 + header.data_length)).toEqual(AUDIO);
    // No data, no payload: the header alone.
    expect(encodeEvent({ type: 'describe', data: {} }).toString('utf8')).toBe(
      `{"type":"describe","version":"${WYOMING_VERSION}"}\n`,
    );
  });

  it('reads the events back when the bytes arrive whole', () => {
    expect(decodeAll([STREAM])).toEqual(EVENTS);
  });

  it('reads the same events when the bytes are split in two at every offset', () => {
    const wrong: number[] = [];
    for (let at = 0; at <= STREAM.length; at++) {
      const decoder = new EventDecoder();
      const events = decodeAll([STREAM.subarray(0, at), STREAM.subarray(at)], decoder);
      if (!isDeepStrictEqual(events, EVENTS) || decoder.buffered !== 0) wrong.push(at);
    }
    expect(wrong).toEqual([]);
  });

  it('reads the same events when the bytes arrive one at a time, each event as soon as its last byte is there', () => {
    const decoder = new EventDecoder();
    const ends: number[] = [];
    const events: WyomingEvent[] = [];
    for (let at = 0; at < STREAM.length; at++) {
      const got = decoder.push(STREAM.subarray(at, at + 1));
      if (got.length) ends.push(at + 1);
      events.push(...got);
    }
    expect(events).toEqual(EVENTS);
    let end = 0;
    expect(ends).toEqual(EVENTS.map((event) => (end += encodeEvent(event).length)));
  });

  it("merges the data section over the header's own data, takes null lengths as none and skips blank lines", () => {
    const data = Buffer.from('{"text":"from the section"}');
    const bytes = Buffer.concat([
      Buffer.from(
        `\n{"type":"synthesize","data":{"text":"header","voice":{"name":"x"}},"data_length":${data.length}}\n`,
      ),
      data,
      Buffer.from('\r\n{"type":"audio-stop","data_length":null,"payload_length":0}\n'),
    ]);
    expect(decodeAll([bytes])).toEqual([
      { type: 'synthesize', data: { text: 'from the section', voice: { name: 'x' } } },
      { type: 'audio-stop', data: {} },
    ]);
  });

  it.each([
    ['not JSON', 'hello\n', /not valid JSON/],
    ['a JSON array', '[1,2]\n', /must be a JSON object/],
    ['no type', '{"data":{}}\n', /"type"/],
    ['data not an object', '{"type":"x","data":[1]}\n', /"data"/],
    ['a negative length', '{"type":"x","data_length":-1}\n', /data_length/],
    ['a fractional length', '{"type":"x","payload_length":1.5}\n', /payload_length/],
    ['a data section that is not an object', '{"type":"x","data_length":2}\n[]', /data section/],
  ])('refuses %s', (_what, bytes, message) => {
    expect(() => decodeAll([Buffer.from(bytes)])).toThrow(message);
  });

  it('refuses a header line longer than the limit before its newline arrives, and lengths beyond the limits', () => {
    const limits = { maxHeaderBytes: 64, maxDataBytes: 100, maxPayloadBytes: 1000 };
    const decoder = new EventDecoder(limits);
    expect(decoder.push(Buffer.from('{"type":"describe",'))).toEqual([]);
    expect(() => decoder.push(Buffer.alloc(64, 0x20))).toThrow(FramingError);
    expect(() => new EventDecoder(limits).push(Buffer.from('{"type":"x","data_length":101}\n'))).toThrow(/at most 100/);
    expect(() => new EventDecoder(limits).push(Buffer.from('{"type":"x","payload_length":1001}\n'))).toThrow(
      /at most 1000/,
    );
    // At the limits: read.
    const atLimit = new EventDecoder(limits).push(
      Buffer.concat([Buffer.from('{"type":"x","payload_length":1000}\n'), Buffer.alloc(1000)]),
    );
    expect(atLimit).toHaveLength(1);
  });
});
