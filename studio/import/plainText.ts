import type { ImportedChapter } from '../document';
import { chaptersFromHeadings, type FlowBlock } from './chapters';
import { linesToBlocks, paragraphsOf } from './lines';

/**
 * Plain text: chapters at the headings books use ("Chapter 12", "CHAPTER
 * TWELVE", "Part II", a roman numeral alone, "Prologue"), or at a separator
 * line the user names; paragraphs at blank lines. Also the chapters of a
 * PDF without an outline, from its lines.
 */

const NUMBER_WORDS =
  'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last';
const NUMBER = `(?:\\d{1,4}|[ivxlcdm]{1,8}|(?:${NUMBER_WORDS})(?:[- ](?:${NUMBER_WORDS}))?)`;
const PART = new RegExp(`^(?:part|book|volume)\\s+${NUMBER}\\b`, 'i');
const CHAPTER = new RegExp(`^(?:chapter|chapitre|kapitel|cap[ií]tulo|capitolo)\\s+${NUMBER}\\b`, 'i');
const ROMAN_ALONE = /^[IVXLCDM]{1,8}\.?$/;
const NAMED_SECTION = /^(?:prologue|epilogue|preface|foreword|afterword|introduction|interlude|postscript)\b/i;

/** The heading rank a line has as a chapter heading (1 a part, 2 a chapter), or null for a line of text. */
export function headingRank(line: string): 1 | 2 | null {
  const text = line.trim();
  if (text.length === 0 || text.length > 80) return null;
  if (PART.test(text)) return 1;
  if (CHAPTER.test(text) || ROMAN_ALONE.test(text)) return 2;
  // "Introduction to the topic is …" is prose: a named section is a short line that closes no sentence.
  if (NAMED_SECTION.test(text) && text.length <= 60 && !/[.,;!?]$/.test(text)) return 2;
  return null;
}

export interface PlainTextOptions {
  chapterSeparator?: string;
  /** The title of text before the first heading (the file's name, the document's title). */
  leadTitle: string;
}

export function plainTextChapters(lines: readonly string[], options: PlainTextOptions): ImportedChapter[] {
  if (options.chapterSeparator !== undefined && options.chapterSeparator.trim() !== '') {
    return chaptersAtSeparator(lines, options.chapterSeparator.trim(), options.leadTitle);
  }
  return chaptersFromHeadings(flowOf(lines), options.leadTitle);
}

/**
 * Heading lines (standing alone: a blank line or the start before them)
 * and the paragraphs between them. A short line right under a heading is its
 * subtitle ("CHAPTER I." then "Down the Rabbit-Hole").
 */
function flowOf(lines: readonly string[]): FlowBlock[] {
  const flow: FlowBlock[] = [];
  let section: string[] = [];
  const closeSection = () => {
    flow.push(...linesToBlocks(paragraphsOf(section)));
    section = [];
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index].trim();
    const standsAlone = index === 0 || lines[index - 1].trim() === '';
    const rank = standsAlone ? headingRank(line) : null;
    if (rank === null) {
      section.push(lines[index]);
      continue;
    }
    closeSection();
    let title = line;
    const next = lines[index + 1]?.trim() ?? '';
    const afterNext = lines[index + 2]?.trim() ?? '';
    if (next !== '' && afterNext === '' && next.length <= 60 && !/[.!?,;]$/.test(next)) {
      title = `${line.replace(/[.:]$/, '')}: ${next}`;
      index++;
    }
    flow.push({ kind: 'heading', text: title, rank });
  }
  closeSection();
  return flow;
}

/**
 * Chapters between separator lines. Each is titled by its first line when
 * that is short and closes no sentence (the line is then its heading),
 * otherwise "<leadTitle> <n>" without a heading block (nothing is read that
 * the text does not say).
 */
function chaptersAtSeparator(lines: readonly string[], separator: string, leadTitle: string): ImportedChapter[] {
  const sections: string[][] = [[]];
  for (const line of lines) {
    if (line.trim() === separator) sections.push([]);
    else sections[sections.length - 1].push(line);
  }
  const chapters: ImportedChapter[] = [];
  for (const section of sections) {
    const first = section.findIndex((line) => line.trim() !== '');
    if (first < 0) continue;
    const firstLine = section[first].trim();
    const titled = firstLine.length <= 80 && !/[.!?,;:]$/.test(firstLine) && section.length > first + 1;
    const body = titled ? section.slice(first + 1) : section;
    const blocks = linesToBlocks(paragraphsOf(body));
    chapters.push({
      title: titled ? firstLine : `${leadTitle} ${chapters.length + 1}`,
      level: 0,
      parentIndex: null,
      blocks: titled ? [{ kind: 'heading', text: firstLine }, ...blocks] : blocks,
    });
  }
  return chapters;
}
