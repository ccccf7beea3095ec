/**
 * Text preparation for synthesis: normalization, splitting into chunks that
 * render in parallel, and the escaping each engine needs so that text which
 * looks like markup is spoken, never interpreted.
 */

/** NFC, no control characters, tidy whitespace. Keeps every visible character. */
export function normalizeForSpeech(text: string): string {
  return (
    text
      .normalize('NFC')
      .replace(/\r\n?/g, '\n')
      // Controls (C0 except tab/newline, DEL, C1) and line/paragraph separators become spaces.
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, ' ')
      // Zero-width space and byte-order marks say nothing; ZWJ/ZWNJ stay (they matter in Indic and Persian scripts).
      .replace(/[\u200b\ufeff]/g, '')
      .replace(/[ \t\u00a0\u3000]+/g, ' ')
      .replace(/ *\n */g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}

const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

const sentenceSegmenter = new Intl.Segmenter(undefined, { granularity: 'sentence' });
const wordSegmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Splits text into chunks of at most `maxChars` code points, at sentence
 * boundaries where possible, then at clause boundaries, then between words,
 * and only as a last resort inside a word (never inside a grapheme, so one
 * grapheme longer than `maxChars` code points is kept whole). Nothing is
 * dropped or repeated: the chunks joined equal the input up to whitespace.
 * Chunks are trimmed and never empty.
 */
export function splitText(text: string, maxChars: number): string[] {
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError('maxChars must be a positive integer');
  const units: string[] = [];
  for (const { segment } of sentenceSegmenter.segment(text)) {
    if (codePoints(segment.trim()) <= maxChars) units.push(segment);
    else for (const clause of splitClauses(segment)) units.push(...fitUnit(clause, maxChars));
  }
  return pack(units, maxChars);
}

/**
 * One chunk per sentence (a sentence longer than `maxChars` is split as
 * splitText splits it): what a streaming client hears first is the first
 * sentence, rendered alone. Nothing is dropped or repeated.
 */
export function splitSentences(text: string, maxChars: number): string[] {
  const chunks: string[] = [];
  for (const { segment } of sentenceSegmenter.segment(text))
    if (segment.trim()) chunks.push(...splitText(segment, maxChars));
  return chunks;
}

/** Greedily joins consecutive units while they fit (whitespace at the ends does not count: chunks are trimmed). */
function pack(units: string[], maxChars: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const unit of units) {
    if (current.trim() && codePoints((current + unit).trim()) > maxChars) {
      chunks.push(current.trim());
      current = unit;
    } else {
      current += unit;
    }
  }
  if (current.trim()) chunks.push(current.trim());
  return chunks;
}

// After these a clause ends when whitespace follows (so "1,000" and "12:30" stay whole).
const CLAUSE_END_SPACED = new Set([',', ';', ':', '—', '–', ')', ']', '}']);
// Full-width CJK punctuation ends a clause without any whitespace.
const CLAUSE_END_CJK = new Set(['、', '，', '；', '：', '）', '」', '』', '〉', '》']);

function splitClauses(sentence: string): string[] {
  const chars = Array.from(sentence);
  const clauses: string[] = [];
  let start = 0;
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index];
    const next = chars[index + 1];
    const ends = CLAUSE_END_CJK.has(char) || (CLAUSE_END_SPACED.has(char) && next !== undefined && /\s/.test(next));
    if (!ends) continue;
    let end = index + 1;
    while (end < chars.length && /\s/.test(chars[end])) end++;
    clauses.push(chars.slice(start, end).join(''));
    start = end;
    index = end - 1;
  }
  if (start < chars.length) clauses.push(chars.slice(start).join(''));
  return clauses;
}

/**
 * Breaks a unit longer than maxChars at spaces (punctuation stays with its
 * word), then between words where there are no spaces (CJK, Thai), then
 * between graphemes.
 */
function fitUnit(unit: string, maxChars: number): string[] {
  if (codePoints(unit) <= maxChars) return [unit];
  const pieces: string[] = [];
  for (const token of unit.match(/\s+|\S+\s*/g) ?? []) {
    if (codePoints(token) <= maxChars) pieces.push(token);
    else for (const { segment } of wordSegmenter.segment(token)) pieces.push(...fitGraphemes(segment, maxChars));
  }
  return packPieces(pieces, maxChars);
}

function fitGraphemes(word: string, maxChars: number): string[] {
  if (codePoints(word) <= maxChars) return [word];
  const pieces: string[] = [];
  let piece = '';
  for (const { segment: grapheme } of graphemeSegmenter.segment(word)) {
    if (piece && codePoints(piece) + codePoints(grapheme) > maxChars) {
      pieces.push(piece);
      piece = '';
    }
    piece += grapheme;
  }
  if (piece) pieces.push(piece);
  return pieces;
}

/** Re-joins pieces greedily so a long clause becomes few pieces, each within the limit. */
function packPieces(pieces: string[], maxChars: number): string[] {
  const joined: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current.trim() && codePoints((current + piece).trim()) > maxChars) {
      joined.push(current);
      current = '';
    }
    current += piece;
  }
  if (current) joined.push(current);
  return joined;
}

/**
 * espeak-ng (always run without `-m`) speaks `<tags>` as text but reads
 * `[[...]]` as phoneme input: breaking the double brackets makes it speak them.
 */
export function escapeForEspeak(text: string): string {
  return text.replace(/\[(?=\[)/g, '[ ').replace(/\](?=\])/g, '] ');
}

/** pico2wave interprets its markup tags and drops text after a bare `&`: escape them as entities, which it speaks. */
export function escapeForPico(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export type Charset = 'ascii' | 'latin1' | 'latin2' | 'utf8';

// ISO-8859-2 code points 0xA0-0xFF (Czech, Slovak, Polish, Hungarian, ...).
const LATIN2_HIGH =
  '\u00a0Ą˘Ł¤ĽŚ§¨ŠŞŤŹ\u00adŽŻ°ą˛ł´ľśˇ¸šşťź˝žżŔÁÂĂÄĹĆÇČÉĘËĚÍÎĎĐŃŇÓÔŐÖ×ŘŮÚŰÜÝŢßŕáâăäĺćçčéęëěíîďđńňóôőö÷řůúűüýţ˙';
const LATIN2 = new Map(Array.from(LATIN2_HIGH, (char, index) => [char, 0xa0 + index] as const));

// Typography with a plain equivalent every 8-bit voice can say. Looked up by the text's characters: null prototype.
const PLAIN: Readonly<Record<string, string>> = Object.assign(Object.create(null) as Record<string, string>, {
  '‘': "'",
  '’': "'",
  '‚': "'",
  '‛': "'",
  '′': "'",
  '“': '"',
  '”': '"',
  '„': '"',
  '‟': '"',
  '″': '"',
  '«': '"',
  '»': '"',
  '‹': "'",
  '›': "'",
  '–': '-',
  '—': ' - ',
  '―': ' - ',
  '‐': '-',
  '‑': '-',
  '−': '-',
  '…': '...',
  '€': ' euro ',
  '\u00a0': ' ',
  '•': ' ',
  '·': ' ',
  // Letters that do not decompose into a base letter and an accent.
  Ł: 'L',
  ł: 'l',
  Ø: 'O',
  ø: 'o',
  Đ: 'D',
  đ: 'd',
  ß: 'ss',
  Æ: 'AE',
  æ: 'ae',
  Œ: 'OE',
  œ: 'oe',
  Þ: 'Th',
  þ: 'th',
  ı: 'i',
  Ħ: 'H',
  ħ: 'h',
});

/**
 * Encodes text for an engine that reads bytes in a legacy charset (most
 * Festival voices). Characters the charset lacks become their plain or
 * accent-stripped form, or a space; nothing becomes a byte sequence the voice
 * would spell out.
 */
export function encodeText(text: string, charset: Charset): Buffer {
  if (charset === 'utf8') return Buffer.from(text, 'utf8');
  const bytes: number[] = [];
  const encodeChar = (char: string): number | undefined => {
    const code = char.codePointAt(0)!;
    if (code < 0x80) return code;
    if (charset === 'latin1' && code <= 0xff) return code;
    if (charset === 'latin2') return LATIN2.get(char);
    return undefined;
  };
  for (const char of text) {
    const direct = encodeChar(char);
    if (direct !== undefined) {
      bytes.push(direct);
      continue;
    }
    const replacement = PLAIN[char] ?? char.normalize('NFKD').replace(/\p{M}/gu, '');
    for (const part of replacement) {
      const code = encodeChar(part);
      bytes.push(code ?? 0x20);
    }
  }
  return Buffer.from(bytes);
}

/**
 * Keeps ASCII and the characters `keep` matches; maps the rest to a plain
 * equivalent (typographic quotes and dashes, accents stripped) or a space.
 */
export function transliterate(text: string, keep?: RegExp): string {
  let out = '';
  for (const char of text) {
    if (char.codePointAt(0)! < 0x80 || keep?.test(char)) {
      out += char;
      continue;
    }
    const plain = PLAIN[char] ?? char.normalize('NFKD').replace(/\p{M}/gu, '');
    for (const part of plain) out += part.codePointAt(0)! < 0x80 || keep?.test(part) ? part : ' ';
  }
  return out;
}
