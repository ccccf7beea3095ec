import { z } from 'zod';

/**
 * The protocol half of ElevenLabs' stream-input WebSocket
 * (`/v1/text-to-speech/{voice_id}/stream-input`): its messages, when the text
 * received so far is ready to speak, and its errors. streamInputSocket.ts
 * serves it.
 */

/** ElevenLabs' default chunk schedule: characters buffered before the 1st, 2nd, 3rd and every later piece. */
export const DEFAULT_CHUNK_SCHEDULE = [120, 160, 250, 290];
/** What `try_trigger_generation` needs in the buffer before it generates (the schedule's own floor). */
export const TRIGGER_MINIMUM = 50;
/** `inactivity_timeout`: seconds without a message before the connection is closed. */
export const DEFAULT_INACTIVITY_SECONDS = 20;
export const MAX_INACTIVITY_SECONDS = 180;

const VoiceSettings = z
  .object({
    stability: z.number().min(0).max(1).optional(),
    similarity_boost: z.number().min(0).max(1).optional(),
    style: z.number().min(0).max(1).optional(),
    use_speaker_boost: z.boolean().optional(),
    speed: z.number().min(0.7).max(1.2).optional(),
  })
  .passthrough();

/** One client message: the first (`text: " "`, settings, key) and every later one share this shape. */
export const StreamInputMessage = z
  .object({
    text: z.string().max(10_000),
    try_trigger_generation: z.boolean().optional(),
    flush: z.boolean().optional(),
    voice_settings: VoiceSettings.optional(),
    generation_config: z
      .object({ chunk_length_schedule: z.array(z.number().int().min(50).max(500)).min(1).max(16).optional() })
      .passthrough()
      .optional(),
    'xi-api-key': z.string().max(512).optional(),
    xi_api_key: z.string().max(512).optional(),
    authorization: z.string().max(1024).optional(),
  })
  .passthrough();
export type StreamInputMessage = z.infer<typeof StreamInputMessage>;

/** The error a connection is closed with: the message sent before the close, and the close's code. */
export class StreamInputError extends Error {
  constructor(
    readonly error: string,
    message: string,
    readonly closeCode: number,
  ) {
    super(message);
  }

  /** ElevenLabs' error message on the socket. */
  toMessage(): { message: string; error: string; code: number } {
    return { message: this.message, error: this.error, code: this.closeCode };
  }
}

/** 1008: policy violation (the key); 1007: a message that is not what the protocol says; 1011: the service failed. */
export const CLOSE = { policy: 1008, invalidData: 1007, internal: 1011, normal: 1000 } as const;

/** Parses one frame's text as a message, or throws the error to close with. */
export function parseStreamInputMessage(raw: string): StreamInputMessage {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new StreamInputError('invalid_message', 'The message is not JSON.', CLOSE.invalidData);
  }
  const parsed = StreamInputMessage.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'message';
    throw new StreamInputError('invalid_message', `${where}: ${issue?.message ?? 'invalid'}`, CLOSE.invalidData);
  }
  return parsed.data;
}

/** The key of a first message (`xi-api-key`, `xi_api_key`, or `authorization: Bearer …`), if it carries one. */
export function keyOfMessage(message: StreamInputMessage): string | undefined {
  const bearer = message.authorization?.replace(/^Bearer\s+/i, '').trim();
  return message['xi-api-key'] ?? message.xi_api_key ?? (bearer || undefined);
}

/** `inactivity_timeout` from the query: seconds, default 20, at most 180. */
export function inactivitySecondsOf(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_INACTIVITY_SECONDS;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_INACTIVITY_SECONDS)
    throw new StreamInputError(
      'invalid_request',
      `inactivity_timeout must be a whole number of seconds from 1 to ${MAX_INACTIVITY_SECONDS}.`,
      CLOSE.policy,
    );
  return seconds;
}

/** Where the last sentence end in `text` is (the index just past it), or -1. */
function lastSentenceEnd(text: string): number {
  let end = -1;
  for (const match of text.matchAll(/[.!?…;:]["')\]]*(?=\s)/g)) end = match.index + match[0].length;
  return end;
}

/**
 * The text received so far and when a piece of it is ready to speak: at a
 * sentence end (so the first audio follows the first complete sentence), once
 * the buffer reaches the chunk schedule's next length (cut at a word end), on
 * `try_trigger_generation` past TRIGGER_MINIMUM characters, and all of it on
 * `flush` or at the end. A piece never splits a word still arriving: the text
 * after the last whitespace waits for more.
 */
export class TextBuffer {
  private text = '';
  private pieces = 0;

  constructor(private readonly schedule: number[] = DEFAULT_CHUNK_SCHEDULE) {}

  /** Adds a message's text; returns the pieces now ready, in order (none, or one). */
  add(text: string, options: { flush?: boolean; tryTrigger?: boolean } = {}): string[] {
    this.text += text;
    if (options.flush) return this.take(this.text.length);
    const sentenceEnd = lastSentenceEnd(this.text);
    if (sentenceEnd > 0 && this.text.slice(0, sentenceEnd).trim() !== '') return this.take(sentenceEnd);
    const wordEnd = this.text.search(/\s\S*$/);
    const threshold = this.schedule[Math.min(this.pieces, this.schedule.length - 1)] ?? TRIGGER_MINIMUM;
    const length = this.text.trim().length;
    if (wordEnd > 0 && (length >= threshold || (options.tryTrigger && length >= TRIGGER_MINIMUM)))
      return this.take(wordEnd);
    return [];
  }

  /** The rest, at the end of the input. */
  end(): string[] {
    return this.take(this.text.length);
  }

  private take(until: number): string[] {
    const piece = this.text.slice(0, until).trim();
    this.text = this.text.slice(until).replace(/^\s+/, '');
    if (piece === '') return [];
    this.pieces += 1;
    return [piece];
  }
}
