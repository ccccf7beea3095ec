import type { PremadeVoice } from '../catalog';
import {
  catalogText,
  defaultSpeakers,
  findPiperModels,
  type PiperModel,
  type SidecarSpeaker,
  speakerVoiceName,
  VOICE_TEXT_LIMITS,
} from './models';
import { knownSpeakerGender } from './speakerGenders';

/**
 * The operator's own Piper voices as catalog entries (the piper engine's
 * `discoverVoices`): every model in MODELS_DIR that the catalog does not
 * already name, with its id from the file name (or its sidecar), its language
 * from Piper's config, its gender, name, description and licence from the
 * sidecar (engines/piper/models.ts).
 */

/** `en_US-amy-low` -> `en-us-amy-low`: lower case, runs of anything else one dash. */
function voiceIdFromModelName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
}

const operatorLicence = (model: PiperModel) =>
  model.sidecar.licence ??
  `Piper voice ${model.name}, added by this server's operator: see the voice's model card for its licence. Runs with ONNX Runtime (MIT); phonemes by eSpeak NG (GPL-3.0-or-later).`;

/**
 * An entry's texts as the catalog's columns take them: the sidecar's are
 * cleaned already (models.ts), but a file name, which they may quote, can be
 * long or hold any character.
 */
const fitted = (voice: PremadeVoice): PremadeVoice => ({
  ...voice,
  name: catalogText(voice.name, VOICE_TEXT_LIMITS.name) ?? voice.id,
  description: catalogText(voice.description, VOICE_TEXT_LIMITS.description) ?? '',
  licence: catalogText(voice.licence, VOICE_TEXT_LIMITS.licence),
});

/**
 * The speakers of a multi-speaker model the catalog offers: those its
 * sidecar lists (in its order; names the model does not have are left out),
 * else a few spread over its ids (engines/piper/models.ts `defaultSpeakers`),
 * their gender unknown.
 */
function offeredSpeakers(model: PiperModel): SidecarSpeaker[] {
  const listed = (model.sidecar.speakers ?? []).filter((entry) => Object.hasOwn(model.speakers, entry.speaker));
  return listed.length > 0 ? listed : defaultSpeakers(model.speakers).map((speaker) => ({ speaker }));
}

/** The catalog entries of one multi-speaker model's offered speakers: ids `<model id>-<speaker>`. */
function speakerVoices(model: PiperModel, modelId: string, taken: Set<string>): PremadeVoice[] {
  const { sidecar } = model;
  const modelName = sidecar.name ?? model.name;
  const voices: PremadeVoice[] = [];
  for (const entry of offeredSpeakers(model)) {
    const id = voiceIdFromModelName(`${modelId}-${entry.speaker}`);
    if (!id || taken.has(id)) continue;
    taken.add(id);
    voices.push(
      fitted({
        id,
        name: entry.name ?? `${modelName} ${entry.speaker}`,
        language: model.language,
        gender: entry.gender ?? 'unknown',
        description:
          entry.description ??
          `Neural voice: speaker ${entry.speaker} of ${model.name}, a model of ${Object.keys(model.speakers).length} speakers (Piper${model.quality ? `, ${model.quality} quality` : ''}), added by this server's operator.`,
        engine: 'piper',
        engineVoice: speakerVoiceName(model.name, entry.speaker),
        license: 'free',
        quality: 'neural',
        licence: operatorLicence(model),
      }),
    );
  }
  return voices;
}

/**
 * A multi-speaker model gives a voice per offered speaker (`offeredSpeakers`),
 * not one per speaker: a model like libritts_r has 904 of unknown gender,
 * which would bury the catalog. `known.ids` gets the ids taken.
 */
export async function piperCatalogVoices(
  modelsDir: string,
  known: { ids: Set<string>; engineVoices: ReadonlySet<string> },
): Promise<PremadeVoice[]> {
  const taken = known.ids;
  const voices: PremadeVoice[] = [];
  for (const model of await findPiperModels(modelsDir)) {
    if (known.engineVoices.has(model.name)) continue;
    const { sidecar } = model;
    const id = sidecar.id && /^[a-z0-9-]{1,64}$/.test(sidecar.id) ? sidecar.id : voiceIdFromModelName(model.name);
    if (Object.keys(model.speakers).length > 0) {
      if (id) voices.push(...speakerVoices(model, id, taken));
      continue;
    }
    if (!id || taken.has(id)) continue;
    taken.add(id);
    const speaker = sidecar.name ?? model.name;
    voices.push(
      fitted({
        id,
        name: speaker,
        language: model.language,
        gender: sidecar.gender ?? knownSpeakerGender(model.name) ?? 'unknown',
        description:
          sidecar.description ??
          `Neural voice ${model.name} (Piper${model.quality ? `, ${model.quality} quality` : ''}), added by this server's operator.`,
        engine: 'piper',
        engineVoice: model.name,
        license: 'free',
        quality: 'neural',
        licence: operatorLicence(model),
      }),
    );
  }
  return voices;
}
