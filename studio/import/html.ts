import { emptyMetadata, type ImportedDocument } from '../document';
import { chaptersFromHeadings, type FlowBlock } from './chapters';
import { htmlContent, isAnchor } from './htmlContent';

/**
 * An HTML page, read as one EPUB content document is: the two highest
 * heading ranks present are the chapters (h1 and h2 in most pages), deeper
 * ones stay heading blocks; scripts, styles, navigation and asides are
 * dropped. The title, language, author and description come from the head.
 */
export function importHtml(markup: string, leadTitle: string): ImportedDocument {
  const content = htmlContent(markup);
  const metadata = emptyMetadata();
  metadata.title = content.title;
  metadata.language = content.language;
  metadata.author = content.meta.get('author') ?? null;
  metadata.description = content.meta.get('description') ?? null;
  const blocks = content.items.filter((item): item is FlowBlock => !isAnchor(item));
  return { metadata, cover: null, chapters: chaptersFromHeadings(blocks, metadata.title ?? leadTitle) };
}
