/**
 * Piper's voice index: `voices.json` of the piper-voices repository (or a
 * mirror of its layout), keyed by voice key (`en_US-joe-medium`), each entry
 * naming its files by paths relative to the index with their size and MD5.
 * Read only by the operator's `openvox voices` commands, never by the service.
 */

export const QUALITIES = ['x_low', 'low', 'medium', 'high'] as const;
export type Quality = (typeof QUALITIES)[number];

export interface IndexFile {
  size_bytes: number;
  md5_digest: string;
}

export interface IndexVoice {
  key: string;
  name: string;
  language: {
    code: string;
    family: string;
    region: string;
    name_native?: string;
    name_english?: string;
    country_english?: string;
  };
  quality: Quality;
  num_speakers: number;
  speaker_id_map: Record<string, number>;
  aliases: string[];
  /** Path relative to the index's base URL, e.g. `en/en_US/joe/medium/en_US-joe-medium.onnx`. */
  files: Record<string, IndexFile>;
}

export type VoiceIndex = Record<string, IndexVoice>;

export class VoiceInstallError extends Error {
  override name = 'VoiceInstallError';
}

/** The base URL with the trailing slash `new URL(relative, base)` needs to keep its last segment. */
export function baseUrlOf(url: string): URL {
  return new URL(url.endsWith('/') ? url : `${url}/`);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An entry the installer can rely on (types checked), or a reason it cannot. */
function checkEntry(key: string, entry: unknown): IndexVoice | string {
  if (!isObject(entry)) return 'not an object';
  const language = entry.language;
  if (!isObject(language) || typeof language.code !== 'string' || typeof language.family !== 'string')
    return 'no language code';
  if (!QUALITIES.includes(entry.quality as Quality)) return `unknown quality ${String(entry.quality)}`;
  if (!isObject(entry.files)) return 'no files';
  for (const [file, facts] of Object.entries(entry.files)) {
    if (
      !isObject(facts) ||
      !Number.isSafeInteger(facts.size_bytes) ||
      typeof facts.md5_digest !== 'string' ||
      !/^[0-9a-f]{32}$/i.test(facts.md5_digest)
    )
      return `${file}: no size_bytes/md5_digest`;
  }
  return {
    key,
    name: typeof entry.name === 'string' ? entry.name : key,
    language: { region: '', ...language } as IndexVoice['language'],
    quality: entry.quality as Quality,
    num_speakers: Number.isSafeInteger(entry.num_speakers) ? (entry.num_speakers as number) : 1,
    speaker_id_map: isObject(entry.speaker_id_map) ? (entry.speaker_id_map as Record<string, number>) : {},
    aliases: Array.isArray(entry.aliases)
      ? entry.aliases.filter((alias): alias is string => typeof alias === 'string')
      : [],
    files: entry.files as Record<string, IndexFile>,
  };
}

/** Reads `voices.json` from `baseUrl`; entries the installer could not verify are left out. */
export async function fetchVoiceIndex(baseUrl: string, timeoutMs = 60_000): Promise<VoiceIndex> {
  const url = new URL('voices.json', baseUrlOf(baseUrl));
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new VoiceInstallError(
      `cannot read the Piper voice index ${url}: ${(error as Error).message} (set PIPER_VOICES_URL to a mirror when this machine is offline)`,
      { cause: error },
    );
  }
  if (!response.ok) throw new VoiceInstallError(`cannot read the Piper voice index ${url}: HTTP ${response.status}`);
  let raw: unknown;
  try {
    raw = await response.json();
  } catch {
    throw new VoiceInstallError(`the Piper voice index ${url} is not JSON`);
  }
  if (!isObject(raw)) throw new VoiceInstallError(`the Piper voice index ${url} is not an object keyed by voice`);
  const index: VoiceIndex = {};
  for (const [key, entry] of Object.entries(raw)) {
    const checked = checkEntry(key, entry);
    if (typeof checked !== 'string') index[key] = checked;
  }
  return index;
}

/** `de`, `de_DE`, `de-DE`, `DE-de` → `{family: 'de', code: 'de_DE'}`; the code is absent for a bare family. */
function languageFilter(tag: string): { family: string; code?: string } {
  const [family, region] = tag.trim().split(/[-_]/);
  return region
    ? { family: family.toLowerCase(), code: `${family.toLowerCase()}_${region.toUpperCase()}` }
    : { family: family.toLowerCase() };
}

export function matchesLanguage(voice: IndexVoice, tag: string): boolean {
  const wanted = languageFilter(tag);
  return wanted.code ? voice.language.code === wanted.code : voice.language.family.toLowerCase() === wanted.family;
}

/** The voices of a language (`de`, `de_DE` or `de-DE`) and quality, sorted by key. */
export function listVoices(index: VoiceIndex, filter: { language?: string; quality?: string } = {}): IndexVoice[] {
  if (filter.quality !== undefined && !QUALITIES.includes(filter.quality as Quality))
    throw new VoiceInstallError(`unknown quality ${filter.quality}: one of ${QUALITIES.join(', ')}`);
  return Object.values(index)
    .filter((voice) => (filter.language ? matchesLanguage(voice, filter.language) : true))
    .filter((voice) => (filter.quality ? voice.quality === filter.quality : true))
    .sort((a, b) => a.key.localeCompare(b.key));
}

/** The bytes a voice's files add up to. */
export function voiceSize(voice: IndexVoice): number {
  return Object.values(voice.files).reduce((sum, file) => sum + file.size_bytes, 0);
}
