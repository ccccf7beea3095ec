import { escapeForEspeak } from '../text';
import { mapLimit } from '../../lib/concurrency';
import { run } from '../../lib/process';
import { KeptEspeakUnavailable, keptEspeakIpa } from './espeakProcess';

/**
 * Text to the phoneme ids a Piper voice was trained on, made the way Piper
 * makes them (piper-tts's espeak phonemizer), but with the espeak-ng command
 * line instead of Piper's patched library, so no Python and no GPL data of
 * Piper's ship here:
 *
 * - the text splits into clauses after `.!?,;:` followed by whitespace;
 *   `.!?` end a sentence (each sentence is one model call), `,;:` do not;
 * - each clause is phonemized by `espeak-ng -q --ipa -v <voice>` (a kept
 *   process per voice reading one clause after another, engines/piper/espeakProcess.ts), language
 *   switch flags such as `(fr)` are removed, the clause's punctuation is kept
 *   (followed by a space after `,;:`);
 * - the phonemes are the NFD code points of that string, mapped through the
 *   voice's `phoneme_id_map` (unknown ones dropped); the ids are `^`, pad,
 *   then each phoneme's ids followed by pad, then `$`.
 *
 * test/unit/piperPhonemes.test.ts holds this to ids piper-tts produced.
 */

export type PhonemeIdMap = Readonly<Record<string, readonly number[]>>;

export interface Clause {
  text: string;
  /** `.`, `!`, `?`, `,`, `;`, `:` or '' (the text's end without punctuation). */
  terminator: string;
}

const SENTENCE_END = new Set(['.', '!', '?']);

/**
 * Clauses of a text: split after clause punctuation that a space (or the end)
 * follows. A run of it counts as its first mark (`?!` is a question), except
 * an ellipsis (`...`, `…`), which espeak-ng ends a clause at without any
 * punctuation: the next clause continues the sentence.
 */
export function splitClauses(text: string): Clause[] {
  const clauses: Clause[] = [];
  const pattern = /(\.\.\.+|…|[.!?,;:]+)(?:\s+|$)/gu;
  let start = 0;
  for (const match of text.matchAll(pattern)) {
    const end = match.index ?? 0;
    const run = match[1];
    clauses.push({
      text: text.slice(start, end).trim(),
      terminator: run.startsWith('..') || run === '…' ? '' : run[0],
    });
    start = end + match[0].length;
  }
  const rest = text.slice(start).trim();
  if (rest) clauses.push({ text: rest, terminator: '' });
  return clauses.filter((clause) => clause.text || clause.terminator);
}

/** The phonemes (NFD code points, punctuation and spaces included) of each sentence, given each clause's IPA. */
export function sentencePhonemes(clauses: readonly Clause[], ipa: readonly string[]): string[][] {
  const sentences: string[][] = [];
  let current: string[] = [];
  clauses.forEach((clause, index) => {
    let phonemes = ipa[index].replace(/\([^)]+\)/g, '') + clause.terminator;
    if (clause.terminator && !SENTENCE_END.has(clause.terminator)) phonemes += ' ';
    current.push(...phonemes.normalize('NFD'));
    if (SENTENCE_END.has(clause.terminator)) {
      sentences.push(current);
      current = [];
    }
  });
  if (current.length > 0) sentences.push(current);
  return sentences;
}

/** `^`, pad, each known phoneme's ids followed by pad, `$`. */
export function phonemeIds(phonemes: readonly string[], map: PhonemeIdMap): number[] {
  const pad = map._ ?? [0];
  const ids: number[] = [...(map['^'] ?? [1]), ...pad];
  for (const phoneme of phonemes) {
    const mapped = map[phoneme];
    if (!mapped) continue;
    ids.push(...mapped, ...pad);
  }
  ids.push(...(map.$ ?? [2]));
  return ids;
}

const LINKING_VOWEL = /(iː?|ɪ)$/u;
const STARTS_WITH_VOWEL = /^[ˈˌ]?[aeiouæɐɑɒɔəɚɛɜɝɪʊʌ]/u;

/**
 * A line of `espeak-ng --ipa=1` output (phonemes joined by `_`) as the
 * library writes IPA. Empty phonemes are pauses, and the linking palatal
 * (`;` in espeak's mnemonics) that joins a word ending in i/ɪ to a vowel:
 * the library writes that one as `ʲ` ("three apples" is `θɹˈiːʲ ˈæpəlz`),
 * the CLI drops it.
 */
export function ipaFromSeparated(line: string): string {
  const words = line.split(' ');
  return words
    .map((word, index) => {
      const phonemes = word.split('_');
      const spoken = phonemes.filter((phoneme) => phoneme !== '');
      const silent = phonemes.length > 1 && phonemes.at(-1) === '';
      const linked =
        silent && LINKING_VOWEL.test(spoken.at(-1) ?? '') && STARTS_WITH_VOWEL.test(words[index + 1] ?? '');
      return spoken.join('') + (linked ? 'ʲ' : '');
    })
    .join(' ');
}

/**
 * One clause's IPA from the espeak-ng CLI. The CLI prints one line per clause
 * it finds itself (e.g. after an abbreviation's dot): those join with a
 * space, as Piper's phonemizer reads them within one of our clauses.
 */
async function espeakIpa(text: string, voice: string, signal?: AbortSignal): Promise<string> {
  if (!/[\p{L}\p{N}]/u.test(text)) return '';
  const { stdout } = await run('espeak-ng', ['-q', '--ipa=1', '-b', '1', '-v', voice], {
    input: escapeForEspeak(text),
    signal,
    timeoutMs: 30_000,
  });
  return joinIpaLines(stdout.toString('utf8').split('\n'));
}

const joinIpaLines = (lines: readonly string[]) =>
  lines
    .map((line) => line.trim())
    .filter(Boolean)
    .map(ipaFromSeparated)
    .join(' ');

/** Every clause's IPA: from the voice's kept espeak-ng when it can, else a process per clause (two at a time). */
async function clausesIpa(clauses: readonly Clause[], voice: string, signal?: AbortSignal): Promise<string[]> {
  const speaking = clauses.map((clause) => /[\p{L}\p{N}]/u.test(clause.text));
  try {
    const lines = await keptEspeakIpa(
      clauses.filter((_, index) => speaking[index]).map((clause) => escapeForEspeak(clause.text)),
      voice,
      signal,
    );
    let next = 0;
    return speaking.map((speaks) => (speaks ? joinIpaLines(lines[next++]) : ''));
  } catch (error) {
    if (!(error instanceof KeptEspeakUnavailable)) throw error;
  }
  // espeak-ng costs ~15 ms per process, mostly start-up: two at a time beside the model's own thread.
  return mapLimit(clauses, 2, (clause) => espeakIpa(clause.text, voice, signal));
}

/** Text to one id sequence per sentence (each is one model call). */
export async function textToPhonemeIds(
  text: string,
  options: { espeakVoice: string; map: PhonemeIdMap; signal?: AbortSignal },
): Promise<number[][]> {
  return (await textToPhonemes(text, options)).map(({ phonemes }) => phonemeIds(phonemes, options.map));
}

export interface SentencePhonemes {
  phonemes: string[];
  /** Where in the text each phoneme's clause lies (UTF-16 offsets), for word timestamps. */
  clauses: Array<{ start: number; end: number }>;
}

/** A stretch of the text (UTF-16 offsets) to say as the given IPA instead of what espeak-ng makes of it. */
export interface GivenPronunciation {
  ipa: string;
  start: number;
  end: number;
}

/** Text espeak-ng phonemizes, or IPA said as given. */
type Part = { text: string } | { ipa: string };

/**
 * A clause's parts: the stretches a pronunciation covers say its IPA (NFC
 * composed letters become the NFD code points Piper's map holds, like
 * espeak-ng's own output), the rest is phonemized as before.
 */
function clauseParts(clause: string, at: number, pronunciations: readonly GivenPronunciation[]): Part[] {
  const inside = pronunciations
    .filter((p) => p.start < at + clause.length && p.end > at)
    .sort((a, b) => a.start - b.start);
  if (inside.length === 0) return [{ text: clause }];
  const parts: Part[] = [];
  let cursor = 0;
  for (const p of inside) {
    const from = Math.max(cursor, p.start - at);
    const to = Math.min(clause.length, p.end - at);
    if (from >= to) continue;
    if (from > cursor && clause.slice(cursor, from).trim()) parts.push({ text: clause.slice(cursor, from).trim() });
    parts.push({ ipa: p.ipa.trim().replace(/\s+/g, ' ') });
    cursor = to;
  }
  if (clause.slice(cursor).trim()) parts.push({ text: clause.slice(cursor).trim() });
  return parts;
}

/** Text to the phonemes of each sentence (phonemeIds makes a model call's ids of one); `pronunciations` are said as their IPA. */
export async function textToPhonemes(
  text: string,
  options: { espeakVoice: string; signal?: AbortSignal; pronunciations?: readonly GivenPronunciation[] },
): Promise<SentencePhonemes[]> {
  const clauses = splitClauses(text);
  // Each clause's place in the text, and how many phonemes it adds (sentencePhonemes' own count).
  let cursor = 0;
  const ranges = clauses.map((clause) => {
    const start = Math.max(cursor, text.indexOf(clause.text, cursor));
    cursor = start + clause.text.length;
    return { start, end: cursor };
  });
  let ipa: string[];
  const given = options.pronunciations ?? [];
  if (given.length === 0) {
    ipa = await clausesIpa(clauses, options.espeakVoice, options.signal);
  } else {
    // Clauses with a given pronunciation are phonemized in pieces around it, all in one round.
    const parts = clauses.map((clause, index) => clauseParts(clause.text, ranges[index].start, given));
    const pieces = parts.flat().flatMap((part) => ('text' in part ? [{ text: part.text, terminator: '' }] : []));
    const read = await clausesIpa(pieces, options.espeakVoice, options.signal);
    let next = 0;
    ipa = parts.map((clauseParts) =>
      clauseParts
        .map((part) => ('text' in part ? read[next++] : part.ipa))
        .filter(Boolean)
        .join(' '),
    );
  }
  const owners = clauses.flatMap((clause, index) =>
    Array.from({ length: sentencePhonemes([clause], [ipa[index]]).flat().length }, () => ranges[index]),
  );
  let next = 0;
  return sentencePhonemes(clauses, ipa).map((phonemes) => ({ phonemes, clauses: phonemes.map(() => owners[next++]) }));
}
