import { Parser } from 'htmlparser2';
import { collapseSpaces, type FlowBlock } from './chapters';

/**
 * The readable text of one (X)HTML document, as blocks: an HTML page, or
 * one content document of an EPUB. Parsed forgivingly (htmlparser2): the
 * XHTML of real EPUBs is often not well-formed, and a stray `&nbsp;` should
 * not cost a user their book. Streamed, so a deeply nested document costs
 * no recursion.
 *
 * Headings (h1-h6) are heading blocks carrying their rank; p, li,
 * blockquote, div … are paragraphs. Dropped: scripts, styles, navigation,
 * asides, footnote and endnote bodies (epub:type footnote/endnote/rearnote,
 * role doc-footnote/doc-endnote, class footnote(s)/endnote(s)), hidden
 * elements, ruby annotations, MathML and SVG, and footnote markers (a link
 * marked noteref, or an in-document link whose text is only `3`, `[3]`, `*`).
 */

/** Where a wanted id (a table of contents entry's fragment) sits among the blocks. */
export interface AnchorItem {
  anchor: string;
}
export type ContentItem = FlowBlock | AnchorItem;

export interface HtmlContent {
  items: ContentItem[];
  title: string | null;
  language: string | null;
  /** `<meta name=… content=…>` of the head, names lower-cased. */
  meta: Map<string, string>;
  /** epub:type and doc-* role tokens of the html, body and top-level section elements (e.g. `cover`, `toc`). */
  types: Set<string>;
}

const BLOCK_TAGS = new Set(
  'p div li ul ol dl dd dt blockquote pre figure figcaption section article header footer main body table tr td th caption address hr center h1 h2 h3 h4 h5 h6'.split(
    ' ',
  ),
);
const SKIPPED_TAGS = new Set(
  'script style head nav aside rt rp math svg template noscript button select textarea iframe object audio video canvas'.split(
    ' ',
  ),
);
const NOTE_TYPES = /\b(?:footnotes?|endnotes?|rearnotes?|notes?)\b/;
const NOTE_CLASSES = /(?:^|\s)(?:footnotes?|endnotes?)(?:\s|$)/i;
const NOTE_MARKER = /^\s*[[(]?\s*(?:\d{1,4}|[ivx]{1,5}|[a-z]|[*†‡§]+)\s*[\])]?\s*$/i;

interface OpenElement {
  name: string;
  skips: boolean;
  /** For a possible footnote marker: where its text starts in the block being read, and whether it is marked as one. */
  noteref?: { start: number; marked: boolean };
}

type Attributes = Record<string, string>;

export function htmlContent(markup: string, wantedIds: ReadonlySet<string> = new Set()): HtmlContent {
  const content: HtmlContent = { items: [], title: null, language: null, meta: new Map(), types: new Set() };
  const open: OpenElement[] = [];
  let skipping = 0;
  let text = '';
  let rank: number | undefined;
  let titleText: string | null = null;

  const flush = () => {
    const block = collapseSpaces(text);
    text = '';
    if (block === '') return;
    content.items.push(
      rank === undefined ? { kind: 'paragraph', text: block } : { kind: 'heading', text: block, rank },
    );
  };

  const parser = new Parser(
    {
      onopentag(name, attributes: Attributes) {
        if (name === 'html') content.language = attributes.lang ?? attributes['xml:lang'] ?? null;
        if (name === 'meta' && attributes.name && attributes.content !== undefined) {
          content.meta.set(attributes.name.toLowerCase(), attributes.content);
        }
        if (name === 'title' && open.some((element) => element.name === 'head')) titleText = '';
        const epubType = `${attributes['epub:type'] ?? ''} ${attributes.role ?? ''}`.toLowerCase();
        if (open.length <= 2 && /^(html|body|section|div)$/.test(name)) {
          for (const token of epubType.split(/\s+/)) if (token) content.types.add(token.replace(/^doc-/, ''));
        }
        const skips =
          SKIPPED_TAGS.has(name) ||
          NOTE_TYPES.test(epubType.replace(/\bnoteref\b/g, '')) ||
          NOTE_CLASSES.test(attributes.class ?? '') ||
          attributes.hidden !== undefined ||
          attributes['aria-hidden'] === 'true' ||
          /display\s*:\s*none/i.test(attributes.style ?? '');
        const element: OpenElement = { name, skips };
        if (skips) skipping++;
        if (skipping > 0) {
          open.push(element);
          return;
        }
        const id = attributes.id ?? (name === 'a' ? attributes.name : undefined);
        if (id !== undefined && wantedIds.has(id)) {
          flush();
          content.items.push({ anchor: id });
        }
        if (BLOCK_TAGS.has(name)) flush();
        if (/^h[1-6]$/.test(name)) rank = Number(name[1]);
        if (name === 'br') text += ' ';
        if (name === 'a' && (/\bnoteref\b/.test(epubType) || (attributes.href ?? '').includes('#'))) {
          element.noteref = { start: text.length, marked: /\bnoteref\b/.test(epubType) };
        }
        open.push(element);
      },
      ontext(data) {
        if (titleText !== null) titleText += data;
        if (skipping === 0) text += data;
      },
      onclosetag(name) {
        if (name === 'title' && titleText !== null) {
          content.title = collapseSpaces(titleText) || null;
          titleText = null;
        }
        const element = open.pop();
        if (!element) return;
        if (element.skips) {
          skipping--;
          return;
        }
        if (skipping > 0) return;
        if (element.noteref) {
          const { start, marked } = element.noteref;
          if (marked || NOTE_MARKER.test(text.slice(start))) text = text.slice(0, start);
        }
        if (BLOCK_TAGS.has(name)) flush();
        if (/^h[1-6]$/.test(name)) rank = undefined;
      },
    },
    { recognizeSelfClosing: true, decodeEntities: true, lowerCaseTags: true },
  );
  parser.end(markup);
  flush();
  return content;
}

export function isAnchor(item: ContentItem): item is AnchorItem {
  return 'anchor' in item;
}
