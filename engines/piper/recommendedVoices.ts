import { matchesLanguage, type VoiceIndex, VoiceInstallError } from './voiceIndex';

/**
 * One good Piper voice per language, from the facts of the official index
 * (piper-voices v1.0.0) and the voices' model cards: `medium` quality (the
 * size and speed of the shipped joe; `high` models are ~1.8x larger and
 * slower), one speaker (the catalog offers no multi-speaker models yet), and a
 * dataset whose model card says CC0. Languages whose candidates' model cards
 * were not checked (French, Italian, British English, …) are left out rather
 * than guessed; docs/voices.md lists the same table.
 */
export interface RecommendedVoice {
  key: string;
  /** What the voice's MODEL_CARD says under "Dataset". */
  dataset: string;
}

export const RECOMMENDED_VOICES: readonly RecommendedVoice[] = [
  { key: 'cs_CZ-jirka-medium', dataset: 'OHF-Voice voice-datasets, CC0' },
  { key: 'de_DE-thorsten-medium', dataset: 'Thorsten-Voice, CC0' },
  { key: 'en_US-joe-medium', dataset: 'NabuCasa voice-datasets, CC0 (shipped by scripts/install.sh and the image)' },
  { key: 'es_ES-davefx-medium', dataset: 'NabuCasa voice-datasets, CC0' },
  { key: 'nl_BE-nathalie-medium', dataset: 'rhasspy dataset-voice-nathalie, CC0' },
  { key: 'pt_BR-faber-medium', dataset: 'NabuCasa voice-datasets, CC0' },
];

/** The recommended keys (of one language when given) that the index has; an unknown language is an error. */
export function recommendedKeys(index: VoiceIndex, language?: string): string[] {
  const inIndex = RECOMMENDED_VOICES.map((voice) => index[voice.key]).filter((voice) => voice !== undefined);
  const chosen = language ? inIndex.filter((voice) => matchesLanguage(voice, language)) : inIndex;
  if (chosen.length === 0)
    throw new VoiceInstallError(
      language
        ? `no recommended voice for ${language} in this index (recommended: ${RECOMMENDED_VOICES.map((voice) => voice.key).join(', ')}); list others with: openvox voices available --language ${language}`
        : 'none of the recommended voices is in this index',
    );
  return chosen.map((voice) => voice.key);
}
