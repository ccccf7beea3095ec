import { readdir, readFile } from 'node:fs/promises';
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

async function readJson<T>(file: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

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

/** The sidecar's `speakers` that are well-formed (anything else is left out). */
function sidecarSpeakers(value: unknown): SidecarSpeaker[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(
    (entry): entry is SidecarSpeaker =>
      typeof entry === 'object' && entry !== null && typeof (entry as SidecarSpeaker).speaker === 'string',
  );
}

/** The voice's config, or null when it is not an espeak-phoneme Piper voice (the only kind this engine runs). */
async function readPiperModel(modelPath: string): Promise<PiperModel | null> {
  const config = await readJson<PiperConfigFile>(`${modelPath}.json`);
  if (!config?.phoneme_id_map || !config.audio?.sample_rate || !config.espeak?.voice) return null;
  if ((config.phoneme_type ?? 'espeak') !== 'espeak') return null;
  const name = path.basename(modelPath, '.onnx');
  const sidecar = (await readJson<VoiceSidecar>(path.join(path.dirname(modelPath), `${name}.voice.json`))) ?? {};
  sidecar.speakers = sidecarSpeakers(sidecar.speakers);
  const code = config.language?.code?.replace('_', '-');
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
