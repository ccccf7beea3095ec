import type { Db } from '../../../db/knex';
import { Voice } from '../../../db/models/Voice';

/**
 * OpenAI's voice names and the catalog voice each one speaks with here.
 *
 * OpenAI describes its voices by character, not by a fixed speaker list; the
 * gender and accent below are how they are commonly heard (fable British,
 * onyx deep). A name speaks, in this order of preference:
 * 1. an installed neural English voice of its gender (fable: a British one
 *    first), the names of one gender spread over those voices in turn, so two
 *    names differ when two voices can tell them apart;
 * 2. any installed neural English voice (`en-us-joe` ships with the service);
 * 3. its classic voices, the first one available (non-free engines are off by
 *    default), the last always a free voice that exists everywhere.
 */

interface OpenAiVoice {
  gender: 'female' | 'male';
  /** The English the name prefers (fable: British). */
  language: 'en-US' | 'en-GB';
  classic: readonly string[];
}

// A Map, not an object literal: a client's `voice` is looked up in it, and `constructor` or `__proto__` must find nothing.
export const OPENAI_VOICES: ReadonlyMap<string, OpenAiVoice> = new Map<string, OpenAiVoice>([
  ['alloy', { gender: 'female', language: 'en-US', classic: ['en-us-slt'] }],
  ['ash', { gender: 'male', language: 'en-US', classic: ['en-us-flite-rms'] }],
  ['ballad', { gender: 'male', language: 'en-US', classic: ['en-us-festival-kal', 'en-us-flite-rms'] }],
  ['cedar', { gender: 'male', language: 'en-US', classic: ['en-us-rhvoice-bdl', 'en-us-flite-rms'] }],
  ['coral', { gender: 'female', language: 'en-US', classic: ['en-us-rhvoice-clb', 'en-us-flite-slt'] }],
  [
    'echo',
    { gender: 'male', language: 'en-US', classic: ['en-us-rhvoice-bdl', 'en-us-festival-ked', 'en-us-flite-rms'] },
  ],
  ['fable', { gender: 'male', language: 'en-GB', classic: ['en-gb-rhvoice-alan', 'en-gb-flite-awb'] }],
  ['marin', { gender: 'female', language: 'en-US', classic: ['en-us-rhvoice-slt', 'en-us-slt'] }],
  ['nova', { gender: 'female', language: 'en-US', classic: ['en-us-rhvoice-slt', 'en-us-pico', 'en-us-flite-slt'] }],
  ['onyx', { gender: 'male', language: 'en-US', classic: ['en-us-festival-ked', 'en-us-flite-rms'] }],
  ['sage', { gender: 'female', language: 'en-US', classic: ['en-us-flite-slt'] }],
  ['shimmer', { gender: 'female', language: 'en-US', classic: ['en-us-pico', 'en-us-slt'] }],
  [
    'verse',
    { gender: 'male', language: 'en-US', classic: ['en-us-rhvoice-bdl', 'en-us-festival-kal', 'en-us-flite-rms'] },
  ],
]);

export interface CatalogVoice {
  id: string;
  language: string;
  gender: string;
  quality: string | null;
}

/** Which catalog voice `name` speaks with, among `catalog` (the available premade voices in catalog order). */
export function openAiVoiceFor(name: string, catalog: readonly CatalogVoice[]): string | undefined {
  const wanted = OPENAI_VOICES.get(name);
  if (!wanted) return undefined;
  const neural = catalog.filter((voice) => voice.quality === 'neural' && voice.language.toLowerCase().startsWith('en'));
  const sameGender = neural.filter((voice) => voice.gender === wanted.gender);
  if (sameGender.length > 0) {
    const preferred = [
      ...sameGender.filter((voice) => voice.language === wanted.language),
      ...sameGender.filter((voice) => voice.language !== wanted.language),
    ];
    // The names of one gender (and accent), in alphabetical order, take the voices in turn.
    const peers = [...OPENAI_VOICES]
      .filter(([, other]) => other.gender === wanted.gender && other.language === wanted.language)
      .map(([peer]) => peer);
    return preferred[peers.indexOf(name) % preferred.length].id;
  }
  if (neural.length > 0) return neural[0].id;
  const available = new Set(catalog.map((voice) => voice.id));
  return wanted.classic.find((id) => available.has(id)) ?? wanted.classic[wanted.classic.length - 1];
}

/** The available premade English voices in catalog order: what `openAiVoiceFor` chooses from. */
export async function englishCatalog(db: Db): Promise<CatalogVoice[]> {
  return await Voice.query(db)
    .modify('catalog')
    .modify('live')
    .modify('language', 'en')
    .orderBy('sort_order')
    .select('id', 'language', 'gender', 'quality');
}

/** An OpenAI voice name (any case) → the catalog voice it speaks with here; anything else is returned as given (a voice id, checked by the submit). */
export async function resolveOpenAiVoice(db: Db, voice: string): Promise<string> {
  const name = voice.toLowerCase();
  if (!OPENAI_VOICES.has(name)) return voice;
  return openAiVoiceFor(name, await englishCatalog(db)) ?? voice;
}
