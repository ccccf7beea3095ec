import path from 'node:path';
import { emptyMetadata, type ImportedMetadata } from '../document';
import { collapseSpaces } from './chapters';
import { htmlContent, isAnchor } from './htmlContent';
import { ImportError } from './importError';
import { descendants, firstDescendant, parseXmlTree, type XmlElement } from './xmlTree';

/**
 * An EPUB's package: META-INF/container.xml names the package document
 * (OPF), which holds the metadata, the manifest (every file, by id), the
 * spine (the reading order) and, in EPUB 2, the guide.
 */

export interface ManifestItem {
  path: string;
  mediaType: string;
  properties: Set<string>;
}

/** A reference to a file of the book, with the fragment it points at (null: the file's start). */
export interface BookTarget {
  path: string;
  fragment: string | null;
}

export interface EpubPackage {
  metadata: ImportedMetadata;
  manifest: Map<string, ManifestItem>;
  /** Linear spine items' paths (XHTML or HTML documents), in reading order. */
  spine: string[];
  /** EPUB 3: the navigation document (its `properties="nav"` item). */
  navPath: string | null;
  /** EPUB 2: the NCX (the spine's `toc` item). */
  ncxPath: string | null;
  coverPath: string | null;
  /** The guide's references by type (`cover`, `toc`, `copyright-page` …). */
  guide: { type: string; target: BookTarget }[];
}

/** The package document's path inside the archive, from META-INF/container.xml. */
export function packagePath(containerXml: string): string {
  const container = parseXmlTree(containerXml, 'container (META-INF/container.xml)');
  const rootfiles = descendants(container, 'rootfile');
  const rootfile =
    rootfiles.find((element) => element.attributes['media-type'] === 'application/oebps-package+xml') ?? rootfiles[0];
  const fullPath = rootfile?.attributes['full-path'];
  if (!fullPath) throw new ImportError('document_unreadable', 'The container names no package document.');
  return insideArchive(path.posix.normalize(fullPath), fullPath);
}

/**
 * A link's target inside the archive, relative to the file it appears in;
 * null for an external link. A link out of the archive makes the book
 * unreadable: nothing outside it may be read on its behalf.
 */
export function resolveTarget(fromFile: string, href: string): BookTarget | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return null;
  const [withoutFragment, fragment = null] = href.split('#', 2);
  const relative = withoutFragment.split('?')[0];
  let decoded = relative;
  try {
    decoded = decodeURIComponent(relative);
  } catch {
    // A stray % in a name: the name as written.
  }
  const joined = decoded === '' ? fromFile : path.posix.join(path.posix.dirname(fromFile), decoded);
  return { path: insideArchive(path.posix.normalize(joined), href), fragment: fragment || null };
}

function insideArchive(normalized: string, written: string): string {
  if (normalized.startsWith('../') || normalized === '..' || path.posix.isAbsolute(normalized)) {
    throw new ImportError('document_unreadable', `The book refers to ${written}, outside its archive.`);
  }
  return normalized;
}

/** Algorithms of font obfuscation (IDPF, Adobe): fonts only, the text is not encrypted. */
const FONT_OBFUSCATION = new Set(['http://www.idpf.org/2008/embedding', 'http://ns.adobe.com/pdf/enc#RC']);

/** True when META-INF/encryption.xml encrypts more than obfuscated fonts (DRM). */
export function encryptsContent(encryptionXml: string): boolean {
  const encryption = parseXmlTree(encryptionXml, 'encryption declaration (META-INF/encryption.xml)');
  const methods = descendants(encryption, 'EncryptionMethod').map((method) => method.attributes.Algorithm ?? '');
  return methods.length === 0 || methods.some((algorithm) => !FONT_OBFUSCATION.has(algorithm));
}

export function readPackage(opfPath: string, opfXml: string): EpubPackage {
  const opf = parseXmlTree(opfXml, `package document (${opfPath})`);
  const manifest = new Map<string, ManifestItem>();
  for (const item of descendants(opf, 'item')) {
    const { id, href } = item.attributes;
    const target = id && href ? resolveTarget(opfPath, href) : null;
    if (!target) continue;
    manifest.set(id, {
      path: target.path,
      mediaType: item.attributes['media-type'] ?? '',
      properties: new Set((item.attributes.properties ?? '').split(/\s+/).filter(Boolean)),
    });
  }
  const spineElement = firstDescendant(opf, 'spine');
  // Reading order: the linear spine items that are documents (a spine may list an image or an SVG page).
  const spine = descendants(opf, 'itemref')
    .filter((itemref) => itemref.attributes.linear !== 'no')
    .flatMap((itemref) => manifest.get(itemref.attributes.idref ?? '') ?? [])
    .filter((item) => /^(?:application\/xhtml\+xml|text\/html)$/i.test(item.mediaType))
    .map((item) => item.path);
  const items = [...manifest.entries()];
  const guide = descendants(opf, 'reference').flatMap((reference) => {
    const target = resolveTarget(opfPath, reference.attributes.href ?? '');
    return target ? [{ type: (reference.attributes.type ?? '').toLowerCase(), target }] : [];
  });
  return {
    metadata: readMetadata(opf),
    manifest,
    spine,
    navPath: items.find(([, item]) => item.properties.has('nav'))?.[1].path ?? null,
    ncxPath: manifest.get(spineElement?.attributes.toc ?? '')?.path ?? null,
    coverPath: coverImage(opf, manifest),
    guide,
  };
}

function coverImage(opf: XmlElement, manifest: Map<string, ManifestItem>): string | null {
  const items = [...manifest.entries()];
  const isImage = (item: ManifestItem | undefined) => item?.mediaType.startsWith('image/') ?? false;
  const epub3 = items.find(([, item]) => item.properties.has('cover-image'));
  if (epub3) return epub3[1].path;
  const named = descendants(opf, 'meta').find((meta) => meta.attributes.name === 'cover');
  const epub2 = manifest.get(named?.attributes.content ?? '');
  if (epub2 && isImage(epub2)) return epub2.path;
  const guessed = items.find(([id, item]) => isImage(item) && /cover/i.test(`${id} ${item.path}`));
  return guessed?.[1].path ?? null;
}

function readMetadata(opf: XmlElement): ImportedMetadata {
  const metadata = emptyMetadata();
  const block = firstDescendant(opf, 'metadata');
  if (!block) return metadata;
  const first = (name: string) => collapseSpaces(firstDescendant(block, name)?.text ?? '') || null;
  // EPUB 3 says a creator's role in a <meta refines="#id" property="role">, EPUB 2 in opf:role.
  const refinedRoles = new Map(
    descendants(block, 'meta')
      .filter((meta) => meta.attributes.property === 'role' && meta.attributes.refines?.startsWith('#'))
      .map((meta) => [meta.attributes.refines.slice(1), collapseSpaces(meta.text)]),
  );
  const people = [...descendants(block, 'creator'), ...descendants(block, 'contributor')].map((person) => ({
    name: collapseSpaces(person.text),
    creator: person.name === 'creator',
    role: (
      person.attributes['opf:role'] ??
      person.attributes.role ??
      refinedRoles.get(person.attributes.id ?? '') ??
      ''
    )
      .toLowerCase()
      .trim(),
  }));
  const names = (keep: (person: (typeof people)[number]) => boolean) =>
    people
      .filter((person) => person.name !== '' && keep(person))
      .map((person) => person.name)
      .join(', ') || null;
  metadata.title = first('title');
  metadata.author = names((person) => person.role === 'aut' || (person.creator && person.role === ''));
  metadata.narrator = names((person) => person.role === 'nrt');
  metadata.language = first('language');
  metadata.description = plainDescription(first('description'));
  metadata.publisher = first('publisher');
  metadata.year = first('date')?.match(/\b(\d{4})\b/)?.[1] ?? null;
  metadata.isbn =
    descendants(block, 'identifier')
      .map(isbnOf)
      .find((isbn) => isbn !== null) ?? null;
  return metadata;
}

/** A description often holds escaped HTML (`&lt;p&gt;`): its text, paragraphs joined. */
function plainDescription(description: string | null): string | null {
  if (description === null) return null;
  const items = htmlContent(description).items;
  return items.flatMap((item) => (isAnchor(item) ? [] : [item.text])).join(' ') || null;
}

/** An identifier that is an ISBN (by its scheme, a urn:isbn, or its digits), without hyphens. */
function isbnOf(identifier: XmlElement): string | null {
  const value = collapseSpaces(identifier.text);
  const digits = value.replace(/^urn:isbn:/i, '').replace(/[\s-]/g, '');
  const declared = /isbn/i.test(identifier.attributes['opf:scheme'] ?? identifier.attributes.scheme ?? '');
  const shaped = /^(?:97[89]\d{10}|\d{9}[\dX])$/i.test(digits);
  return shaped && (declared || /^urn:isbn:/i.test(value) || /^97[89]/.test(digits)) ? digits.toUpperCase() : null;
}
