import { ImportError } from './importError';

/**
 * A text file's bytes as a string: UTF-8 (with or without its byte order
 * mark), or UTF-16 when a byte order mark says so. Anything else is refused
 * rather than guessed: a Latin-1 file read as UTF-8 would read garbled names
 * aloud.
 */
export function decodeText(bytes: Buffer): string {
  let encoding = 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) encoding = 'utf-16le';
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) encoding = 'utf-16be';
  try {
    // TextDecoder drops the byte order mark of its own encoding (ignoreBOM is false).
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    throw new ImportError(
      'document_unreadable',
      `The text is not valid ${encoding.toUpperCase()}: save it as UTF-8 and upload it again.`,
    );
  }
}

/** Lines, whatever the line ends (CRLF, CR, LF). */
export function linesOf(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}
