/**
 * The speaker's gender of the official single-speaker English Piper voices
 * (rhasspy/piper-voices v1.0.0, from their model cards and datasets), keyed by
 * `<language>-<name>` as their file names spell them. Piper's own config and
 * index do not say it; the catalog shows it and the OpenAI voice names are
 * matched by it (api/routes/openai/voices.ts). A sidecar's `gender` wins.
 */
const GENDERS: ReadonlyMap<string, 'female' | 'male'> = new Map([
  ['en_US-amy', 'female'],
  ['en_US-bryce', 'male'],
  ['en_US-danny', 'male'],
  ['en_US-hfc_female', 'female'],
  ['en_US-hfc_male', 'male'],
  ['en_US-joe', 'male'],
  ['en_US-john', 'male'],
  ['en_US-kathleen', 'female'],
  ['en_US-kristin', 'female'],
  ['en_US-kusal', 'male'],
  ['en_US-lessac', 'female'],
  ['en_US-ljspeech', 'female'],
  ['en_US-norman', 'male'],
  ['en_US-ryan', 'male'],
  ['en_GB-alan', 'male'],
  ['en_GB-alba', 'female'],
  ['en_GB-cori', 'female'],
  ['en_GB-jenny_dioco', 'female'],
  ['en_GB-northern_english_male', 'male'],
  ['en_GB-southern_english_female', 'female'],
]);

/** `en_US-amy-medium` → female; undefined for a voice this table does not know. */
export function knownSpeakerGender(modelName: string): 'female' | 'male' | undefined {
  const [language, name] = modelName.split('-');
  return name ? GENDERS.get(`${language}-${name}`) : undefined;
}
