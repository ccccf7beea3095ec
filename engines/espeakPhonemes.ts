import { escapeForEspeak } from './text';

/**
 * IPA to eSpeak NG's phoneme mnemonics, for its `[[…]]` phoneme input: the
 * stretches a pronunciation dictionary or SSML <phoneme> gives in IPA are
 * said as given. The table is the English phoneme set (espeak-ng's
 * docs/phonemes.md and ph_english), which most of its Latin-script voices
 * share; a symbol it lacks is left out. The output is only ASCII letters,
 * digits and `@ : ' , #`, so it cannot close the brackets or reach anything
 * eSpeak would interpret; the text around it is escaped as any text is.
 */

/** Longest first: diphthongs and affricates before their letters. */
const IPA_TO_ESPEAK: ReadonlyArray<readonly [string, string]> = [
  ['t͡ʃ', 'tS'],
  ['d͡ʒ', 'dZ'],
  ['tʃ', 'tS'],
  ['dʒ', 'dZ'],
  ['ʧ', 'tS'],
  ['ʤ', 'dZ'],
  ['eɪ', 'eI'],
  ['aɪ', 'aI'],
  ['ɔɪ', 'OI'],
  ['aʊ', 'aU'],
  ['oʊ', 'oU'],
  ['əʊ', '@U'],
  ['ɪə', 'i@'],
  ['eə', 'e@'],
  ['ɛə', 'e@'],
  ['ʊə', 'U@'],
  ['ɑː', 'A:'],
  ['ɔː', 'O:'],
  ['ɜː', '3:'],
  ['iː', 'i:'],
  ['uː', 'u:'],
  ['ɝ', '3:'],
  ['ɚ', '3'],
  ['æ', 'a'],
  ['ɑ', 'A:'],
  ['ɒ', '0'],
  ['ɔ', 'O:'],
  ['ʌ', 'V'],
  ['ɛ', 'E'],
  ['ə', '@'],
  ['ɐ', '@'],
  ['ɪ', 'I'],
  ['ᵻ', 'I'],
  ['ʊ', 'U'],
  ['θ', 'T'],
  ['ð', 'D'],
  ['ʃ', 'S'],
  ['ʒ', 'Z'],
  ['ŋ', 'N'],
  ['ɹ', 'r'],
  ['ɾ', 't'],
  ['ɡ', 'g'],
  ['ʔ', ''],
  ['ɫ', 'l'],
  ['ç', 'C'],
  ['χ', 'x'],
  ['ɲ', 'n^'],
  ['ø', 'Y'],
  ['œ', 'W'],
  ['ˈ', "'"],
  ['ˌ', ','],
  ['ː', ':'],
  ['ˑ', ''],
  ["'", "'"],
  ['’', "'"],
];

/** One IPA transcription as eSpeak mnemonics (letters a-z that IPA and eSpeak share pass as they are). */
export function ipaToEspeak(ipa: string): string {
  const text = ipa.normalize('NFC');
  let out = '';
  for (let i = 0; i < text.length;) {
    if (/\s/.test(text[i])) {
      out += ' ';
      i += 1;
      continue;
    }
    const pair = IPA_TO_ESPEAK.find(([from]) => text.startsWith(from, i));
    if (pair) {
      out += pair[1];
      i += pair[0].length;
      continue;
    }
    if (/[a-z]/.test(text[i])) out += text[i];
    // Anything else (tone letters, diacritics the table lacks) is left out.
    i += 1;
  }
  // Only the mnemonics' own characters: never a bracket or anything eSpeak would read as markup.
  return out
    .replace(/[^A-Za-z0-9@:',# ^]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The text eSpeak reads: escaped text, with each pronunciation's stretch replaced by its phonemes in `[[…]]`. */
export function espeakInput(
  text: string,
  pronunciations: ReadonlyArray<{ ipa: string; start: number; end: number }> = [],
): string {
  const sorted = [...pronunciations]
    .filter((p) => p.start >= 0 && p.end <= text.length && p.start < p.end)
    .sort((a, b) => a.start - b.start);
  let out = '';
  let cursor = 0;
  for (const p of sorted) {
    if (p.start < cursor) continue;
    const phonemes = ipaToEspeak(p.ipa);
    if (!phonemes) continue;
    out += `${escapeForEspeak(text.slice(cursor, p.start))} [[${phonemes}]] `;
    cursor = p.end;
  }
  return out + escapeForEspeak(text.slice(cursor));
}
