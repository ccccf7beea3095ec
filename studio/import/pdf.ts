import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Parser } from 'htmlparser2';
import { ProcessError, run, withTempDir } from '../../lib/process';
import { emptyMetadata, type ImportedDocument } from '../document';
import { collapseSpaces } from './chapters';
import { ImportError } from './importError';
import { chaptersAtOutline, documentLines, dropRunningLines, type OutlineEntry, type PageLine } from './pdfPages';
import { headingRank, plainTextChapters } from './plainText';

/**
 * PDF, through poppler's command-line tools on a temp file (removed
 * afterwards), each with a timeout: pdfinfo for the title and author,
 * pdftotext (reading order, not -layout: columns would interleave) for the
 * text, pdftohtml -xml for the outline with its pages (poppler 22's pdfinfo
 * cannot print the outline; pdftohtml lists it whatever page range it
 * renders, so it renders only the first page). Chapters come from the
 * outline, else from headings found as in plain text.
 */

export interface PdfOptions {
  includeFrontMatter: boolean;
  leadTitle: string;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
/** Fewer letters than this per page on average: scanned images, no text layer to read. */
const MIN_LETTERS_PER_PAGE = 5;

export async function importPdf(bytes: Buffer, options: PdfOptions): Promise<ImportedDocument> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const { info, text, outlineXml } = await withTempDir(async (dir) => {
    const file = path.join(dir, 'document.pdf');
    await writeFile(file, bytes);
    const poppler = (command: string, args: string[]) => popplerRun(command, args, { cwd: dir, timeoutMs });
    return {
      info: await poppler('pdfinfo', ['-enc', 'UTF-8', file]),
      text: await poppler('pdftotext', ['-enc', 'UTF-8', '-eol', 'unix', file, '-']),
      outlineXml: await poppler('pdftohtml', ['-xml', '-i', '-q', '-stdout', '-f', '1', '-l', '1', file]),
    };
  });
  const fields = pdfInfoFields(info);
  const pages = text.split('\f').map((page) => page.split('\n'));
  if (pages.length > 1 && pages[pages.length - 1].every((line) => line.trim() === '')) pages.pop();
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  if (letters < Math.max(1, pages.length) * MIN_LETTERS_PER_PAGE) {
    throw new ImportError(
      'no_text_layer',
      'The PDF has no text layer (scanned pages?): run it through OCR first, or upload the text.',
    );
  }
  const metadata = emptyMetadata();
  metadata.title = fields.get('Title') || null;
  metadata.author = fields.get('Author') || null;
  metadata.description = fields.get('Subject') || null;
  const leadTitle = metadata.title ?? options.leadTitle;
  const lines = documentLines(dropRunningLines(pages));
  const outline = outlineOf(outlineXml);
  const chapters =
    outline.length > 0
      ? chaptersAtOutline(lines, outline, { include: options.includeFrontMatter, title: leadTitle })
      : plainTextChapters(headingsOpenPages(lines), { leadTitle });
  return { metadata, cover: null, chapters };
}

async function popplerRun(
  command: string,
  args: string[],
  options: { cwd: string; timeoutMs: number },
): Promise<string> {
  try {
    return (await run(command, args, options)).stdout.toString('utf8');
  } catch (error) {
    if (!(error instanceof ProcessError) || error.message.endsWith('not installed')) throw error;
    if (/password/i.test(error.stderr)) {
      throw new ImportError('document_protected', 'The PDF is protected by a password.');
    }
    // pdftotext's exit code 3: the document's permissions forbid copying its text.
    if (error.exitCode === 3 || /copying of text/i.test(error.stderr)) {
      throw new ImportError('document_protected', 'The PDF does not allow its text to be copied.');
    }
    const why = error.exitCode === null ? 'took too long to read' : 'is damaged or not a PDF';
    throw new ImportError('document_unreadable', `The PDF ${why} (${command}).`);
  }
}

/** The lines as plain text, a heading that opens a page standing alone (as a heading must, to be found). */
function headingsOpenPages(lines: readonly PageLine[]): string[] {
  return lines.flatMap((line, index) =>
    index > 0 && line.page !== lines[index - 1].page && headingRank(line.text) !== null ? ['', line.text] : [line.text],
  );
}

/** pdfinfo's `Key: value` lines. */
function pdfInfoFields(info: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of info.split('\n')) {
    const match = /^([A-Za-z ]+):\s*(.*)$/.exec(line);
    if (match && !fields.has(match[1])) fields.set(match[1], match[2].trim());
  }
  return fields;
}

/** The `<outline>` of pdftohtml's XML: nested lists of `<item page="N">title</item>`. */
function outlineOf(xml: string): OutlineEntry[] {
  const entries: OutlineEntry[] = [];
  let depth = 0;
  let item: { page: number; text: string } | null = null;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'outline') depth++;
        else if (name === 'item' && depth > 0) item = { page: Number(attributes.page), text: '' };
      },
      ontext(data) {
        if (item) item.text += data;
      },
      onclosetag(name) {
        if (name === 'outline') depth--;
        else if (name === 'item' && item) {
          const title = collapseSpaces(item.text);
          if (title !== '' && Number.isInteger(item.page) && item.page > 0) {
            entries.push({ title, page: item.page, level: Math.max(0, depth - 1) });
          }
          item = null;
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(xml);
  return entries;
}
