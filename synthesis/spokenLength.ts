import { splitText } from '../engines/text';
import { aliasExpansion, type CompiledLexicon } from '../text/lexicon';
import { parseSsml } from '../text/ssml';
import { CHUNK_CHARS } from './speechPlan';

/**
 * What a text says once its pronunciation dictionaries' aliases replace what
 * they match: the length that is charged when it exceeds the written text
 * (synthesis/cost.ts) and that must fit the plan's text limit. Every route
 * that reaches the engines checks it before anything is reserved, and the
 * render of plain text checks it again with the dictionaries it reads.
 */

const codePoints = (text: string): number => [...text].length;

/**
 * Code points the text says after the aliases (the written length when the
 * aliases shorten it or there is no dictionary). An SSML document counts its
 * markup as written (as its characters do) plus what the aliases add to its
 * text.
 */
export function spokenCharacters(
  text: string,
  textType: 'text' | 'ssml',
  language: string,
  lexicon: CompiledLexicon | null,
): number {
  const written = codePoints(text);
  if (!lexicon) return written;
  if (textType === 'text') return Math.max(written, written + aliasExpansion(text, lexicon));
  const said = (withLexicon: CompiledLexicon | null) =>
    codePoints(parseSsml(text, { language, lexicon: withLexicon, normalize: false }).plainText);
  return Math.max(written, written + said(lexicon) - said(null));
}

/**
 * Most characters one passage of plain text (the up to CHUNK_CHARS written
 * characters rendered in one step) may say after its aliases. Plain text is
 * planned on what it writes and its aliases applied as each passage renders:
 * a passage of a few characters whose aliases say thousands rendered as one
 * engine request of minutes of audio, and its step did not finish.
 */
export const MAX_PASSAGE_SPOKEN = 3 * CHUNK_CHARS;

/** The most characters a passage of plain text says after the aliases (as planned: synthesis/speechPlan.ts). */
export function longestPassage(text: string, lexicon: CompiledLexicon): number {
  let longest = 0;
  for (const passage of splitText(text, CHUNK_CHARS))
    longest = Math.max(longest, codePoints(passage) + Math.max(0, aliasExpansion(passage, lexicon)));
  return longest;
}
