import { kokoroVoiceId } from './kokoro/catalogVoices';

/**
 * OpenAI's thirteen voice names and which voice of this server speaks each
 * one: pure, so the API (`/v1/audio/voices`, `/v1/audio/speech`), the CLI and
 * the docs read the same table and the same choice.
 *
 * OpenAI publishes no speaker list, only character descriptions, and its
 * previews are how people hear the names; `heard` says how each is commonly
 * described (OpenAI's guide and the client libraries that list genders).
 * Alloy is often called neutral; it is heard as a woman's voice more than a
 * man's and balances six female names against seven male ones.
 */

export type OpenAiGender = 'female' | 'male';

export interface OpenAiVoiceName {
  gender: OpenAiGender;
  /** The English it prefers: fable is British, the others American. */
  language: 'en-US' | 'en-GB';
  /** How the name is commonly described: the reason for its gender. */
  heard: string;
  /**
   * The recommended neural voice that makes this name neural once installed:
   * a Kokoro style (Apache-2.0, the best-sounding engine here), each name its
   * own, chosen by the styles' published quality grades, best for the names
   * clients use most.
   */
  kokoro: string;
}

/**
 * In priority order: OpenAI's first six (the most used), then the later ones.
 * Where names share voices, the earlier ones choose first. A Map, not an
 * object literal: a client's `voice` is looked up here, and `constructor` or
 * `__proto__` must find nothing.
 */
export const OPENAI_VOICES: ReadonlyMap<string, OpenAiVoiceName> = new Map<string, OpenAiVoiceName>([
  [
    'alloy',
    { gender: 'female', language: 'en-US', heard: 'neutral and balanced, mostly heard as female', kokoro: 'af_heart' },
  ],
  ['echo', { gender: 'male', language: 'en-US', heard: 'a warm, clear male voice', kokoro: 'am_michael' }],
  ['fable', { gender: 'male', language: 'en-GB', heard: 'a British, expressive male narrator', kokoro: 'bm_fable' }],
  ['onyx', { gender: 'male', language: 'en-US', heard: 'a deep, authoritative male voice', kokoro: 'am_fenrir' }],
  ['nova', { gender: 'female', language: 'en-US', heard: 'a bright, friendly female voice', kokoro: 'af_bella' }],
  ['shimmer', { gender: 'female', language: 'en-US', heard: 'a soft, gentle female voice', kokoro: 'af_nicole' }],
  ['ash', { gender: 'male', language: 'en-US', heard: 'a clear, conversational male voice', kokoro: 'am_puck' }],
  ['ballad', { gender: 'male', language: 'en-US', heard: 'a smooth, melodic male voice', kokoro: 'bm_george' }],
  ['coral', { gender: 'female', language: 'en-US', heard: 'a warm, friendly female voice', kokoro: 'af_aoede' }],
  ['sage', { gender: 'female', language: 'en-US', heard: 'a calm, measured female voice', kokoro: 'af_sarah' }],
  ['verse', { gender: 'male', language: 'en-US', heard: 'a dynamic, expressive male voice', kokoro: 'am_eric' }],
  ['marin', { gender: 'female', language: 'en-US', heard: 'a bright, natural female voice (2025)', kokoro: 'af_kore' }],
  ['cedar', { gender: 'male', language: 'en-US', heard: 'a rich, warm male voice (2025)', kokoro: 'am_liam' }],
]);

/**
 * The best classic English voices of each gender, best first (the catalog's
 * reputation order: RHVoice > Festival HTS > Pico > Flite > Festival
 * diphone). eSpeak NG's formant voices are not here: a name speaks with one
 * of them only when its gender has no other voice at all.
 */
const CLASSIC_VOICES: Readonly<Record<OpenAiGender, readonly string[]>> = {
  female: ['en-us-rhvoice-slt', 'en-us-rhvoice-clb', 'en-us-slt', 'en-us-pico', 'en-gb-pico', 'en-us-flite-slt'],
  male: [
    'en-us-rhvoice-bdl',
    'en-gb-rhvoice-alan',
    'en-us-flite-rms',
    'en-gb-flite-awb',
    'en-us-festival-ked',
    'en-us-festival-kal',
  ],
};

/** A catalog voice as the choice needs it (the available premade voices, in catalog order). */
export interface CatalogVoice {
  id: string;
  language: string;
  gender: string;
  quality: string | null;
}

/** What to install to make a name neural. */
export interface NeuralInstall {
  /** The key for `openvox voices install`. */
  key: string;
  /** The voice id it adds to the catalog (the name then speaks with it). */
  voice_id: string;
  command: string;
}

export interface OpenAiVoiceChoice {
  name: string;
  /** The name's documented gender (the voice's, unless the server has no voice of it at all). */
  gender: OpenAiGender;
  voiceId: string;
  neural: boolean;
  /** When the name speaks with a classic voice: the recommended voice that makes it neural. */
  install: NeuralInstall | null;
}

/** The recommended voice that makes `name` neural (the same for the API, the CLI and the docs). */
export function neuralInstallFor(name: string): NeuralInstall | undefined {
  const wanted = OPENAI_VOICES.get(name);
  if (!wanted) return undefined;
  const key = `kokoro:${wanted.kokoro}`;
  return { key, voice_id: kokoroVoiceId(wanted.kokoro)!, command: `openvox voices install ${key}` };
}

const isEnglish = (voice: CatalogVoice) => voice.language.toLowerCase().startsWith('en');

/** The voices the names of one gender share, best first: neural ones, then the best classic ones. */
function poolOf(gender: OpenAiGender, english: readonly CatalogVoice[]): CatalogVoice[] {
  const ofGender = english.filter((voice) => voice.gender === gender);
  const neural = ofGender.filter((voice) => voice.quality === 'neural');
  const byId = new Map(ofGender.map((voice) => [voice.id, voice]));
  const classic = CLASSIC_VOICES[gender].map((id) => byId.get(id)).filter((voice) => voice !== undefined);
  const pool = [...neural, ...classic];
  if (pool.length > 0) return pool;
  // No good voice of this gender: any of it (eSpeak NG), else any English voice, neural first.
  if (ofGender.length > 0) return ofGender;
  return [...english.filter((voice) => voice.quality === 'neural'), ...english];
}

/**
 * Which voice each OpenAI name speaks with among `catalog` (the available
 * premade voices, in catalog order); deterministic for a given catalog.
 *
 * Per gender, the names share a pool: that gender's installed neural English
 * voices (catalog order: Kokoro, then Piper), then its best classic ones. A
 * name whose own recommended voice is installed takes it; the others, in
 * priority order, take the pool's least-used voice, a neural one before a
 * classic one, their own accent before another, the earlier before the later.
 * So names differ as long as the pool has voices left, and a name falls back
 * to a classic voice rather than share a neural one.
 */
export function chooseOpenAiVoices(catalog: readonly CatalogVoice[]): Map<string, OpenAiVoiceChoice> {
  const english = catalog.filter(isEnglish);
  const chosen = new Map<string, CatalogVoice>();
  for (const gender of ['female', 'male'] as const) {
    const names = [...OPENAI_VOICES].filter(([, voice]) => voice.gender === gender);
    const pool = poolOf(gender, english);
    if (pool.length === 0) continue;
    const uses = new Map<string, number>();
    const take = (name: string, voice: CatalogVoice) => {
      chosen.set(name, voice);
      uses.set(voice.id, (uses.get(voice.id) ?? 0) + 1);
    };
    for (const [name] of names) {
      const own = pool.find((voice) => voice.id === neuralInstallFor(name)!.voice_id);
      if (own) take(name, own);
    }
    for (const [name, wanted] of names) {
      if (chosen.has(name)) continue;
      const rank = (voice: CatalogVoice, index: number) => [
        uses.get(voice.id) ?? 0,
        voice.quality === 'neural' ? 0 : 1,
        voice.language === wanted.language ? 0 : 1,
        index,
      ];
      const ranked = pool.map((voice, index) => ({ voice, key: rank(voice, index) }));
      ranked.sort((a, b) => compareKeys(a.key, b.key));
      take(name, ranked[0].voice);
    }
  }
  const result = new Map<string, OpenAiVoiceChoice>();
  for (const [name, wanted] of OPENAI_VOICES) {
    const voice = chosen.get(name);
    if (!voice) continue;
    const neural = voice.quality === 'neural';
    result.set(name, {
      name,
      gender: wanted.gender,
      voiceId: voice.id,
      neural,
      install: neural ? null : neuralInstallFor(name)!,
    });
  }
  return result;
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let at = 0; at < a.length; at += 1) if (a[at] !== b[at]) return a[at] - b[at];
  return 0;
}

/** Which catalog voice `name` speaks with among `catalog`; undefined for anything but one of OpenAI's names. */
export function openAiVoiceFor(name: string, catalog: readonly CatalogVoice[]): string | undefined {
  if (!OPENAI_VOICES.has(name)) return undefined;
  return chooseOpenAiVoices(catalog).get(name)?.voiceId;
}
