/**
 * The Wyoming protocol's framing (Home Assistant's voice protocol, over TCP):
 * every event is one line of JSON, the header,
 *
 *     {"type": "audio-chunk", "version": "1.10.0", "data_length": 52, "payload_length": 2048}\n
 *
 * then `data_length` bytes of JSON (an object, merged over the header's own
 * `data`, if any) and `payload_length` bytes of payload (audio). Both lengths
 * are optional (absent, null or 0: none). Written here once: the decoder takes
 * bytes as they arrive, split anywhere, and gives back whole events.
 */

export interface WyomingEvent {
  type: string;
  data: Record<string, unknown>;
  payload?: Buffer;
}

/** The protocol version this server speaks (that of the `wyoming` package it is tested with). */
export const WYOMING_VERSION = '1.10.0';

export interface FramingLimits {
  /** Bytes of one header line, without its newline. */
  maxHeaderBytes: number;
  /** Bytes of one event's data section. */
  maxDataBytes: number;
  /** Bytes of one event's payload. */
  maxPayloadBytes: number;
}

export const DEFAULT_FRAMING_LIMITS: FramingLimits = {
  maxHeaderBytes: 64 * 1024,
  // A synthesize carries its text here: far more than any plan's max_text_length.
  maxDataBytes: 1024 * 1024,
  // A TTS server takes no audio; a client's payload is read and dropped.
  maxPayloadBytes: 1024 * 1024,
};

/** Bytes that are not Wyoming framing, or exceed a limit: the connection cannot stay in step and is closed. */
export class FramingError extends Error {
  override name = 'FramingError';
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parseJson(bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new FramingError(`The ${what} is not valid JSON.`);
  }
}

function lengthField(header: Record<string, unknown>, field: string, max: number): number {
  const value = header[field];
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new FramingError(`${field} must be a non-negative integer.`);
  if (value > max) throw new FramingError(`${field} is ${value} bytes; at most ${max} are taken.`);
  return value;
}

type Stage =
  | { part: 'header' }
  | { part: 'data'; event: WyomingEvent; dataLength: number; payloadLength: number }
  | { part: 'payload'; event: WyomingEvent; payloadLength: number };

/**
 * Reads events from a byte stream: `push` each piece as it arrives and get the
 * events it completed. Throws FramingError on anything that is not an event
 * or exceeds the limits (the decoder is then unusable). Blank lines between
 * events are skipped.
 */
export class EventDecoder {
  private stage: Stage = { part: 'header' };
  /** The current part's bytes so far (a header line without newline, or data or payload bytes). */
  private pieces: Buffer[] = [];
  private size = 0;

  constructor(private readonly limits: FramingLimits = DEFAULT_FRAMING_LIMITS) {}

  /** Bytes of an unfinished event held (0 between events). */
  get buffered(): number {
    return this.size;
  }

  push(bytes: Buffer): WyomingEvent[] {
    const events: WyomingEvent[] = [];
    let offset = 0;
    while (offset < bytes.length) {
      const stage = this.stage;
      if (stage.part === 'header') {
        const newline = bytes.indexOf(0x0a, offset);
        const end = newline === -1 ? bytes.length : newline;
        if (this.size + end - offset > this.limits.maxHeaderBytes)
          throw new FramingError(`A header line is longer than ${this.limits.maxHeaderBytes} bytes.`);
        this.keep(bytes.subarray(offset, end));
        if (newline === -1) break;
        offset = newline + 1;
        const line = this.take();
        if (line.toString('utf8').trim() === '') continue;
        this.begin(this.header(line), events);
        continue;
      }
      const length = stage.part === 'data' ? stage.dataLength : stage.payloadLength;
      const taken = Math.min(length - this.size, bytes.length - offset);
      this.keep(bytes.subarray(offset, offset + taken));
      offset += taken;
      if (this.size < length) break;
      const part = this.take();
      if (stage.part === 'data') {
        const data = parseJson(part, 'data section');
        if (!isObject(data)) throw new FramingError('The data section must be a JSON object.');
        Object.assign(stage.event.data, data);
        this.afterData(stage.event, stage.payloadLength, events);
      } else {
        stage.event.payload = part;
        this.finish(stage.event, events);
      }
    }
    return events;
  }

  private header(line: Buffer): { event: WyomingEvent; dataLength: number; payloadLength: number } {
    const header = parseJson(line, 'header line');
    if (!isObject(header)) throw new FramingError('A header line must be a JSON object.');
    const { type, data } = header;
    if (typeof type !== 'string' || type === '') throw new FramingError('A header needs a "type" string.');
    if (data !== undefined && data !== null && !isObject(data))
      throw new FramingError('A header\'s "data" must be a JSON object.');
    return {
      event: { type, data: isObject(data) ? { ...data } : {} },
      dataLength: lengthField(header, 'data_length', this.limits.maxDataBytes),
      payloadLength: lengthField(header, 'payload_length', this.limits.maxPayloadBytes),
    };
  }

  private begin(
    { event, dataLength, payloadLength }: { event: WyomingEvent; dataLength: number; payloadLength: number },
    events: WyomingEvent[],
  ) {
    if (dataLength > 0) this.stage = { part: 'data', event, dataLength, payloadLength };
    else this.afterData(event, payloadLength, events);
  }

  private afterData(event: WyomingEvent, payloadLength: number, events: WyomingEvent[]) {
    if (payloadLength > 0) this.stage = { part: 'payload', event, payloadLength };
    else this.finish(event, events);
  }

  private finish(event: WyomingEvent, events: WyomingEvent[]) {
    this.stage = { part: 'header' };
    events.push(event);
  }

  private keep(bytes: Buffer) {
    if (bytes.length === 0) return;
    this.pieces.push(bytes);
    this.size += bytes.length;
  }

  private take(): Buffer {
    const whole = this.pieces.length === 1 ? this.pieces[0] : Buffer.concat(this.pieces, this.size);
    this.pieces = [];
    this.size = 0;
    return whole;
  }
}

/**
 * One event's bytes, as the `wyoming` package writes them: the header line
 * (type, version and the lengths), the data as its own JSON section (none
 * when empty), then the payload.
 */
export function encodeEvent({ type, data, payload }: WyomingEvent): Buffer {
  const dataBytes = Object.keys(data).length > 0 ? Buffer.from(JSON.stringify(data), 'utf8') : null;
  const header: Record<string, unknown> = { type, version: WYOMING_VERSION };
  if (dataBytes) header.data_length = dataBytes.length;
  if (payload && payload.length > 0) header.payload_length = payload.length;
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`, 'utf8')];
  if (dataBytes) parts.push(dataBytes);
  if (payload && payload.length > 0) parts.push(payload);
  return Buffer.concat(parts);
}
