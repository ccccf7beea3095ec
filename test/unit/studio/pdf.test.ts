import { importDocument } from '../../../studio/import';
import { buildPdf, type PdfPage } from '../../fixtures/studio/pdf';

const limits = { filename: 'book.pdf', maxBytes: 1_000_000, maxCharacters: 100_000 };
const outline = (chapters: { title: string; level: number; parentIndex: number | null }[]) =>
  chapters.map(({ title, level, parentIndex }) => ({ title, level, parentIndex }));
const texts = (blocks: { text: string }[]) => blocks.map((block) => block.text);

const HEADER = 'The Lighthouse Keeper';
const pages: PdfPage[] = [
  { lines: ['The Lighthouse', 'A novel by Ann Writer'] },
  { lines: [HEADER, 'Part One', '2'] },
  {
    lines: [
      HEADER,
      'Chapter 1: Arrival',
      'The keeper came to the island on a grey morn-',
      'ing in March, with one trunk, a lamp and a',
      'dog.',
      'He stayed.',
      'Page 3 of 5',
    ],
  },
  { lines: [HEADER, 'Chapter 2: Storm', 'The storm broke the lamp, and the keeper mended it by', 'candlelight.', '4'] },
  { lines: [HEADER, 'The dog slept through all of it, as dogs do.', '5'] },
];

describe('PDF', () => {
  it('takes the chapters from the outline, nested, without running headers and page numbers', async () => {
    const bytes = buildPdf({
      info: { title: 'The Lighthouse', author: 'Ann Writer' },
      pages,
      outline: [
        {
          title: 'Part One',
          page: 1,
          children: [
            { title: 'Chapter 1: Arrival', page: 2 },
            { title: 'Chapter 2: Storm', page: 3 },
          ],
        },
      ],
    });
    const document = await importDocument(bytes, limits);
    expect(document.metadata).toMatchObject({ title: 'The Lighthouse', author: 'Ann Writer' });
    expect(outline(document.chapters)).toEqual([
      { title: 'Part One', level: 0, parentIndex: null },
      { title: 'Chapter 1: Arrival', level: 1, parentIndex: 0 },
      { title: 'Chapter 2: Storm', level: 1, parentIndex: 0 },
    ]);
    const [part, arrival, storm] = document.chapters;
    expect(part.blocks).toEqual([{ kind: 'heading', text: 'Part One' }]);
    expect(texts(arrival.blocks)).toEqual([
      'Chapter 1: Arrival',
      'The keeper came to the island on a grey morning in March, with one trunk, a lamp and a dog.',
      'He stayed.',
    ]);
    // A paragraph goes on across a page break; the next page's running header is gone from it.
    expect(texts(storm.blocks)).toEqual([
      'Chapter 2: Storm',
      'The storm broke the lamp, and the keeper mended it by candlelight.',
      'The dog slept through all of it, as dogs do.',
    ]);
  });

  it('finds chapter headings in a PDF without an outline', async () => {
    const document = await importDocument(buildPdf({ pages: pages.slice(1) }), limits);
    expect(document.chapters.map((chapter) => chapter.title)).toEqual([
      'Part One',
      'Chapter 1: Arrival',
      'Chapter 2: Storm',
    ]);
  });

  it('says a PDF of scanned images has no text layer', async () => {
    const bytes = buildPdf({ pages: [{ image: true }, { image: true }] });
    await expect(importDocument(bytes, limits)).rejects.toMatchObject({ code: 'no_text_layer' });
  });

  it('says a damaged PDF is unreadable', async () => {
    const bytes = Buffer.from('%PDF-1.4\nnot really a pdf\n%%EOF\n', 'latin1');
    await expect(importDocument(bytes, limits)).rejects.toMatchObject({ code: 'document_unreadable' });
  });
});
