/**
 * The scanner: walks the source once, trying the language's rules at each
 * word boundary; what no rule claims is copied as written. Every piece keeps
 * the source span it came from, so each spoken word can point back into the
 * text the client sent.
 */
import { isAlnumAt, WORD } from './shared';
import type { Rule, RuleContext } from './types';

export interface SpokenWord {
  word: string;
  /** UTF-16 offsets into the source, end exclusive. */
  source_start: number;
  source_end: number;
}

interface Piece {
  text: string;
  start: number;
  end: number;
  replaced: boolean;
}

function region(tag: string): string {
  const parts = tag.split(/[-_]/);
  return (
    parts
      .slice(1)
      .find((part) => /^([A-Za-z]{2}|\d{3})$/.test(part))
      ?.toUpperCase() ?? ''
  );
}

/** Splits `text` into pieces: rule replacements and the untouched text between them. */
function scan(text: string, rules: readonly Rule[], tag: string): Piece[] {
  const pieces: Piece[] = [];
  const reg = region(tag);
  let plainStart = 0;
  let i = 0;
  const flush = (until: number): void => {
    if (until > plainStart)
      pieces.push({ text: text.slice(plainStart, until), start: plainStart, end: until, replaced: false });
  };
  while (i < text.length) {
    const here = isAlnumAt(text, i);
    // Rules start only where a word starts, or at a symbol.
    const boundary = !here || !isAlnumAt(text, i - 1);
    let claimed = false;
    if (boundary) {
      for (const rule of rules) {
        rule.re.lastIndex = i;
        const match = rule.re.exec(text);
        if (!match || match[0].length === 0) continue;
        const end = i + match[0].length;
        // A match must not end inside a word ("5kgs" is not "5 kg" + "s").
        if (isAlnumAt(text, end - 1) && isAlnumAt(text, end)) continue;
        const ctx: RuleContext = { text, start: i, end, tag, region: reg };
        const spoken = rule.apply(match, ctx);
        if (spoken === null) continue;
        flush(i);
        pieces.push({ text: spoken, start: i, end, replaced: true });
        i = end;
        plainStart = end;
        claimed = true;
        break;
      }
    }
    if (claimed) continue;
    if (here) while (i < text.length && isAlnumAt(text, i)) i++;
    else i++;
  }
  flush(text.length);
  return pieces;
}

/** Joins pieces into the spoken text and the word → source span list. */
function assemble(pieces: readonly Piece[]): { spoken: string; words: SpokenWord[] } {
  let spoken = '';
  const words: SpokenWord[] = [];
  for (const piece of pieces) {
    let chunk = piece.text;
    // Keep a replacement apart from letters it touches ("R&D" → "R and D").
    if (/[\p{L}\p{N}]$/u.test(spoken) && /^[\p{L}\p{N}]/u.test(chunk)) chunk = ' ' + chunk;
    for (const match of chunk.matchAll(WORD)) {
      const offset = (match.index ?? 0) - (chunk.length - piece.text.length);
      words.push(
        piece.replaced
          ? { word: match[0], source_start: piece.start, source_end: piece.end }
          : { word: match[0], source_start: piece.start + offset, source_end: piece.start + offset + match[0].length },
      );
    }
    spoken += chunk;
  }
  return { spoken, words };
}

/** Runs `rules` over `text`. With no rules, spoken is the text itself and each word maps to itself. */
export function run(text: string, rules: readonly Rule[], tag: string): { spoken: string; words: SpokenWord[] } {
  return assemble(scan(text, rules, tag));
}
