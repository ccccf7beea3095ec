import path from 'node:path';
import { emptyMetadata, type ImportedDocument } from '../document';
import { decodeText, linesOf } from './decodeText';
import { importEpub } from './epub';
import { importHtml } from './html';
import { ImportError } from './importError';
import { importMarkdown } from './markdown';
import { importPdf } from './pdf';
import { plainTextChapters } from './plainText';

/**
 * Studio's import: bytes of an EPUB, PDF, Markdown, plain text or HTML
 * document to one document model. The type is sniffed from the content
 * (a zip whose mimetype says EPUB, `%PDF-`), then taken from the format the
 * caller names, the file's extension or its content type.
 */

export type ImportFormat = 'epub' | 'pdf' | 'markdown' | 'text' | 'html';

export interface ImportOptions {
  filename?: string;
  contentType?: string;
  /** The format of a text body the caller names (`{format, text}` in JSON). */
  format?: 'markdown' | 'text' | 'html';
  /** Input bytes allowed. */
  maxBytes: number;
  /** Characters of readable text allowed after extraction. */
  maxCharacters: number;
  /** Bytes an EPUB may inflate to, all entries read together; default 4 × maxBytes. */
  maxUncompressedBytes?: number;
  /** Plain text: a line (e.g. `***`) that separates chapters, instead of finding chapter headings. */
  chapterSeparator?: string;
  /** Keep the cover page, title page, contents and copyright page as chapters. */
  includeFrontMatter?: boolean;
}

/** Files an EPUB may hold: real books have hundreds. */
const MAX_ZIP_ENTRIES = 10_000;

export async function importDocument(bytes: Buffer, options: ImportOptions): Promise<ImportedDocument> {
  if (bytes.length > options.maxBytes) {
    throw new ImportError(
      'document_too_large',
      `The document is ${bytes.length} bytes; at most ${options.maxBytes} are accepted.`,
    );
  }
  const format = sniffFormat(bytes, options);
  const leadTitle = options.filename
    ? path.basename(options.filename).replace(/\.[^.]*$/, '') || 'Untitled'
    : 'Untitled';
  const includeFrontMatter = options.includeFrontMatter ?? false;
  let document: ImportedDocument;
  switch (format) {
    case 'epub':
      document = await importEpub(bytes, {
        includeFrontMatter,
        maxEntries: MAX_ZIP_ENTRIES,
        maxUncompressedBytes: options.maxUncompressedBytes ?? options.maxBytes * 4,
      });
      break;
    case 'pdf':
      document = await importPdf(bytes, { includeFrontMatter, leadTitle });
      break;
    case 'markdown':
      document = importMarkdown(decodeText(bytes), leadTitle);
      break;
    case 'html':
      document = importHtml(decodeText(bytes), leadTitle);
      break;
    case 'text': {
      const lines = linesOf(decodeText(bytes));
      const chapters = plainTextChapters(lines, { leadTitle, chapterSeparator: options.chapterSeparator });
      document = { metadata: emptyMetadata(), cover: null, chapters };
      break;
    }
  }
  const characters = document.chapters.reduce(
    (sum, chapter) => sum + chapter.blocks.reduce((chapterSum, block) => chapterSum + block.text.length, 0),
    0,
  );
  if (characters > options.maxCharacters) {
    throw new ImportError(
      'document_too_large',
      `The document's text is ${characters} characters; at most ${options.maxCharacters} are accepted.`,
    );
  }
  return document;
}

const EXTENSIONS: Record<string, ImportFormat> = {
  '.epub': 'epub',
  '.pdf': 'pdf',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.txt': 'text',
  '.text': 'text',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
};
const CONTENT_TYPES: Record<string, ImportFormat> = {
  'application/epub+zip': 'epub',
  'application/pdf': 'pdf',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
};

/** The format the bytes are in: their signature first, then what the caller says they are. */
function sniffFormat(bytes: Buffer, options: Pick<ImportOptions, 'filename' | 'contentType' | 'format'>): ImportFormat {
  const extension = options.filename ? path.extname(options.filename).toLowerCase() : '';
  const contentType = options.contentType?.split(';')[0].trim().toLowerCase() ?? '';
  const named = options.format ?? EXTENSIONS[extension] ?? CONTENT_TYPES[contentType];
  if (bytes.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))) {
    // An EPUB's first entry is `mimetype`, stored, saying application/epub+zip (OCF); a sloppy one is known by its name.
    const declared = bytes.subarray(30, 58).toString('latin1') === 'mimetypeapplication/epub+zip';
    if (declared || named === 'epub') return 'epub';
    throw new ImportError('unsupported_media_type', 'The file is a zip archive but not an EPUB.');
  }
  // A PDF's header may follow up to 1 KiB of junk; a text that says %PDF- in its first lines stays a text.
  const pdfHeaderAt = bytes.subarray(0, 1024).indexOf('%PDF-');
  if (pdfHeaderAt === 0 || (pdfHeaderAt > 0 && (named === undefined || named === 'pdf'))) return 'pdf';
  if (named === 'epub' || named === 'pdf') {
    throw new ImportError(
      'document_unreadable',
      `The file is named a${named === 'epub' ? 'n EPUB' : ' PDF'} but is not one.`,
    );
  }
  if (named) return named;
  if (extension !== '' || contentType !== '') {
    throw new ImportError(
      'unsupported_media_type',
      `${options.filename ?? contentType} is not a supported document: upload EPUB, PDF, Markdown, plain text or HTML.`,
    );
  }
  if (bytes.includes(0) && !(bytes[0] === 0xff && bytes[1] === 0xfe) && !(bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new ImportError('unsupported_media_type', 'The file is binary, not a supported document.');
  }
  return /^\s*(?:<!doctype html|<html)/i.test(bytes.subarray(0, 512).toString('utf8')) ? 'html' : 'text';
}
