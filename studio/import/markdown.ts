import MarkdownIt from 'markdown-it';
import { parse as parseYaml } from 'yaml';
import { emptyMetadata, type ImportedMetadata } from '../document';
import { chaptersFromHeadings, collapseSpaces, type FlowBlock } from './chapters';
import { linesToBlocks } from './lines';
import type { ImportedDocument } from '../document';

/**
 * Markdown: the two highest heading levels present are the chapters (`#` at
 * level 0 and `##` at level 1 when the file has `#`; `##` and `###` when its
 * top heading is `##`); deeper headings stay heading blocks. Markup is
 * stripped: emphasis and links keep their text, images and raw HTML are
 * dropped, and so are code blocks (a listing read aloud is noise; inline
 * code keeps its text). A YAML front matter block gives the metadata.
 */

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)\r?\n/;

type Token = MarkdownIt.Token;

export function importMarkdown(text: string, leadTitle: string): ImportedDocument {
  const { metadata, body } = frontMatter(text);
  const tokens = new MarkdownIt({ html: true }).parse(body, {});
  const flow: FlowBlock[] = [];
  let section: string[][] = [];
  const closeSection = () => {
    flow.push(...linesToBlocks(section));
    section = [];
  };
  let headingRank: number | null = null;
  for (const token of tokens) {
    if (token.type === 'heading_open') headingRank = Number(token.tag.slice(1));
    else if (token.type === 'heading_close') headingRank = null;
    else if (token.type === 'inline') {
      const lines = inlineLines(token.children ?? []);
      if (headingRank !== null) {
        const title = collapseSpaces(lines.join(' '));
        if (title === '') continue;
        closeSection();
        flow.push({ kind: 'heading', text: title, rank: headingRank });
      } else if (lines.length > 0) section.push(lines);
    }
  }
  closeSection();
  return { metadata, cover: null, chapters: chaptersFromHeadings(flow, metadata.title ?? leadTitle) };
}

/** An inline run's text, one entry per source line (the script-line check reads lines). */
function inlineLines(children: readonly Token[]): string[] {
  const lines: string[] = [''];
  // An image's alt text is in its own children, not in this run: images drop out by themselves.
  for (const child of children) {
    if (child.type === 'softbreak' || child.type === 'hardbreak') lines.push('');
    else if (child.type === 'text' || child.type === 'code_inline') lines[lines.length - 1] += child.content;
  }
  return lines.map((line) => line.trim()).filter((line) => line !== '');
}

/** A leading `---` YAML block: its title, author, language … (anything unreadable in it is ignored). */
function frontMatter(text: string): { metadata: ImportedMetadata; body: string } {
  const metadata = emptyMetadata();
  const match = FRONT_MATTER.exec(text.replace(/^\uFEFF/, ''));
  if (!match) return { metadata, body: text };
  let fields: unknown = null;
  try {
    fields = parseYaml(match[1]);
  } catch {
    // Not YAML after all: the block is dropped, the text still imports.
  }
  if (fields && typeof fields === 'object') {
    const record = fields as Record<string, unknown>;
    const field = (name: string): string | null => {
      const value = record[name];
      return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
    };
    metadata.title = field('title');
    metadata.author = field('author');
    metadata.narrator = field('narrator');
    metadata.language = field('language') ?? field('lang');
    metadata.description = field('description');
    metadata.publisher = field('publisher');
    metadata.year = field('year') ?? field('date')?.match(/\d{4}/)?.[0] ?? null;
    metadata.isbn = field('isbn');
  }
  return { metadata, body: text.replace(/^\uFEFF/, '').slice(match[0].length) };
}
