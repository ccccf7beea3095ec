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

/**
 * A voice as a choice names it: its name, then what the name does not say already (language, gender, neural, a
 * clone of yours), so "English (eSpeak, male)" does not read "male" twice.
 */
export function voiceLabel(voice: {
  name: string;
  language: string;
  gender?: string;
  quality?: string | null;
  category?: string;
}): string {
  const name = voice.name.toLowerCase();
  const facts = [
    voice.language,
    voice.gender ?? '',
    voice.quality === 'neural' ? 'neural' : '',
    voice.category === 'cloned' ? 'my clone' : '',
  ].filter((fact) => fact && !new RegExp(`\\b${fact.toLowerCase().replace(/[^a-z0-9 -]/g, '')}\\b`).test(name));
  if (!facts.length) return voice.name;
  // "English (eSpeak, male)" gains its facts inside its own brackets: one pair, not two.
  return voice.name.endsWith(')')
    ? `${voice.name.slice(0, -1)}, ${facts.join(', ')})`
    : `${voice.name} (${facts.join(', ')})`;
}

/** A duration to wait, as people say it: "12 s", "3 min 5 s", "1 h 2 min". */
export function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 60) return `${whole} s`;
  if (whole < 3600) return `${Math.floor(whole / 60)} min${whole % 60 ? ` ${whole % 60} s` : ''}`;
  return `${Math.floor(whole / 3600)} h ${Math.floor((whole % 3600) / 60)} min`;
}
