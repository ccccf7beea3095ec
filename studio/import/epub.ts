import path from 'node:path';
import type { ImportedBlock, ImportedChapter, ImportedDocument } from '../document';
import { levelsFromParents, parentIndexes, readsTitleWhenEmpty } from './chapters';
import { encryptsContent, packagePath, readPackage, type EpubPackage } from './epubPackage';
import { navEntries, ncxEntries, type Landmark, type TocEntry } from './epubToc';
import { htmlContent, isAnchor } from './htmlContent';
import { ImportError } from './importError';
import { openZip, type ZipArchive, type ZipLimits } from './zip';

/**
 * EPUB 2 and 3. The spine gives the reading order, the table of contents
 * the chapters and their titles: a chapter starts where its entry points (a
 * file, or an anchor inside one: one file may hold several chapters) and
 * runs to the next entry's start (one chapter may span several files).
 * Front matter (cover, title page, contents, copyright), recognised by the
 * landmarks or guide, by epub:type, by the file's name or by its entry's
 * title, is skipped unless asked for.
 */

export interface EpubOptions extends ZipLimits {
  includeFrontMatter: boolean;
}

const FRONT_TYPES = new Set([
  'cover',
  'titlepage',
  'title-page',
  'halftitlepage',
  'toc',
  'copyright-page',
  'imprint',
  'landmarks',
  'loi',
  'lot',
]);
const FRONT_FILE = /(?:^|[-_])(?:cover|titlepage|title-page|halftitle|toc|contents|nav|copyright|imprint)(?:[-_]|$)/i;
const FRONT_TITLE = /^(?:cover|title ?page|half title|contents|table of contents|copyright(?: page)?|imprint)$/i;

export async function importEpub(bytes: Buffer, options: EpubOptions): Promise<ImportedDocument> {
  const zip = await openZip(bytes, options);
  try {
    const text = async (name: string) => (await zip.read(name)).toString('utf8');
    if (zip.names.has('META-INF/encryption.xml') && encryptsContent(await text('META-INF/encryption.xml'))) {
      throw new ImportError('document_protected', 'The book is protected by DRM (META-INF/encryption.xml).');
    }
    if (!zip.names.has('META-INF/container.xml')) {
      throw new ImportError('document_unreadable', 'The EPUB has no META-INF/container.xml.');
    }
    const opfPath = packagePath(await text('META-INF/container.xml'));
    const book = readPackage(opfPath, await text(opfPath));
    const { toc, landmarks } = await tableOfContents(zip, book);
    const frontPaths = frontMatterPaths(book, landmarks, toc);
    const chapters = await readChapters(zip, book, toc, frontPaths, options.includeFrontMatter);
    const cover =
      book.coverPath && zip.names.has(book.coverPath)
        ? { bytes: await zip.read(book.coverPath), contentType: coverType(book, book.coverPath) }
        : null;
    return { metadata: book.metadata, cover, chapters };
  } finally {
    zip.close();
  }
}

async function tableOfContents(
  zip: ZipArchive,
  book: EpubPackage,
): Promise<{ toc: TocEntry[]; landmarks: Landmark[] }> {
  const read = async (name: string) => (await zip.read(name)).toString('utf8');
  if (book.navPath && zip.names.has(book.navPath)) {
    const nav = navEntries(book.navPath, await read(book.navPath));
    if (nav.toc.length > 0 || !book.ncxPath) return nav;
    if (zip.names.has(book.ncxPath))
      return { toc: ncxEntries(book.ncxPath, await read(book.ncxPath)), landmarks: nav.landmarks };
    return nav;
  }
  if (book.ncxPath && zip.names.has(book.ncxPath)) {
    return { toc: ncxEntries(book.ncxPath, await read(book.ncxPath)), landmarks: [] };
  }
  return { toc: [], landmarks: [] };
}

function frontMatterPaths(book: EpubPackage, landmarks: Landmark[], toc: TocEntry[]): Set<string> {
  const paths = new Set<string>();
  if (book.navPath) paths.add(book.navPath);
  for (const { type, target } of [...book.guide, ...landmarks]) if (FRONT_TYPES.has(type)) paths.add(target.path);
  for (const entry of toc) {
    if (entry.target && entry.target.fragment === null && FRONT_TITLE.test(entry.title)) paths.add(entry.target.path);
  }
  return paths;
}

interface OpenedChapter {
  title: string;
  /** Index of its table of contents entry; null for text no entry names. */
  tocIndex: number | null;
  blocks: ImportedBlock[];
}

async function readChapters(
  zip: ZipArchive,
  book: EpubPackage,
  toc: TocEntry[],
  frontPaths: Set<string>,
  includeFrontMatter: boolean,
): Promise<ImportedChapter[]> {
  const opened: OpenedChapter[] = [];
  const openedEntries = new Set<number>();
  let current: OpenedChapter | null = null;
  const startChapter = (title: string, tocIndex: number | null) => {
    current = { title, tocIndex, blocks: [] };
    opened.push(current);
    if (tocIndex !== null) openedEntries.add(tocIndex);
  };
  // A label that links nowhere (a part's span in the nav) opens, empty, right before the entry after it.
  let nextEntry = 0;
  const openEntry = (index: number) => {
    for (; nextEntry < index; nextEntry++) {
      if (toc[nextEntry].target === null && !openedEntries.has(nextEntry))
        startChapter(toc[nextEntry].title, nextEntry);
    }
    startChapter(toc[index].title, index);
    nextEntry = Math.max(nextEntry, index + 1);
  };
  for (const file of new Set(book.spine)) {
    if (!zip.names.has(file)) continue;
    const pointing = toc.flatMap((entry, index) =>
      entry.target?.path === file && !openedEntries.has(index) ? [index] : [],
    );
    const fragments = new Set(pointing.flatMap((index) => toc[index].target?.fragment ?? []));
    const content = htmlContent((await zip.read(file)).toString('utf8'), fragments);
    const isFront =
      frontPaths.has(file) ||
      [...content.types].some((type) => FRONT_TYPES.has(type)) ||
      FRONT_FILE.test(path.posix.basename(file).replace(/\.[^.]*$/, ''));
    if (isFront && !includeFrontMatter) {
      for (const index of pointing) openedEntries.add(index);
      continue;
    }
    const found = new Set(content.items.flatMap((item) => (isAnchor(item) ? [item.anchor] : [])));
    const atStart = pointing.filter((index) => !found.has(toc[index].target?.fragment ?? ''));
    if (atStart.length > 0) for (const index of atStart) openEntry(index);
    else {
      // Without a table of contents, a document that opens with a heading opens a chapter; one without goes on.
      const first = content.items.find((item) => !isAnchor(item));
      const opensWithHeading = first !== undefined && !isAnchor(first) && first.kind === 'heading';
      if (current === null || isFront || (toc.length === 0 && opensWithHeading)) {
        startChapter((opensWithHeading ? first.text : null) ?? content.title ?? 'Untitled', null);
      }
    }
    for (const item of content.items) {
      if (isAnchor(item)) {
        for (const index of pointing)
          if (toc[index].target?.fragment === item.anchor && !openedEntries.has(index)) openEntry(index);
        continue;
      }
      const { rank: _rank, ...block } = item;
      (current as OpenedChapter | null)?.blocks.push(block);
    }
  }
  return withHierarchy(opened, toc);
}

/**
 * Each chapter's parent: its nearest ancestor in the table of contents that
 * became a chapter. Text that no entry names and that says nothing (an empty
 * title page) is no chapter.
 */
function withHierarchy(all: OpenedChapter[], toc: TocEntry[]): ImportedChapter[] {
  const opened = all.filter((chapter) => chapter.tocIndex !== null || chapter.blocks.length > 0);
  const tocParents = parentIndexes(toc.map((entry) => entry.level));
  const chapterOfEntry = new Map<number, number>();
  opened.forEach((chapter, index) => {
    if (chapter.tocIndex !== null) chapterOfEntry.set(chapter.tocIndex, index);
  });
  const parents = opened.map((chapter) => {
    let ancestor = chapter.tocIndex === null ? null : tocParents[chapter.tocIndex];
    while (ancestor !== null && !chapterOfEntry.has(ancestor)) ancestor = tocParents[ancestor];
    return ancestor === null ? null : (chapterOfEntry.get(ancestor) ?? null);
  });
  const levels = levelsFromParents(parents);
  return opened.map((chapter, index) =>
    readsTitleWhenEmpty({
      title: chapter.title,
      level: levels[index],
      parentIndex: parents[index],
      blocks: chapter.blocks,
    }),
  );
}

function coverType(book: EpubPackage, coverPath: string): string {
  const item = [...book.manifest.values()].find((candidate) => candidate.path === coverPath);
  return item?.mediaType || 'application/octet-stream';
}
