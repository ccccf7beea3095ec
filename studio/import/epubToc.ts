import { DomUtils, parseDocument } from 'htmlparser2';
import { collapseSpaces } from './chapters';
import { type BookTarget, resolveTarget } from './epubPackage';
import { descendants, parseXmlTree, type XmlElement } from './xmlTree';

/**
 * An EPUB's table of contents, flattened in its order with each entry's
 * nesting level: from the EPUB 3 navigation document (`<nav epub:type="toc">`,
 * its nested `ol`s) or the EPUB 2 NCX (nested `navPoint`s). Also the EPUB 3
 * landmarks, which mark the cover, the contents page and the copyright page.
 */

export interface TocEntry {
  title: string;
  level: number;
  /** Null for a heading of the contents that links nowhere (a `span` in the nav). */
  target: BookTarget | null;
}

export interface Landmark {
  type: string;
  target: BookTarget;
}

/** Deeper lists than this are read as their ancestors' (a crafted document must not exhaust the stack). */
const MAX_LEVELS = 12;

type DomElement = Parameters<typeof DomUtils.getAttributeValue>[0];
type DomNode = DomElement['children'][number];

export function navEntries(navPath: string, navXhtml: string): { toc: TocEntry[]; landmarks: Landmark[] } {
  const document = parseDocument(navXhtml, { recognizeSelfClosing: true, lowerCaseTags: true });
  const navs = DomUtils.findAll((element) => element.name === 'nav', document.children);
  const typeOf = (element: DomElement) => (DomUtils.getAttributeValue(element, 'epub:type') ?? '').split(/\s+/);
  const tocNav = navs.find((nav) => typeOf(nav).includes('toc')) ?? navs[0];
  const toc: TocEntry[] = [];
  const list = tocNav && childElements(tocNav).find((child) => child.name === 'ol');
  if (list) readList(navPath, list, 0, toc);
  const landmarks: Landmark[] = [];
  const landmarkNav = navs.find((nav) => typeOf(nav).includes('landmarks'));
  for (const link of landmarkNav ? DomUtils.findAll((element) => element.name === 'a', [landmarkNav]) : []) {
    const target = resolveTarget(navPath, DomUtils.getAttributeValue(link, 'href') ?? '');
    for (const type of typeOf(link)) if (target && type) landmarks.push({ type: type.toLowerCase(), target });
  }
  return { toc, landmarks };
}

function readList(navPath: string, list: DomElement, level: number, into: TocEntry[]): void {
  for (const item of childElements(list).filter((child) => child.name === 'li')) {
    const children = childElements(item);
    const label = children.find((child) => child.name === 'a' || child.name === 'span');
    const href = label?.name === 'a' ? DomUtils.getAttributeValue(label, 'href') : undefined;
    const title = collapseSpaces(label ? DomUtils.textContent(label) : '');
    if (title !== '') {
      into.push({ title, level: Math.min(level, MAX_LEVELS), target: href ? resolveTarget(navPath, href) : null });
    }
    const nested = children.find((child) => child.name === 'ol');
    if (nested) readList(navPath, nested, level < MAX_LEVELS ? level + 1 : level, into);
  }
}

function childElements(element: DomElement): DomElement[] {
  return element.children.filter((child: DomNode): child is DomElement => DomUtils.isTag(child));
}

export function ncxEntries(ncxPath: string, ncxXml: string): TocEntry[] {
  const ncx = parseXmlTree(ncxXml, `table of contents (${ncxPath})`);
  const navMap = descendants(ncx, 'navMap')[0];
  const entries: TocEntry[] = [];
  const visit = (point: XmlElement, level: number) => {
    const label = point.children.find((child) => child.name === 'navLabel');
    const content = point.children.find((child) => child.name === 'content');
    const title = collapseSpaces(label ? (descendants(label, 'text')[0]?.text ?? label.text) : '');
    const src = content?.attributes.src;
    if (title !== '') entries.push({ title, level, target: src ? resolveTarget(ncxPath, src) : null });
    for (const child of point.children) if (child.name === 'navPoint') visit(child, Math.min(level + 1, MAX_LEVELS));
  };
  for (const point of navMap?.children ?? []) if (point.name === 'navPoint') visit(point, 0);
  return entries;
}
