/**
 * The scanner: walks the source once, trying the language's rules at each
 * word boundary; what no rule claims is copied as written. Every piece keeps
 * the source span it came from, so each spoken word can point back into the
 * text the client sent.
 *
 * Linear time: a rule tried at position i sees only a window of the text
 * (its reach past i, and CONTEXT characters either side), so what each try
 * can read is bounded whatever the text holds. Rules used to scan to the end
 * of a long run ("a.a.a.….a@" tried the e-mail rule at every word, each time
 * to the @), which made some texts quadratic (issue 41). `steps` counts the
 * characters the rules are shown plus those the scanner steps over: the
 * tests check it grows linearly.
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

/** How far past its start a rule may match unless it says otherwise (`Rule.reach`). */
export const REACH = 256;
/** What a rule sees before its start and after its reach: its lookaheads and its context words. */
export const CONTEXT = 64;

/** Splits `text` into pieces: rule replacements and the untouched text between them. */
function scan(text: string, rules: readonly Rule[], tag: string): { pieces: Piece[]; steps: number } {
  const pieces: Piece[] = [];
  let steps = 0;
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
        const reach = rule.reach ?? REACH;
        const from = Math.max(0, i - CONTEXT);
        const window = text.slice(from, Math.min(text.length, i + reach + CONTEXT));
        // What the rule may read (counted in full at the text's ends too: the count is an upper bound).
        steps += reach + 2 * CONTEXT;
        rule.re.lastIndex = i - from;
        const match = rule.re.exec(window);
        // Longer than its reach, the match may have run into the window's end (lookaheads saw no more text).
        if (!match || match[0].length === 0 || match[0].length > reach) continue;
        const end = i + match[0].length;
        // A match must not end inside a word ("5kgs" is not "5 kg" + "s").
        if (isAlnumAt(text, end - 1) && isAlnumAt(text, end)) continue;
        const ctx: RuleContext = { text: window, start: i - from, end: end - from, tag, region: reg };
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
    const was = i;
    if (here) while (i < text.length && isAlnumAt(text, i)) i++;
    else i++;
    steps += i - was;
  }
  flush(text.length);
  return { pieces, steps };
}

/** Joins pieces into the spoken text and the word → source span list. */
function assemble(pieces: readonly Piece[]): { spoken: string; words: SpokenWord[] } {
  const chunks: string[] = [];
  const words: SpokenWord[] = [];
  // Whether the spoken text so far ends with a letter or digit (testing the whole string each time was quadratic).
  let alnumEnd = false;
  for (const piece of pieces) {
    let chunk = piece.text;
    // Keep a replacement apart from letters it touches ("R&D" → "R and D").
    if (alnumEnd && /^[\p{L}\p{N}]/u.test(chunk)) chunk = ' ' + chunk;
    for (const match of chunk.matchAll(WORD)) {
      const offset = (match.index ?? 0) - (chunk.length - piece.text.length);
      words.push(
        piece.replaced
          ? { word: match[0], source_start: piece.start, source_end: piece.end }
          : { word: match[0], source_start: piece.start + offset, source_end: piece.start + offset + match[0].length },
      );
    }
    chunks.push(chunk);
    if (chunk !== '') alnumEnd = /[\p{L}\p{N}]$/u.test(chunk);
  }
  return { spoken: chunks.join(''), words };
}

/** Runs `rules` over `text`. With no rules, spoken is the text itself and each word maps to itself. */
export function run(
  text: string,
  rules: readonly Rule[],
  tag: string,
): { spoken: string; words: SpokenWord[]; steps: number } {
  const { pieces, steps } = scan(text, rules, tag);
  return { ...assemble(pieces), steps };
}
