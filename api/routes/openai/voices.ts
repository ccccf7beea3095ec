import type { Db } from '../../../db/knex';
import { Voice } from '../../../db/models/Voice';
import {
  type CatalogVoice,
  chooseOpenAiVoices,
  OPENAI_VOICES,
  type OpenAiVoiceChoice,
  openAiVoiceFor,
} from '../../../engines/openAiVoices';

/**
 * OpenAI's voice names on this server: which catalog voice each speaks with
 * (the choice and its reasons: engines/openAiVoices.ts), read from the
 * voices table's available premade voices.
 */

export { type CatalogVoice, OPENAI_VOICES, openAiVoiceFor };

/** The available premade English voices in catalog order: what the names choose from. */
export async function englishCatalog(db: Db): Promise<CatalogVoice[]> {
  return await Voice.query(db)
    .modify('catalog')
    .modify('live')
    .modify('language', 'en')
    .orderBy('sort_order')
    .select('id', 'language', 'gender', 'quality');
}

/** Every OpenAI name with the voice it speaks with here, whether that is neural, and what to install if not. */
export async function openAiVoiceChoices(db: Db): Promise<OpenAiVoiceChoice[]> {
  return [...chooseOpenAiVoices(await englishCatalog(db)).values()];
}

/** An OpenAI voice name (any case) → the catalog voice it speaks with here; anything else is returned as given (a voice id, checked by the submit). */
export async function resolveOpenAiVoice(db: Db, voice: string): Promise<string> {
  const name = voice.toLowerCase();
  if (!OPENAI_VOICES.has(name)) return voice;
  return openAiVoiceFor(name, await englishCatalog(db)) ?? voice;
}
