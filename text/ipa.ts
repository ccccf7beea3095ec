/**
 * What an IPA transcription may contain, for SSML <phoneme ph="…"> and PLS
 * <phoneme>: lower-case Latin letters (with Latin-1 accents), the IPA
 * Extensions, spacing modifier letters (ˈ ˌ ː ʰ ʲ, tone letters ˥…˩),
 * combining diacritics (tie bar, nasalization …), the Greek letters IPA
 * uses (β θ χ), ç æ ð ø ħ ŋ œ, the click letters, phonetic extensions
 * (ᵻ ᵊ …), ‿ ‖ | . and spaces. Anything else (control characters, digits,
 * upper-case ASCII as in X-SAMPA, markup characters < > & " \ ( ) …) is
 * refused, not stripped: a transcription with one wrong character is most
 * likely another alphabet, and saying half of it would be wrong too.
 */
const IPA =
  /^[a-z\u00df-\u00f6\u00f8-\u00ff\u0127\u014b\u0153\u01c0-\u01c3\u0250-\u02ff\u0300-\u036f\u03b2\u03b8\u03c7\u1d00-\u1dbf\u2016\u203f\u207f .|'\u2019-]*$/u;

/** Longest transcription accepted (characters). */
export const MAX_IPA = 500;

/** Null if `ph` is an acceptable IPA transcription, else why not. */
export function ipaProblem(ph: string): string | null {
  if (ph.trim() === '') return 'is empty';
  if (ph.length > MAX_IPA) return `is longer than ${MAX_IPA} characters`;
  if (IPA.test(ph)) return null;
  const bad = [...ph].find((ch) => !IPA.test(ch)) ?? '';
  const code = `U+${(bad.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  return /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(bad)
    ? `contains "${bad}" (${code}), which is not an IPA character`
    : `contains ${code}, which is not an IPA character`;
}
