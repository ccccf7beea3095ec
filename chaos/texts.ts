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
