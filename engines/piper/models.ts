import { constants } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { PhonemeIdMap } from './phonemes';

/**
 * Piper voices in a models directory: every `<name>.onnx` with its
 * `<name>.onnx.json` (Piper's own config). An optional sidecar
 * `<name>.voice.json` gives what Piper's config lacks: the speaker's gender,
 * a display name, a description and the licence text, e.g.
 * `{"gender": "female", "name": "Amy", "licence": "CC-BY-4.0 …"}`.
 *
 * A multi-speaker model (`num_speakers` above 1) is one model with many
 * voices: its config's `speaker_id_map` names each speaker's id (the `sid`
 * input of the ONNX graph). The engine calls them `<name>#<speaker>`; the
 * catalog offers the speakers its sidecar lists under `speakers`
 * (`[{"speaker": "p225", "name": "Alice", "gender": "female"}]`), or a few
 * spread over the map when it lists none (engines/catalog.ts).
 */

export interface PiperModel {
  /** The file name without `.onnx`, e.g. `en_US-joe-medium`: the engine's voice name. */
  name: string;
  modelPath: string;
  sampleRate: number;
  espeakVoice: string;
  phonemeIdMap: PhonemeIdMap;
  noiseScale: number;
  lengthScale: number;
  noiseW: number;
  /** BCP 47 from the config's `language.code` (`en_US` -> `en-US`), or from the espeak voice. */
  language: string;
  quality: string | null;
  /** Speaker name -> `sid`; empty for a single-speaker model. */
  speakers: Record<string, number>;
  sidecar: VoiceSidecar;
}

/** A speaker of a multi-speaker model the operator offers, as the sidecar lists it. */
export interface SidecarSpeaker {
  /** The speaker's name in the model's `speaker_id_map`, e.g. `p225`. */
  speaker: string;
  name?: string;
  gender?: 'female' | 'male' | 'unknown';
  description?: string;
}

interface VoiceSidecar {
  id?: string;
  name?: string;
  gender?: 'female' | 'male' | 'unknown';
  language?: string;
  description?: string;
  licence?: string;
  /** Multi-speaker models: the speakers the catalog offers. */
  speakers?: SidecarSpeaker[];
}

interface PiperConfigFile {
  audio?: { sample_rate?: number; quality?: string };
  espeak?: { voice?: string };
  inference?: { noise_scale?: number; length_scale?: number; noise_w?: number };
  phoneme_type?: string;
  phoneme_id_map?: Record<string, number[]>;
  num_speakers?: number;
  speaker_id_map?: Record<string, number>;
  language?: { code?: string };
}

/** Far above any Piper config (a 904-speaker one is ~40 KB) or sidecar. */
const MAX_JSON_BYTES = 4_000_000;

/**
 * A JSON file of MODELS_DIR, or null when it is absent, not JSON, too big or
 * not a regular file: a FIFO (or a device) of that name would block a plain
 * read, and the rescan with it, for ever. Opened without blocking, then its
 * type checked on the open file, so nothing can be swapped in between.
 */
export async function readJsonFile(file: string): Promise<unknown> {
  try {
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = await handle.stat();
      if (!info.isFile() || info.size > MAX_JSON_BYTES) return null;
      return JSON.parse(await handle.readFile('utf8')) as unknown;
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

/**
 * The lengths of the `voices` columns a sidecar's text fills
 * (db/migrations/004_voices_and_syntheses.ts; `licence` is `text`, bounded
 * here to keep the catalog's answers small).
 */
export const VOICE_TEXT_LIMITS = { name: 100, description: 500, language: 35, licence: 2000 } as const;

const CONTROLS = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/gu;

/**
 * Outside text (a sidecar's, an index's, a model card's) as the catalog shows
 * it: one line without control characters, blanks collapsed, cut to `max`
 * characters (an ellipsis says so); undefined for what is not text or empty.
 */
export function catalogText(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  const clean = value.replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim();
  const characters = [...clean];
  if (characters.length === 0) return undefined;
  return characters.length > max ? `${characters.slice(0, max - 1).join('')}…` : clean;
}

const GENDERS = ['female', 'male', 'unknown'] as const;
const genderOf = (value: unknown) => GENDERS.find((gender) => gender === value);
/** A BCP 47-like tag (`en-US`, `de`, `zh-Hans-CN`) that fits its column. */
const languageOf = (value: unknown) =>
  typeof value === 'string' &&
  value.length <= VOICE_TEXT_LIMITS.language &&
  /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(value)
    ? value
    : undefined;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A multi-speaker model's speakers by name (empty for a single speaker), from
 * its config or index entry; a map that is absent or broken names them by
 * their ids (`"0"`, `"1"`, …), as Piper's `--speaker` takes them.
 */
export function speakerIdMap(
  numSpeakers: number | undefined,
  map: Record<string, number> | undefined,
): Record<string, number> {
  const count = numSpeakers ?? 1;
  if (!Number.isSafeInteger(count) || count <= 1 || count > 100_000) return {};
  const valid = Object.entries(map ?? {}).filter(([, sid]) => Number.isSafeInteger(sid) && sid >= 0 && sid < count);
  if (valid.length > 0) return Object.fromEntries(valid);
  return Object.fromEntries(Array.from({ length: count }, (_, sid) => [String(sid), sid]));
}

/**
 * A sidecar as the catalog may use it: each field checked (a gender of the
 * three, a language tag) or cleaned and cut to its column
 * (`catalogText`), anything else left out. The sidecar is a file anyone
 * with MODELS_DIR, or an index's model card, wrote: one over-long name must
 * not keep its voice, or the catalog, out of the database.
 */
function sidecarOf(raw: unknown): VoiceSidecar {
  if (!isObject(raw)) return {};
  const speakers = Array.isArray(raw.speakers)
    ? raw.speakers.filter(isObject).flatMap((entry): SidecarSpeaker[] =>
        typeof entry.speaker === 'string'
          ? [
              {
                speaker: entry.speaker,
                name: catalogText(entry.name, VOICE_TEXT_LIMITS.name),
                gender: genderOf(entry.gender),
                description: catalogText(entry.description, VOICE_TEXT_LIMITS.description),
              },
            ]
          : [],
      )
    : undefined;
  const sidecar: VoiceSidecar = {
    id: typeof raw.id === 'string' ? raw.id : undefined,
    name: catalogText(raw.name, VOICE_TEXT_LIMITS.name),
    gender: genderOf(raw.gender),
    language: languageOf(raw.language),
    description: catalogText(raw.description, VOICE_TEXT_LIMITS.description),
    licence: catalogText(raw.licence, VOICE_TEXT_LIMITS.licence),
    speakers,
  };
  // Absent fields stay absent (callers and tests compare sidecars whole).
  return JSON.parse(JSON.stringify(sidecar)) as VoiceSidecar;
}

/** The voice's config, or null when it is not an espeak-phoneme Piper voice (the only kind this engine runs). */
async function readPiperModel(modelPath: string): Promise<PiperModel | null> {
  if (!(await stat(modelPath).catch(() => null))?.isFile()) return null;
  const config = (await readJsonFile(`${modelPath}.json`)) as PiperConfigFile | null;
  if (!config?.phoneme_id_map || !config.audio?.sample_rate || !config.espeak?.voice) return null;
  if ((config.phoneme_type ?? 'espeak') !== 'espeak') return null;
  const name = path.basename(modelPath, '.onnx');
  const sidecar = sidecarOf(await readJsonFile(path.join(path.dirname(modelPath), `${name}.voice.json`)));
  const code = languageOf(config.language?.code?.replace('_', '-'));
  return {
    name,
    modelPath,
    sampleRate: config.audio.sample_rate,
    espeakVoice: config.espeak.voice,
    phonemeIdMap: config.phoneme_id_map,
    noiseScale: config.inference?.noise_scale ?? 0.667,
    lengthScale: config.inference?.length_scale ?? 1,
    noiseW: config.inference?.noise_w ?? 0.8,
    language: sidecar.language ?? code ?? config.espeak.voice,
    quality: config.audio.quality ?? null,
    speakers: speakerIdMap(config.num_speakers, config.speaker_id_map),
    sidecar,
  };
}

/** Speakers of a multi-speaker model the catalog offers when its sidecar lists none. */
const DEFAULT_SPEAKERS = 4;

/**
 * The speakers offered when the sidecar lists none: up to DEFAULT_SPEAKERS
 * spread evenly over the ids, the first one first (`sid` 0, 226, 452 and 678
 * of 904; all of them when there are no more than that).
 */
export function defaultSpeakers(speakers: Record<string, number>): string[] {
  const all = Object.entries(speakers)
    .sort(([a, sidA], [b, sidB]) => sidA - sidB || a.localeCompare(b))
    .map(([speaker]) => speaker);
  const count = Math.min(DEFAULT_SPEAKERS, all.length);
  return Array.from({ length: count }, (_, index) => all[Math.floor((index * all.length) / count)]);
}

/** The engine's voice name of one speaker of a multi-speaker model: `en_GB-vctk-medium#p225`. */
export function speakerVoiceName(modelName: string, speaker: string): string {
  return `${modelName}#${speaker}`;
}

/**
 * The engine's voice names of a model: its name, or for a multi-speaker model
 * `<name>#<speaker>` for each of its speakers.
 */
export function voiceNamesOf(model: PiperModel): string[] {
  const speakers = Object.keys(model.speakers);
  return speakers.length > 0 ? speakers.map((speaker) => speakerVoiceName(model.name, speaker)) : [model.name];
}

/** Every usable Piper voice in `dir` (none when it does not exist), by name. */
export async function findPiperModels(dir: string): Promise<PiperModel[]> {
  let files: string[];
  try {
    files = await readdir(dir);
  } catch {
    return [];
  }
  const names = files.filter((file) => file.endsWith('.onnx') && files.includes(`${file}.json`)).sort();
  const models = await Promise.all(names.map((file) => readPiperModel(path.join(dir, file))));
  return models.filter((model): model is PiperModel => model !== null);
}
