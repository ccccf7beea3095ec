import { strToU8, zipSync } from 'fflate';
import { importDocument, type ImportOptions } from '../../../studio/import';
import { COVER_PNG, CONTAINER, EPUB3_OPF, epub2, epub3, zipEpub } from '../../fixtures/studio/epub';

const limits: ImportOptions = { filename: 'book.epub', maxBytes: 10_000_000, maxCharacters: 1_000_000 };

const outline = (chapters: { title: string; level: number; parentIndex: number | null }[]) =>
  chapters.map(({ title, level, parentIndex }) => ({ title, level, parentIndex }));

describe('EPUB 3', () => {
  it('splits one file at the anchors its nested navigation points to, and keeps the hierarchy', async () => {
    const document = await importDocument(epub3(), limits);
    expect(outline(document.chapters)).toEqual([
      { title: 'Part One', level: 0, parentIndex: null },
      { title: 'Chapter 1. The Gate', level: 1, parentIndex: 0 },
      { title: 'Chapter 2. The Bridge', level: 1, parentIndex: 0 },
      { title: 'Part Two', level: 0, parentIndex: null },
      { title: 'Chapter 3. The Hill', level: 1, parentIndex: 3 },
    ]);
    const [partOne, gate, bridge, partTwo, hill] = document.chapters;
    expect(partOne.blocks).toEqual([{ kind: 'heading', text: 'Part One' }]);
    // The footnote marker is not read as a number, the footnote's body not at all.
    expect(gate.blocks).toEqual([
      { kind: 'heading', text: 'Chapter 1. The Gate' },
      { kind: 'paragraph', text: 'It was cold. We walked on. The gate was shut.' },
    ]);
    expect(bridge.blocks.map((block) => block.text)).toEqual([
      'Chapter 2. The Bridge',
      'The bridge held our weight.',
      'One plank',
      'Two planks',
    ]);
    // A part with no text of its own reads its title; a chapter runs on into the next spine file.
    expect(partTwo.blocks).toEqual([{ kind: 'heading', text: 'Part Two' }]);
    expect(hill.blocks.map((block) => block.text)).toEqual([
      'Chapter 3. The Hill',
      'We climbed.',
      'At the top, the sun.',
    ]);
  });

  it('reads the metadata and the cover from the package', async () => {
    const document = await importDocument(epub3(), limits);
    expect(document.metadata).toEqual({
      title: 'The Long Road',
      author: 'Jane Walker',
      narrator: 'Sam Voice',
      language: 'en',
      description: 'A walk in winter.',
      publisher: 'Snow Press',
      year: '2019',
      isbn: '9780306406157',
    });
    expect(document.cover).toEqual({ bytes: COVER_PNG, contentType: 'image/png' });
  });

  it('keeps the front matter that has text on request', async () => {
    // The cover is an image and a contents page's nav is never read: neither has text of its own.
    const document = await importDocument(epub3(), { ...limits, includeFrontMatter: true });
    const titles = document.chapters.map((chapter) => chapter.title);
    expect(titles.slice(0, 2)).toEqual(['Copyright', 'Part One']);
    expect(document.chapters[0].blocks.map((block) => block.text)).toEqual([
      '© 2019 Jane Walker. All rights reserved.',
    ]);
  });

  it('reads a book whose encryption.xml only obfuscates fonts', async () => {
    const encryption = `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
      <enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/>
      <enc:CipherData><enc:CipherReference URI="OEBPS/fonts/serif.otf"/></enc:CipherData></enc:EncryptedData></encryption>`;
    const document = await importDocument(epub3({ 'META-INF/encryption.xml': encryption }), limits);
    expect(document.chapters).toHaveLength(5);
  });
});

describe('EPUB sniffed and without a table of contents', () => {
  it('knows an EPUB by its mimetype entry, whatever its name', async () => {
    const document = await importDocument(epub3(), { maxBytes: limits.maxBytes, maxCharacters: limits.maxCharacters });
    expect(document.chapters).toHaveLength(5);
  });

  it('makes each spine document a chapter, titled by its first heading, when the book has no contents', async () => {
    const opf = EPUB3_OPF.replace(' properties="nav"', '');
    const document = await importDocument(epub3({ 'OEBPS/content.opf': opf }), limits);
    expect(document.chapters.map((chapter) => chapter.title)).toEqual(['Part One', 'Part Two']);
    expect(document.chapters[1].blocks.map((block) => block.text)).toEqual([
      'Part Two',
      'Chapter 3. The Hill',
      'We climbed.',
      'At the top, the sun.',
    ]);
  });
});

describe('EPUB 2', () => {
  it('takes the chapters from the NCX, nested, and skips the title page the guide names', async () => {
    const document = await importDocument(epub2(), limits);
    expect(outline(document.chapters)).toEqual([
      { title: 'The First Tale', level: 0, parentIndex: null },
      { title: 'The Second Tale', level: 0, parentIndex: null },
      { title: 'The Moral', level: 1, parentIndex: 1 },
    ]);
    expect(document.chapters[1].blocks.map((block) => block.text)).toEqual(['The Second Tale', 'Then a crow.']);
    expect(document.chapters[2].blocks.map((block) => block.text)).toEqual(['The Moral', 'Flattery costs.']);
    expect(document.metadata).toMatchObject({
      title: 'Old Tales',
      author: 'Ann Teller',
      narrator: 'Ned Reader',
      isbn: '0306406152',
      language: 'en-GB',
      year: '1901',
    });
    expect(document.cover?.contentType).toBe('image/jpeg');
  });
});

describe('EPUB refused', () => {
  const code = (promise: Promise<unknown>) =>
    promise.then(
      () => 'imported',
      (error: { code?: string }) => error.code,
    );

  it('says a book with DRM is protected', async () => {
    const encryption = `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
      <enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
      <enc:CipherData><enc:CipherReference URI="OEBPS/text/book.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>`;
    await expect(code(importDocument(epub3({ 'META-INF/encryption.xml': encryption }), limits))).resolves.toBe(
      'document_protected',
    );
  });

  it('stops inflating a zip bomb', async () => {
    const bomb = new Uint8Array(40_000_000).fill(0x20);
    const bytes = epub3({ 'OEBPS/text/ch3b.xhtml': bomb });
    expect(bytes.length).toBeLessThan(200_000);
    await expect(code(importDocument(bytes, limits))).resolves.toBe('document_too_large');
  });

  it('refuses more inflated bytes in all than allowed', async () => {
    await expect(code(importDocument(epub3(), { ...limits, maxUncompressedBytes: 2_000 }))).resolves.toBe(
      'document_too_large',
    );
  });

  it('refuses an archive of too many entries', async () => {
    const files: Record<string, string> = { 'META-INF/container.xml': CONTAINER };
    for (let index = 0; index < 10_001; index++) files[`OEBPS/f${index}.txt`] = '';
    await expect(code(importDocument(zipEpub(files), limits))).resolves.toBe('document_too_large');
  });

  it('refuses an entry or a reference that leaves the archive', async () => {
    await expect(code(importDocument(epub3({ '../evil.xhtml': '<p>x</p>' }), limits))).resolves.toBe(
      'document_unreadable',
    );
    const escaping = EPUB3_OPF.replace('href="text/ch3b.xhtml"', 'href="../../etc/passwd"');
    await expect(code(importDocument(epub3({ 'OEBPS/content.opf': escaping }), limits))).resolves.toBe(
      'document_unreadable',
    );
  });

  it('says malformed XML and a broken container are unreadable', async () => {
    const broken = EPUB3_OPF.replace('</manifest>', '');
    await expect(code(importDocument(epub3({ 'OEBPS/content.opf': broken }), limits))).resolves.toBe(
      'document_unreadable',
    );
    const truncated = epub3().subarray(0, 2_000);
    await expect(code(importDocument(truncated, limits))).resolves.toBe('document_unreadable');
    const noContainer = zipEpub({ 'OEBPS/content.opf': EPUB3_OPF });
    await expect(code(importDocument(noContainer, limits))).resolves.toBe('document_unreadable');
  });

  it('says a zip that is not an EPUB is unsupported', async () => {
    const zip = Buffer.from(zipSync({ 'a.txt': strToU8('hello') }));
    await expect(code(importDocument(zip, { ...limits, filename: 'a.zip' }))).resolves.toBe('unsupported_media_type');
  });
});
