import type { Knex } from 'knex';
import { PronunciationDictionary } from '../db/models/PronunciationDictionary';
import { PronunciationEntry } from '../db/models/PronunciationEntry';
import { aliasExpansion, compileLexicon, type CompiledLexicon } from '../text/lexicon';
import { parseSsml } from '../text/ssml';

/**
 * What a text says once its pronunciation dictionaries' aliases replace what
 * they match: the length that is charged when it exceeds the written text
 * (synthesis/cost.ts) and that must fit the plan's text limit. Every route
 * that reaches the engines checks it before anything is reserved.
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

/** Compiled dictionaries by their ids and versions (an entry written bumps its dictionary's `updated_at`). */
const compiled = new Map<string, CompiledLexicon | null>();
const CACHED = 16;

/**
 * The dictionaries `ids`, in that order, compiled for matching (null for
 * none or no entry). Compiled once per version of the set and kept for the
 * next request: a 10,000-entry dictionary takes tens of milliseconds to read
 * and compile, which the API's event loop should pay once, not per request.
 */
export async function compiledDictionaries(db: Knex, ids: readonly string[]): Promise<CompiledLexicon | null> {
  if (ids.length === 0) return null;
  const versions = await PronunciationDictionary.query(db)
    .whereIn('id', [...ids])
    .select('id', 'updated_at');
  const version = new Map(versions.map((row) => [row.id, row.updated_at.toISOString()]));
  const key = ids.map((id) => `${id}@${version.get(id) ?? 'gone'}`).join(',');
  const hit = compiled.get(key);
  if (hit !== undefined) {
    // Most recently used last.
    compiled.delete(key);
    compiled.set(key, hit);
    return hit;
  }
  const entries = await PronunciationEntry.lexiconOf(db, ids);
  const lexicon = entries.length > 0 ? compileLexicon(entries) : null;
  compiled.set(key, lexicon);
  if (compiled.size > CACHED) compiled.delete(compiled.keys().next().value!);
  return lexicon;
}
