/**
 * Text that arrives in pieces (a Wyoming stream's `synthesize-chunk` events,
 * as a language model writes it) cut into sentences as soon as each is
 * complete: a sentence is complete once the text after it has begun (a
 * sentence end is only known when what follows is seen, as "3." in "3.5").
 * A piece that says nothing (no letter or digit: "…", an emoji) goes with the
 * sentence after it; a sentence that grows past `maxChars` code points
 * without an end is let go at the last space (or whole).
 */

const sentenceSegmenter = new Intl.Segmenter(undefined, { granularity: 'sentence' });
const SAYS_SOMETHING = /[\p{L}\p{N}]/u;

export class SentenceBuffer {
  private pending = '';

  constructor(private readonly maxChars = 400) {}

  /** Adds a piece of text; returns the sentences it completed, in order (trimmed, each saying something). */
  add(text: string): string[] {
    this.pending += text;
    const segments = [...sentenceSegmenter.segment(this.pending)].map((part) => part.segment);
    // The last segment may go on in the next piece.
    const last = segments.pop() ?? '';
    const out: string[] = [];
    let carried = '';
    for (const segment of segments) {
      carried += segment;
      if (SAYS_SOMETHING.test(carried)) {
        out.push(carried.trim());
        carried = '';
      }
    }
    this.pending = carried + last;
    while ([...this.pending].length > this.maxChars) {
      const chars = [...this.pending];
      const head = chars.slice(0, this.maxChars).join('');
      const space = head.lastIndexOf(' ');
      const cut = space > 0 ? space : head.length;
      const sentence = this.pending.slice(0, cut).trim();
      this.pending = this.pending.slice(cut);
      if (SAYS_SOMETHING.test(sentence)) out.push(sentence);
    }
    return out;
  }

  /** The end of the text: what is left, trimmed ('' when it says nothing). */
  finish(): string {
    const rest = this.pending.trim();
    this.pending = '';
    return SAYS_SOMETHING.test(rest) ? rest : '';
  }
}
