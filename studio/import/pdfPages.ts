import type { ImportedBlock, ImportedChapter } from '../document';
import { collapseSpaces, levelsFromParents, parentIndexes, readsTitleWhenEmpty } from './chapters';
import { linesToBlocks, paragraphsOf } from './lines';

/**
 * A PDF's text as pdftotext gives it (pages split by form feeds) made into
 * readable lines: running headers and footers and page numbers dropped,
 * paragraph ends marked; then cut into chapters at its outline's entries.
 */

export interface OutlineEntry {
  title: string;
  /** 1-based page number the entry points at. */
  page: number;
  level: number;
}

/** One line of the document, with the 0-based page it is on. */
export interface PageLine {
  page: number;
  text: string;
}

const PAGE_NUMBER = /^(?:page\s+)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:of|\/)\s*\d{1,4})?$|^[-–—]\s*\d{1,4}\s*[-–—]$/i;
/** How many lines at each end of a page may be a running header or footer. */
const EDGE_LINES = 2;

const runningKey = (line: string) => line.trim().toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ');

/**
 * Lines that open or close several pages (a book's or chapter's title over
 * its pages, "Draft – page 3" under them; digits count as one; a sentence's
 * end is never one) and page numbers are dropped from the page edges: the
 * first and last few lines of text of each page.
 */
export function dropRunningLines(pages: readonly string[][]): string[][] {
  const edgeCounts = new Map<string, number>();
  const edgesOf = (lines: readonly string[]) => {
    const filled = lines.flatMap((line, index) => (line.trim() === '' ? [] : [index]));
    return new Set([...filled.slice(0, EDGE_LINES), ...filled.slice(-EDGE_LINES)]);
  };
  for (const lines of pages) {
    const keys = new Set([...edgesOf(lines)].map((index) => runningKey(lines[index])));
    for (const key of keys) edgeCounts.set(key, (edgeCounts.get(key) ?? 0) + 1);
  }
  const running = (line: string) =>
    PAGE_NUMBER.test(line.trim()) ||
    ((edgeCounts.get(runningKey(line)) ?? 0) >= Math.max(3, pages.length * 0.05) && !/[.!?]$/.test(line.trim()));
  return pages.map((lines) => {
    const edges = edgesOf(lines);
    return lines.filter((line, index) => !(edges.has(index) && running(line)));
  });
}

/**
 * The pages' lines in one run, with a blank line after each line that ends
 * a paragraph: a line that closes a sentence well short of the text's
 * usual line length (pdftotext keeps blank lines only between text blocks).
 * A paragraph goes on across a page break.
 */
export function documentLines(pages: readonly string[][]): PageLine[] {
  const lengths = pages
    .flat()
    .map((line) => line.trim().length)
    .filter((length) => length > 0)
    .sort((a, b) => a - b);
  const usual = lengths[Math.floor(lengths.length * 0.9)] ?? 0;
  const lines: PageLine[] = [];
  pages.forEach((pageLines, page) => {
    for (const line of pageLines) {
      lines.push({ page, text: line });
      const text = line.trim();
      if (text !== '' && /[.!?…"”’)]$/.test(text) && text.length < usual * 0.8) lines.push({ page, text: '' });
    }
  });
  return lines;
}

/** A title as compared: no section number in front ("2.3", "IV."), letters and digits only, lower case. */
const comparable = (text: string) =>
  text
    .trim()
    .replace(/^(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.)\s+/, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');

/** The line says the title, or its first part (a title printed over two lines). */
function saysTitle(line: string, title: string): boolean {
  const said = comparable(line);
  return said !== '' && (said === title || (title.startsWith(said) && said.length >= Math.min(title.length, 6)));
}

/**
 * Chapters at the outline's entries, in its order: each starts on its page
 * at the line that says its title (or the page's top) and runs to the next
 * one's start. Text before the first entry (title page, contents) is kept
 * only as front matter on request.
 */
export function chaptersAtOutline(
  lines: readonly PageLine[],
  outline: readonly OutlineEntry[],
  frontMatter: { include: boolean; title: string },
): ImportedChapter[] {
  const starts: number[] = [];
  for (const entry of outline) {
    const previous = starts.length > 0 ? starts[starts.length - 1] : 0;
    const title = comparable(entry.title);
    // Searched from the previous entry's start on: entries come in reading order.
    let start = previous;
    while (start < lines.length && lines[start].page < entry.page - 1) start++;
    let onPage = -1;
    for (let index = start; index < lines.length && lines[index].page === entry.page - 1; index++) {
      if (saysTitle(lines[index].text, title)) {
        onPage = index;
        break;
      }
    }
    starts.push(onPage >= 0 ? onPage : start);
  }
  const parents = parentIndexes(outline.map((entry) => entry.level));
  const levels = levelsFromParents(parents);
  const chapters: ImportedChapter[] = outline.map((entry, index) => {
    const end = index + 1 < starts.length ? starts[index + 1] : lines.length;
    const body = lines.slice(starts[index], end).map((line) => line.text);
    const heading: ImportedBlock[] = [];
    // The title as printed (perhaps over two or three lines, with its number) is the chapter's heading block.
    for (let count = 1; count <= 3 && count <= body.length; count++) {
      const printed = collapseSpaces(body.slice(0, count).join(' '));
      if (comparable(printed) === comparable(entry.title)) {
        body.splice(0, count);
        heading.push({ kind: 'heading', text: printed });
        break;
      }
    }
    return readsTitleWhenEmpty({
      title: entry.title,
      level: levels[index],
      parentIndex: parents[index],
      blocks: [...heading, ...linesToBlocks(paragraphsOf(body))],
    });
  });
  const lead = lines.slice(0, starts[0] ?? lines.length).map((line) => line.text);
  const leadBlocks = linesToBlocks(paragraphsOf(lead));
  if (!frontMatter.include || leadBlocks.length === 0) return chapters;
  return [
    { title: frontMatter.title, level: 0, parentIndex: null, blocks: leadBlocks },
    ...chapters.map((chapter) => ({
      ...chapter,
      parentIndex: chapter.parentIndex === null ? null : chapter.parentIndex + 1,
    })),
  ];
}
