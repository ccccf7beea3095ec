import { importDocument, type ImportOptions } from '../../../studio/import';

const limits = { maxBytes: 1_000_000, maxCharacters: 100_000 };
const importText = (text: string, options: Partial<ImportOptions> = {}) =>
  importDocument(Buffer.from(text, 'utf8'), { ...limits, ...options });
const outline = (chapters: { title: string; level: number; parentIndex: number | null }[]) =>
  chapters.map(({ title, level, parentIndex }) => ({ title, level, parentIndex }));
const texts = (blocks: { text: string }[]) => blocks.map((block) => block.text);

describe('Markdown', () => {
  const markdown = `---
title: Field Notes
author: Ruth Quill
---
Some words before any heading.

# Spring

The *first* thaw came [early](https://example.org) this year, ![a photo](thaw.jpg)
and the river rose.

\`\`\`
const listing = 'not read';
\`\`\`

## March

Birds returned. Use \`binoculars\`.

### A note on geese

Geese first.

## April

- Rain
- More rain

# Summer

HOST: Welcome back to the show.
GUEST: Glad to be here,
really glad.
HOST: Let's begin.
`;

  it('makes # and ## headings the chapters, nested, in order', async () => {
    const document = await importText(markdown, { filename: 'notes.md' });
    expect(document.metadata).toMatchObject({ title: 'Field Notes', author: 'Ruth Quill' });
    expect(outline(document.chapters)).toEqual([
      { title: 'Field Notes', level: 0, parentIndex: null },
      { title: 'Spring', level: 0, parentIndex: null },
      { title: 'March', level: 1, parentIndex: 1 },
      { title: 'April', level: 1, parentIndex: 1 },
      { title: 'Summer', level: 0, parentIndex: null },
    ]);
  });

  it('strips the markup: links keep their text, images and code blocks are dropped', async () => {
    const [, spring, march, april] = (await importText(markdown, { filename: 'notes.md' })).chapters;
    expect(texts(spring.blocks)).toEqual(['Spring', 'The first thaw came early this year, and the river rose.']);
    expect(march.blocks).toEqual([
      { kind: 'heading', text: 'March' },
      { kind: 'paragraph', text: 'Birds returned. Use binoculars.' },
      { kind: 'heading', text: 'A note on geese' },
      { kind: 'paragraph', text: 'Geese first.' },
    ]);
    expect(texts(april.blocks)).toEqual(['April', 'Rain', 'More rain']);
  });

  it('reads a chapter of script lines as one speaker per line', async () => {
    const summer = (await importText(markdown, { filename: 'notes.md' })).chapters[4];
    expect(summer.blocks.slice(1)).toEqual([
      {
        kind: 'paragraph',
        text: 'Welcome back to the show.',
        segments: [{ speaker: 'HOST', text: 'Welcome back to the show.' }],
      },
      {
        kind: 'paragraph',
        text: 'Glad to be here, really glad.',
        segments: [{ speaker: 'GUEST', text: 'Glad to be here, really glad.' }],
      },
      { kind: 'paragraph', text: "Let's begin.", segments: [{ speaker: 'HOST', text: "Let's begin." }] },
    ]);
  });

  it('takes a JSON body by its named format', async () => {
    const document = await importText('## One\n\nText.\n\n## Two\n\nMore.', { format: 'markdown' });
    expect(document.chapters.map((chapter) => chapter.title)).toEqual(['One', 'Two']);
  });
});

describe('plain text', () => {
  it('finds the chapter headings books use, and joins hard-wrapped lines', async () => {
    const text = [
      'Prologue',
      '',
      'Before it all began, the town',
      'was quiet and the mill-',
      'stream ran clear.',
      '',
      'Note: this was long ago.',
      '',
      'PART II',
      '',
      'CHAPTER TWELVE',
      'The Flood',
      '',
      'Water everywhere.',
      '',
      'Chapter 13',
      '',
      'Dry again.',
      '',
      'XIV',
      '',
      'The end of it.',
    ].join('\r\n');
    const document = await importText(text, { filename: 'town.txt' });
    expect(outline(document.chapters)).toEqual([
      { title: 'Prologue', level: 0, parentIndex: null },
      { title: 'PART II', level: 0, parentIndex: null },
      { title: 'CHAPTER TWELVE: The Flood', level: 1, parentIndex: 1 },
      { title: 'Chapter 13', level: 1, parentIndex: 1 },
      { title: 'XIV', level: 1, parentIndex: 1 },
    ]);
    // Prose with one "Note:" line is prose; a hyphen at a line's end joins the word when the next goes on in lower case.
    expect(document.chapters[0].blocks).toEqual([
      { kind: 'heading', text: 'Prologue' },
      { kind: 'paragraph', text: 'Before it all began, the town was quiet and the millstream ran clear.' },
      { kind: 'paragraph', text: 'Note: this was long ago.' },
    ]);
    expect(document.chapters[1].blocks).toEqual([{ kind: 'heading', text: 'PART II' }]);
  });

  it('splits at a separator the user names', async () => {
    const text = 'Morning\nThe sun rose.\n***\nThe day went on, long and hot.\n***\nNight\nStars.';
    const document = await importText(text, { filename: 'day.txt', chapterSeparator: '***' });
    expect(document.chapters.map((chapter) => [chapter.title, texts(chapter.blocks)])).toEqual([
      ['Morning', ['Morning', 'The sun rose.']],
      ['day 2', ['The day went on, long and hot.']],
      ['Night', ['Night', 'Stars.']],
    ]);
  });

  it('reads one paragraph per line in a file without blank lines, and UTF-16 with its byte order mark', async () => {
    const text = 'First line ends here.\nSecond one too.\nAnd a third.\nFourth.';
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const document = await importDocument(utf16, { ...limits, filename: 'lines.txt' });
    expect(texts(document.chapters[0].blocks)).toEqual(text.split('\n'));
    expect(document.chapters[0].title).toBe('lines');
  });
});

describe('HTML', () => {
  it('makes h1 and h2 the chapters and drops scripts, styles and navigation', async () => {
    const html = `<!DOCTYPE html><html lang="fr"><head><title>Carnet</title><style>p{}</style>
      <meta name="author" content="Luc"></head><body>
      <nav><a href="#a">Sommaire</a></nav><script>alert(1)</script>
      <h1>Un</h1><p>Premier <em>texte</em>.</p><h2>Un bis</h2><p>Suite.</p><h1>Deux</h1><p>Fin.</p></body></html>`;
    const document = await importText(html, { filename: 'carnet.html' });
    expect(document.metadata).toMatchObject({ title: 'Carnet', language: 'fr', author: 'Luc' });
    expect(outline(document.chapters)).toEqual([
      { title: 'Un', level: 0, parentIndex: null },
      { title: 'Un bis', level: 1, parentIndex: 0 },
      { title: 'Deux', level: 0, parentIndex: null },
    ]);
    expect(texts(document.chapters[0].blocks)).toEqual(['Un', 'Premier texte.']);
  });
});

describe('text refused', () => {
  const code = (promise: Promise<unknown>) =>
    promise.then(
      () => 'imported',
      (error: { code?: string }) => error.code,
    );

  it('says text that is not UTF-8 is unreadable', async () => {
    const latin1 = Buffer.from('Caf\xe9 cr\xe8me', 'latin1');
    await expect(code(importDocument(latin1, { ...limits, filename: 'menu.txt' }))).resolves.toBe(
      'document_unreadable',
    );
  });

  it('refuses more bytes or more characters than allowed', async () => {
    await expect(code(importText('x'.repeat(2_000), { maxBytes: 1_000 }))).resolves.toBe('document_too_large');
    await expect(code(importText('word '.repeat(500), { maxCharacters: 1_000 }))).resolves.toBe('document_too_large');
  });

  it('says a type it does not read is unsupported', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    await expect(code(importDocument(png, { ...limits, filename: 'photo.png' }))).resolves.toBe(
      'unsupported_media_type',
    );
    await expect(code(importDocument(png, limits))).resolves.toBe('unsupported_media_type');
  });
});
