import type { EngineWord } from '../engines/types';
import { speechBounds, type SpeechSpan } from './pcm';
import { readWavSamples } from './wav';

/**
 * Word timestamps: what an engine says about its own timing (Piper's phoneme
 * durations, Festival's word relation) mapped onto the words of the text the
 * client sent, then carried through every step that moves time: the chunk's
 * trim and tempo (renderChunk), and the chunk joins with their pauses
 * (finishAudio).
 *
 * Engines speak their own words: "42" becomes "forty two", espeak-ng joins
 * "of the" into one phonetic word. alignWords matches the two sequences by
 * length (letters against phonemes or letters), allowing one text word to
 * span several engine words and the reverse, so each text word gets the span
 * of what the engine said for it.
 */

/** A word of the text: offsets in UTF-16 code units of the text it came from. */
export interface TextToken {
  word: string;
  start: number;
  end: number;
}

/** A word with its time in some audio (seconds) and its place in some text (code units until `deliveredWords`). */
export interface TimedWord {
  word: string;
  start: number;
  end: number;
  char_start: number;
  char_end: number;
}

/** Letters and digits, with the apostrophes, hyphens and inner dots/commas that keep a word whole ("don't", "1,234", "e.g"). */
const TOKEN = /[\p{L}\p{M}\p{N}]+(?:['’.,\-][\p{L}\p{M}\p{N}]+)*/gu;

export function textTokens(text: string): TextToken[] {
  return Array.from(text.matchAll(TOKEN), (match) => ({
    word: match[0],
    start: match.index ?? 0,
    end: (match.index ?? 0) + match[0].length,
  }));
}

/** Roughly how much speech a token makes, in letters (a digit says about four). */
const spokenLength = (word: string) => {
  // An abbreviation in capitals ("US", "I") is spelled: about two sounds a letter.
  const spelled = word.length <= 5 && /^[\p{Lu}.]+$/u.test(word);
  let length = 0;
  for (const char of word) length += /\p{N}/u.test(char) ? 4 : /[\p{L}]/u.test(char) ? (spelled ? 2 : 1) : 0;
  return Math.max(1, length);
};

const MAX_SPREAD = 8;
const MAX_MERGE = 4;
const plain = (word: string) => word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/**
 * Each token's span in the engine's words (same order, both monotonic), or
 * null for a token the engine said nothing for. Dynamic programming over
 * groupings: 1:1, one token to up to MAX_SPREAD engine words, up to
 * MAX_MERGE tokens to one engine word, and (at a price) skips; the cost of
 * a grouping is how far its length ratio is from the whole text's.
 */
function alignWords(
  tokens: readonly TextToken[],
  words: readonly EngineWord[],
  lengthOf: (token: TextToken) => number = (token) => spokenLength(token.word),
): Array<{ start: number; end: number } | null> {
  const n = tokens.length;
  const m = words.length;
  if (n === 0) return [];
  if (m === 0) return tokens.map(() => null);
  const tokenLength = tokens.map(lengthOf);
  const wordLength = words.map((word) => Math.max(1, word.weight ?? spokenLength(word.text)));
  const ratio = wordLength.reduce((a, b) => a + b, 0) / tokenLength.reduce((a, b) => a + b, 0);
  const SKIP = 3;
  const cost = new Float64Array((n + 1) * (m + 1)).fill(Infinity);
  const step = new Int32Array((n + 1) * (m + 1) * 2);
  const at = (i: number, j: number) => i * (m + 1) + j;
  cost[0] = 0;
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= m; j++) {
      const here = cost[at(i, j)];
      if (here === Infinity) continue;
      const relax = (a: number, b: number, extra: number) => {
        const target = at(i + a, j + b);
        if (here + extra < cost[target]) {
          cost[target] = here + extra;
          step[target * 2] = a;
          step[target * 2 + 1] = b;
        }
      };
      if (i < n) relax(1, 0, SKIP);
      if (j < m) relax(0, 1, SKIP);
      for (let a = 1; a <= MAX_MERGE && i + a <= n; a++) {
        let letters = 0;
        for (let k = i; k < i + a; k++) letters += tokenLength[k];
        for (let b = 1; (a === 1 ? b <= MAX_SPREAD : b === 1) && j + b <= m; b++) {
          let spoken = 0;
          for (let k = j; k < j + b; k++) spoken += wordLength[k];
          const same = a === 1 && b === 1 && plain(tokens[i].word) === plain(words[j].text);
          relax(a, b, same ? 0 : Math.abs(Math.log((spoken + 1) / (letters * ratio + 1))) + 0.35 * (a + b - 2));
        }
      }
    }
  }
  const spans: Array<{ start: number; end: number } | null> = tokens.map(() => null);
  for (let i = n, j = m; i > 0 || j > 0;) {
    const a = step[at(i, j) * 2];
    const b = step[at(i, j) * 2 + 1];
    if (a > 0 && b > 0) {
      const start = words[j - b].start;
      const end = words[j - 1].end;
      // Several tokens said as one engine word: the span splits by their letters.
      let letters = 0;
      for (let k = i - a; k < i; k++) letters += tokenLength[k];
      let cursor = start;
      for (let k = i - a; k < i; k++) {
        const next = k === i - 1 ? end : cursor + ((end - start) * tokenLength[k]) / letters;
        spans[k] = { start: cursor, end: next };
        cursor = next;
      }
    }
    i -= a;
    j -= b;
  }
  return spans;
}

/** Consecutive words of one engine token become one word: the token's text, the span of all of them. */
function byToken(words: readonly EngineWord[]): EngineWord[] {
  const out: EngineWord[] = [];
  for (const word of words) {
    const last = out.at(-1);
    if (word.token && last?.token?.index === word.token.index) {
      last.end = word.end;
      last.weight = (last.weight ?? spokenLength(last.text)) + (word.weight ?? spokenLength(word.text));
    } else {
      out.push(
        word.token ? { ...word, text: word.token.text, weight: word.weight ?? spokenLength(word.text) } : { ...word },
      );
    }
  }
  return out;
}

/**
 * Words of one text with times in one rendering: tokens aligned to the
 * engine's words (clause by clause when the engine says where its clauses
 * are); a token the engine skipped gets an empty span where it would be, so
 * the list stays monotonic and covers the whole text.
 */
export function timeTokens(text: string, engineWords: readonly EngineWord[], reading?: SpokenReading): TimedWord[] {
  const tokens = textTokens(text);
  const words = byToken(engineWords);
  let spans: Array<{ start: number; end: number } | null>;
  if (reading) {
    // The engine read other words than the text's ("$5m": five million dollars): its clause offsets are in those
    // words, and each token weighs what it was read as.
    spans = alignWords(tokens, words, reading.lengthOf);
  } else if (words.length > 0 && words.every((word) => word.clause)) {
    spans = tokens.map(() => null);
    const clauses = new Map<string, EngineWord[]>();
    for (const word of words) {
      const key = `${word.clause!.start}:${word.clause!.end}`;
      clauses.set(key, [...(clauses.get(key) ?? []), word]);
    }
    for (const clauseWords of clauses.values()) {
      const { start, end } = clauseWords[0].clause!;
      const inside = tokens.flatMap((token, index) => (token.start >= start && token.start < end ? [index] : []));
      alignWords(
        inside.map((index) => tokens[index]),
        clauseWords,
      ).forEach((span, k) => (spans[inside[k]] = span));
    }
  } else {
    spans = alignWords(tokens, words);
  }
  const out: TimedWord[] = [];
  let previous = 0;
  tokens.forEach((token, index) => {
    const span = spans[index];
    const start = Math.max(previous, span?.start ?? previous);
    const end = Math.max(start, span?.end ?? start);
    out.push({ word: token.word, start, end, char_start: token.start, char_end: token.end });
    previous = end;
  });
  return out;
}

/**
 * How a text was read aloud when the text normalizer rewrote it (text/normalize):
 * for each of the text's tokens, the letters of the words it was read as.
 */
export interface SpokenReading {
  lengthOf(token: TextToken): number;
}

/** A reading from the normalizer's words (each with its source span in `text`); a token no word came from weighs as written. */
export function spokenReading(
  words: ReadonlyArray<{ word: string; source_start: number; source_end: number }>,
): SpokenReading {
  return {
    lengthOf(token) {
      let letters = 0;
      let sources = 0;
      for (const word of words) {
        if (word.source_end <= token.start || word.source_start >= token.end) continue;
        // A source span shared by several tokens ("March 3rd, 2026") is shared out by its overlap.
        const overlap = Math.min(word.source_end, token.end) - Math.max(word.source_start, token.start);
        const share = overlap / Math.max(1, word.source_end - word.source_start);
        letters += share * word.word.replace(/[^\p{L}\p{N}]/gu, '').length;
        sources += 1;
      }
      return sources > 0 ? Math.max(1, letters) : spokenLength(token.word);
    },
  };
}

/**
 * Where each offset of `normalized` (normalizeForSpeech's output) lies in
 * `original`: normalization only drops characters and turns whitespace and
 * controls into single spaces, so a walk of both strings lines them up.
 */
export function offsetMap(original: string, normalized: string): Int32Array {
  const map = new Int32Array(normalized.length + 1);
  let i = 0;
  let j = 0;
  const skippable = (char: string) => /[\s\p{Cc}\u200b\ufeff\u2028\u2029]/u.test(char);
  while (j < normalized.length) {
    if (i < original.length && original[i] === normalized[j]) {
      map[j++] = i++;
    } else if (i < original.length && skippable(original[i])) {
      i++;
    } else {
      map[j++] = Math.min(i, original.length);
      if (i < original.length && !skippable(normalized[j - 1])) i++;
    }
  }
  map[normalized.length] = Math.min(i, original.length);
  return map;
}

/**
 * Moves engine-time words into a rendered chunk's time: the chunk is the
 * engine's WAV from speechBounds' start to its end (the trim), played at
 * another rate (so the span scales to the chunk's real duration).
 */
export async function chunkWordTimes(
  chunkText: string,
  engineText: string,
  engineWords: readonly EngineWord[],
  raw: { path: string; silenceDb: number; keepStart: number; keepEnd: number; span?: SpeechSpan },
  chunkSeconds: number,
  reading?: SpokenReading,
): Promise<TimedWord[]> {
  // The render's in-process trim found the span already; after an ffmpeg trim it is measured here.
  const { start, end, sampleRate } = raw.span ?? (await measuredSpan(raw));
  const kept = (end - start) / sampleRate;
  const scale = kept > 0 ? chunkSeconds / kept : 1;
  const offset = start / sampleRate;
  const clamp = (seconds: number) => Math.min(chunkSeconds, Math.max(0, (seconds - offset) * scale));
  const toChunk = offsetMap(chunkText, engineText);
  return timeTokens(engineText, engineWords, reading).map((word) => ({
    word: chunkText.slice(toChunk[word.char_start], toChunk[word.char_end - 1] + 1),
    start: clamp(word.start),
    end: clamp(word.end),
    char_start: toChunk[word.char_start],
    char_end: toChunk[word.char_end - 1] + 1,
  }));
}

async function measuredSpan(raw: { path: string; silenceDb: number; keepStart: number; keepEnd: number }) {
  const { samples, sampleRate } = await readWavSamples(raw.path);
  return { ...speechBounds(samples, sampleRate, raw.silenceDb, raw.keepStart, raw.keepEnd), sampleRate };
}

export interface TimedChunk {
  /** The chunk's text (a substring of the synthesis's text); null when its words' offsets index the synthesis's text already (an SSML chunk). */
  text: string | null;
  seconds: number;
  /** Its words, in chunk time and chunk offsets. */
  words: readonly TimedWord[];
}

/**
 * The delivered audio's words: chunks joined in order with `pauseSeconds`
 * between them (finishAudio's join), offsets moved from each chunk into the
 * synthesis's text and counted in code points (the API's characters).
 */
export function deliveredWords(text: string, chunks: readonly TimedChunk[], pauseSeconds: number): TimedWord[] {
  const codePointAt = new Int32Array(text.length + 1);
  let points = 0;
  for (let unit = 0; unit < text.length; unit++) {
    codePointAt[unit] = points;
    const code = text.charCodeAt(unit);
    if (!(code >= 0xdc00 && code <= 0xdfff)) points++;
  }
  codePointAt[text.length] = points;
  const out: TimedWord[] = [];
  let cursor = 0;
  let offset = 0;
  chunks.forEach((chunk, index) => {
    const base = chunk.text === null ? 0 : text.indexOf(chunk.text, cursor);
    if (base < 0) throw new RangeError(`chunk ${index} is not in the text`);
    if (chunk.text !== null) cursor = base + chunk.text.length;
    for (const word of chunk.words) {
      out.push({
        word: chunk.text === null ? text.slice(word.char_start, word.char_end) : word.word,
        start: round(offset + word.start),
        end: round(offset + word.end),
        char_start: codePointAt[base + word.char_start],
        char_end: codePointAt[base + word.char_end],
      });
    }
    offset += chunk.seconds + pauseSeconds;
  });
  return out;
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;
