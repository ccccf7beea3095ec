import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { ImportError } from './importError';

/**
 * An EPUB's zip, read with yauzl entry by entry, never trusting what the
 * archive declares: each entry is inflated as a stream and counted as it
 * comes, and the reading stops as soon as the entry passes its share (a
 * ratio to its compressed size, with a floor for small files) or the whole
 * book passes its total. yauzl refuses entry names that leave the archive
 * (`../`, absolute, drive letters, backslashes); such a zip is unreadable.
 */

export interface ZipLimits {
  /** All entries read, uncompressed, together. */
  maxUncompressedBytes: number;
  maxEntries: number;
}

/** Deflate reaches ~1000:1 on repeated bytes; text and markup compress 3-10×. */
const MAX_RATIO = 100;
/** Small entries may compress better than the ratio (a file of spaces); this much is always allowed. */
const RATIO_FLOOR_BYTES = 1024 * 1024;

export interface ZipArchive {
  names: ReadonlySet<string>;
  read(name: string): Promise<Buffer>;
  close(): void;
}

export async function openZip(bytes: Buffer, limits: ZipLimits): Promise<ZipArchive> {
  const zip = await new Promise<ZipFile>((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, validateEntrySizes: true }, (error, opened) => {
      if (error) reject(unreadable(error));
      else resolve(opened);
    });
  });
  if (zip.entryCount > limits.maxEntries) {
    zip.close();
    throw new ImportError(
      'document_too_large',
      `The archive holds ${zip.entryCount} files; at most ${limits.maxEntries} are read.`,
    );
  }
  const entries = await listEntries(zip);
  let totalRead = 0;
  return {
    names: new Set(entries.keys()),
    close: () => zip.close(),
    async read(name) {
      const entry = entries.get(name);
      if (!entry)
        throw new ImportError('document_unreadable', `The book refers to ${name}, which it does not contain.`);
      if (entry.isEncrypted()) {
        throw new ImportError('document_protected', `${name} is encrypted: the book is protected.`);
      }
      const entryLimit = Math.max(RATIO_FLOOR_BYTES, entry.compressedSize * MAX_RATIO);
      const content = await readEntry(zip, entry, Math.min(entryLimit, limits.maxUncompressedBytes - totalRead));
      totalRead += content.length;
      return content;
    },
  };
}

function listEntries(zip: ZipFile): Promise<Map<string, Entry>> {
  return new Promise((resolve, reject) => {
    const entries = new Map<string, Entry>();
    zip.on('entry', (entry: Entry) => {
      if (!entry.fileName.endsWith('/')) entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', (error: Error) => reject(unreadable(error)));
    zip.readEntry();
  });
}

function readEntry(zip: ZipFile, entry: Entry, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error) {
        reject(unreadable(error));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          stream.destroy();
          reject(
            new ImportError(
              'document_too_large',
              `${entry.fileName} inflates past what a book may hold (${limit} bytes): the archive is refused.`,
            ),
          );
          return;
        }
        chunks.push(chunk);
      });
      stream.on('error', (streamError: Error) => reject(unreadable(streamError)));
      stream.on('end', () => resolve(Buffer.concat(chunks)));
    });
  });
}

function unreadable(error: Error): ImportError {
  return new ImportError('document_unreadable', `The archive is broken or unsafe: ${error.message}.`);
}
