/** Numbers with a space between thousands (35 000), as in the docs. */
export const formatNumber = (value: number) =>
  Math.round(value)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ' ');

export const formatDate = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : 'never';

/** Characters as the API counts them: Unicode code points of the trimmed, NFC-normalized text. */
export const countCharacters = (text: string) => [...text.trim().normalize('NFC')].length;

export const formatSeconds = (seconds: number | null) => (seconds === null ? '' : `${seconds.toFixed(1)} s`);

/** A voice's language without its region (`en` for `en-US`): what the language filters group by. */
export const languageOf = (voice: { language: string }) => voice.language.split('-')[0].toLowerCase();

/** A language tag's name in the reader's language (`English`, `American English`), or the tag where the browser has none. */
export const languageName = (code: string) => {
  try {
    return new Intl.DisplayNames(undefined, { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
};
