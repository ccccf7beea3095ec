import { aliasExpansion, type CompiledLexicon } from '../text/lexicon';
import { parseSsml } from '../text/ssml';

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
