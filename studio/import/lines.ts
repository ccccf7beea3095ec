import type { ImportedBlock, SpokenSegment } from '../document';

/**
 * From lines of text (a plain-text file's, a Markdown paragraph's, a PDF
 * page's) to paragraph blocks: hard-wrapped lines joined, and script lines
 * (`HOST: Welcome back.`) kept one speaker each.
 */

/** A word broken at a line end by a hyphen, the next line going on in lower case. */
const BROKEN_WORD = /(\p{L})[-\u00AD]$/u;

/** Joins hard-wrapped lines into one paragraph's text: a hyphenated break joins the word halves. */
function joinWrappedLines(lines: readonly string[]): string {
  let text = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '') continue;
    if (text === '') text = line;
    else if (BROKEN_WORD.test(text) && /^\p{Ll}/u.test(line)) text = text.slice(0, -1) + line;
    else text = `${text} ${line}`;
  }
  return text.replace(/\u00AD/g, '').replace(/\s+/g, ' ');
}

/**
 * `NAME: text`, NAME in capitals (`DR. SMITH`) or capitalised words
 * (`Host`, `Mary Ann`), at most 40 characters, no digits-only names.
 */
const SCRIPT_LINE =
  /^((?:\p{Lu}[\p{Lu}\d'’.-]*(?: \p{Lu}[\p{Lu}\d'’.-]*){0,4})|(?:\p{Lu}[\p{Ll}'’.-]*(?: \p{Lu}[\p{Ll}'’.-]*){0,3}))\s*:\s+(\S.*)$/u;

function scriptLine(line: string): SpokenSegment | null {
  const match = SCRIPT_LINE.exec(line.trim());
  if (!match || match[1].length > 40) return null;
  return { speaker: match[1], text: match[2] };
}

/** Most lines a script, and at least two of them: a "Note: …" in prose stays prose. */
function looksLikeScript(lines: readonly string[]): boolean {
  const spoken = lines.filter((line) => scriptLine(line) !== null).length;
  return spoken >= 2 && spoken > lines.length / 2;
}

/**
 * Blocks for one chapter's paragraphs (each a list of lines). When most
 * non-empty lines are script lines, every script line is a paragraph of its
 * own with its speaker, lines that are not go on the line before them (or
 * stand alone as narration, a stage direction at the top).
 */
export function linesToBlocks(paragraphs: readonly (readonly string[])[]): ImportedBlock[] {
  const lines = paragraphs.flat().filter((line) => line.trim() !== '');
  if (looksLikeScript(lines)) return scriptBlocks(paragraphs);
  return paragraphs
    .map((paragraph) => joinWrappedLines(paragraph))
    .filter((text) => text !== '')
    .map((text) => ({ kind: 'paragraph', text }));
}

function scriptBlocks(paragraphs: readonly (readonly string[])[]): ImportedBlock[] {
  const blocks: ImportedBlock[] = [];
  for (const paragraph of paragraphs) {
    let open: ImportedBlock | null = null;
    for (const raw of paragraph) {
      const line = raw.trim();
      if (line === '') continue;
      const spoken = scriptLine(line);
      if (spoken) {
        open = { kind: 'paragraph', text: spoken.text, segments: [spoken] };
        blocks.push(open);
      } else if (open?.segments) {
        const segment = open.segments[open.segments.length - 1];
        segment.text = joinWrappedLines([segment.text, line]);
        open.text = segment.text;
      } else {
        open = { kind: 'paragraph', text: line };
        blocks.push(open);
      }
    }
  }
  return blocks;
}

/**
 * Paragraphs of a chapter's lines: at blank lines; a text with no blank
 * line at all (one paragraph per line, as many .txt files are) has one per
 * line.
 */
export function paragraphsOf(lines: readonly string[]): string[][] {
  const paragraphs: string[][] = [];
  let current: string[] = [];
  for (const line of lines) {
    if (line.trim() === '') {
      if (current.length > 0) paragraphs.push(current);
      current = [];
    } else current.push(line);
  }
  if (current.length > 0) paragraphs.push(current);
  if (paragraphs.length === 1 && paragraphs[0].length > 3 && !hasWrappedLines(paragraphs[0])) {
    return paragraphs[0].map((line) => [line]);
  }
  return paragraphs;
}

/** Hard-wrapped text: most lines end without closing a sentence. */
function hasWrappedLines(lines: readonly string[]): boolean {
  const open = lines.filter((line) => !/[.!?:"”’)\]]$/.test(line.trim())).length;
  return open > lines.length / 2;
}
