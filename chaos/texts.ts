/** The sentences every chaos load speaks (the suite, the soak, the multi-node harness): plain English every engine reads. */
const SENTENCES = [
  'The morning train left on time, and every passenger found a seat by the window before the first stop.',
  'Rain kept falling on the harbour while the fishing boats came back one after another.',
  'She wrote the numbers down twice, because the first list had gone missing in the storm.',
  'A small dog waited at the corner of the market until the baker opened his door.',
];

/** `count` whole sentences, from the `offset`-th on (round the list). */
export const sentences = (count: number, offset: number): string =>
  Array.from({ length: count }, (_, i) => SENTENCES[(offset + i) % SENTENCES.length]).join(' ');

/** A text of exactly `characters` code points (the cost), from whole sentences as far as they fit. */
export function textOfLength(characters: number, offset = 0): string {
  let text = '';
  for (let i = offset; text.length < characters; i++) text += (text ? ' ' : '') + SENTENCES[i % SENTENCES.length];
  text = text.slice(0, characters);
  // Trimming must not change the cost.
  return text.replace(/\s$/, '.');
}

const NUMBERS = ['One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine', 'Ten', 'Eleven', 'Twelve'];

/**
 * A Markdown book for Studio's scenario and bench: `chapters` chapters
 * ("Chapter One", …), each a heading and paragraphs of whole sentences from
 * `source` (round the list) until the chapter holds about `charactersPerChapter`,
 * at most `paragraphCharacters` a paragraph. Every paragraph starts with its
 * chapter's and part's name, so no two blocks share a text (and so an audio).
 */
export function bookMarkdown(
  chapters: number,
  charactersPerChapter: number,
  paragraphCharacters: number,
  source: readonly string[] = SENTENCES,
): { markdown: string; titles: string[] } {
  const titles = Array.from({ length: chapters }, (_, i) => `Chapter ${NUMBERS[i] ?? i + 1}`);
  let next = 0;
  const markdown = titles
    .map((title) => {
      const paragraphs: string[] = [];
      for (let written = title.length; written < charactersPerChapter;) {
        let paragraph = `${title}, part ${paragraphs.length + 1}.`;
        do paragraph += ` ${source[next++ % source.length]}`;
        while (paragraph.length < paragraphCharacters && written + paragraph.length < charactersPerChapter);
        paragraphs.push(paragraph);
        written += paragraph.length;
      }
      return `# ${title}\n\n${paragraphs.join('\n\n')}\n`;
    })
    .join('\n');
  return { markdown, titles };
}
