import type { ImportedBlock, ImportedChapter } from '../document';

/**
 * How a flat run of blocks becomes chapters, for the formats whose chapters
 * are their headings (Markdown, plain text, HTML, a PDF without an outline).
 */

/** A block as a format reads it; a heading that may open a chapter carries its rank (1 for h1 / `#`). */
export type FlowBlock = ImportedBlock & { rank?: number };

/**
 * The two highest heading ranks present open chapters: the highest at level 0,
 * the next one at level 1 (so `#` and `##` when both occur, `##` and `###`
 * when a document has no `#`). Deeper headings stay heading blocks inside
 * their chapter. Text before the first chapter heading is a chapter of its
 * own, titled `leadTitle`.
 */
export function chaptersFromHeadings(blocks: readonly FlowBlock[], leadTitle: string): ImportedChapter[] {
  const ranks = [...new Set(blocks.flatMap((block) => (block.rank === undefined ? [] : [block.rank])))].sort(
    (a, b) => a - b,
  );
  const chapterRanks = ranks.slice(0, 2);
  const chapters: ImportedChapter[] = [];
  let lastTop: number | null = null;
  let current: ImportedChapter | null = null;
  for (const { rank, ...block } of blocks) {
    const level = rank === undefined ? -1 : chapterRanks.indexOf(rank);
    if (block.kind === 'heading' && level >= 0) {
      const parentIndex = level === 0 ? null : lastTop;
      current = { title: block.text, level: parentIndex === null ? 0 : level, parentIndex, blocks: [block] };
      chapters.push(current);
      if (level === 0) lastTop = chapters.length - 1;
      continue;
    }
    if (!current) {
      current = { title: leadTitle, level: 0, parentIndex: null, blocks: [] };
      chapters.push(current);
    }
    current.blocks.push(block);
  }
  return chapters.map(readsTitleWhenEmpty);
}

/** A chapter with no text of its own (a part page) reads its title. */
export function readsTitleWhenEmpty(chapter: ImportedChapter): ImportedChapter {
  if (chapter.blocks.some((block) => block.text.trim() !== '')) return chapter;
  return { ...chapter, blocks: [{ kind: 'heading', text: chapter.title }] };
}

/** Parent indexes for entries listed in reading order with their nesting levels (a stack of open ancestors). */
export function parentIndexes(levels: readonly number[]): (number | null)[] {
  const open: number[] = [];
  return levels.map((level, index) => {
    while (open.length > 0 && levels[open[open.length - 1]] >= level) open.pop();
    const parent = open.length > 0 ? open[open.length - 1] : null;
    open.push(index);
    return parent;
  });
}

/** Levels recounted from the parents, so a level never skips (an entry under a dropped one moves up). */
export function levelsFromParents(parents: readonly (number | null)[]): number[] {
  const levels: number[] = [];
  parents.forEach((parent, index) => {
    levels[index] = parent === null || parent >= index ? 0 : levels[parent] + 1;
  });
  return levels;
}

/** Whitespace runs as one space, no space at the ends. */
export function collapseSpaces(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
