/**
 * eSpeak NG's IPA (engines/piper/phonemes.ts, the same espeak-ng process Piper uses) rewritten into the
 * symbols Kokoro was trained on. Kokoro v1.0 learned misaki's phoneme set, which is IPA with a few
 * diphthongs and affricates as single letters; misaki itself falls back to espeak-ng for unknown words
 * and maps its output with this table (misaki `EspeakFallback.E2M`, American English), so the same table
 * is used here:
 *
 * | espeak-ng | Kokoro | | espeak-ng | Kokoro |
 * |---|---|---|---|---|
 * | aɪ | I | | eɪ, e | A |
 * | aʊ | W | | oʊ | O |
 * | ɔɪ | Y | | dʒ | ʤ |
 * | tʃ | ʧ | | ɾ (flap) | T |
 * | ɚ, ɚɹ | əɹ | | ɜː, ɜːɹ | ɜɹ |
 * | ɐ | ə | | ɪə | iə |
 * | r | ɹ | | x, ç | k |
 * | ɬ | l | | o | ɔ |
 * | ʔn̩, ʔ | tᵊn, t | | X̩ (syllabic) | ᵊX |
 * | əl (word end) | ᵊl | | ː, ʲ | (dropped) |
 *
 * What espeak-ng produces that the vocabulary (`vocab.json`, 114 symbols) lacks: the length mark is in
 * it but misaki's American set never uses it (dropped, as misaki does); the syllabic mark U+0329 (moved
 * before its consonant as `ᵊ`); the linking `ʲ` between words; espeak's language-switch flags and
 * anything else outside the vocabulary are dropped (kokoro-onnx, which feeds espeak's IPA unmapped,
 * drops them the same way). Without espeak-ng's tie marks, `əl` is ambiguous (syllabic l or schwa then
 * l): only a word-final one becomes `ᵊl`. Before a vowel espeak-ng writes an r-coloured schwa with its
 * linking r (`wˈɔːɾɚɹ ɪz`, "water is"): that r is the `ɹ` `ɚ` already ends with, so it is not doubled.
 */

const RULES: ReadonlyArray<readonly [string, string]> = (
  [
    ['ʔn\u0329', 'tᵊn'],
    ['ʔn', 'tᵊn'],
    ['ʔ', 't'],
    ['aɪ', 'I'],
    ['aʊ', 'W'],
    ['dʒ', 'ʤ'],
    ['eɪ', 'A'],
    ['e', 'A'],
    ['r', 'ɹ'],
    ['tʃ', 'ʧ'],
    ['x', 'k'],
    ['c\u0327', 'k'],
    ['ç', 'k'],
    ['ɐ', 'ə'],
    ['ɔɪ', 'Y'],
    ['ɚ', 'əɹ'],
    ['ɚɹ', 'əɹ'],
    ['ɚr', 'əɹ'],
    ['ɬ', 'l'],
    ['ʲ', ''],
    ['oʊ', 'O'],
    ['ɜːɹ', 'ɜɹ'],
    ['ɜː', 'ɜɹ'],
    ['ɪə', 'iə'],
    ['ː', ''],
    ['o', 'ɔ'],
    ['ɾ', 'T'],
  ] as const
)
  .slice()
  .sort((a, b) => b[0].length - a[0].length);

const WORD_END = /^[\s.,;:!?¡¿"—…-]?$/u;

/**
 * Kokoro's symbols for a sentence's espeak-ng phonemes (NFD code points), each with the index of the
 * phoneme it came from (for the word timestamps' clauses). Symbols outside `vocab` are left out.
 */
export function kokoroSymbols(
  phonemes: readonly string[],
  vocab: Readonly<Record<string, number>>,
): { symbols: string[]; source: number[] } {
  const text = phonemes.join('');
  // Code unit offset -> phoneme index (phonemes are single code points, some astral-free: one unit each).
  const owner: number[] = [];
  phonemes.forEach((phoneme, index) => {
    for (let unit = 0; unit < phoneme.length; unit++) owner.push(index);
  });
  const symbols: string[] = [];
  const source: number[] = [];
  const push = (symbol: string, at: number) => {
    for (const char of symbol) {
      if (vocab[char] === undefined) continue;
      symbols.push(char);
      source.push(owner[at]);
    }
  };
  let at = 0;
  while (at < text.length) {
    // A syllabic consonant: its schwa goes before it.
    if (text[at + 1] === '\u0329') {
      push(`ᵊ${text[at]}`, at);
      at += 2;
      continue;
    }
    if (text.startsWith('əl', at) && WORD_END.test(text[at + 2] ?? '')) {
      push('ᵊl', at);
      at += 2;
      continue;
    }
    const rule = RULES.find(([from]) => text.startsWith(from, at));
    if (rule) {
      push(rule[1], at);
      at += rule[0].length;
      continue;
    }
    if (text[at] !== '\u0329') push(text[at], at);
    at += 1;
  }
  return { symbols, source };
}
