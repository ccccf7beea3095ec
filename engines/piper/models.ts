import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { PhonemeIdMap } from './phonemes';

/**
 * Piper voices in a models directory: every `<name>.onnx` with its
 * `<name>.onnx.json` (Piper's own config). An optional sidecar
 * `<name>.voice.json` gives what Piper's config lacks: the speaker's gender,
 * a display name, a description and the licence text, e.g.
 * `{"gender": "female", "name": "Amy", "licence": "CC-BY-4.0 …"}`.
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
  sidecar: VoiceSidecar;
}

interface VoiceSidecar {
  id?: string;
  name?: string;
  gender?: 'female' | 'male' | 'unknown';
  language?: string;
  description?: string;
  licence?: string;
}

interface PiperConfigFile {
  audio?: { sample_rate?: number; quality?: string };
  espeak?: { voice?: string };
  inference?: { noise_scale?: number; length_scale?: number; noise_w?: number };
  phoneme_type?: string;
  phoneme_id_map?: Record<string, number[]>;
  num_speakers?: number;
  language?: { code?: string };
}

async function readJson<T>(file: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

/** The voice's config, or null when it is not a single-speaker espeak-phoneme Piper voice (the only kind this engine runs). */
async function readPiperModel(modelPath: string): Promise<PiperModel | null> {
  const config = await readJson<PiperConfigFile>(`${modelPath}.json`);
  if (!config?.phoneme_id_map || !config.audio?.sample_rate || !config.espeak?.voice) return null;
  if ((config.phoneme_type ?? 'espeak') !== 'espeak' || (config.num_speakers ?? 1) > 1) return null;
  const name = path.basename(modelPath, '.onnx');
  const sidecar = (await readJson<VoiceSidecar>(path.join(path.dirname(modelPath), `${name}.voice.json`))) ?? {};
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
    sidecar,
  };
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
