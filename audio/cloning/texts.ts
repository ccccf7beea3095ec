import { sampleSentence } from '../../engines/samples';

/**
 * Texts a base voice reads while a clone is built. The calibration text
 * (two sentences, ~6-7 s of speech) is what the pitch shift, EQ and tempo are fitted on: one
 * short sentence gives a noisy median F0 and long-term spectrum. The
 * language's sample sentence is kept out of it, so the similarity stored on
 * the voice is measured on a text the fit never saw. Languages without a
 * calibration text here use their sample sentence for both.
 */
const CALIBRATION_TEXTS: Readonly<Record<string, string>> = {
  en: 'We walked along the river on a quiet morning and talked about the weather. The rainbow appears when sunlight passes through drops of rain.',
  de: 'Wir gingen an einem ruhigen Morgen am Fluss entlang und sprachen über das Wetter. Ein Regenbogen entsteht, wenn Sonnenlicht durch Regentropfen fällt.',
  es: 'Caminamos junto al río en una mañana tranquila y hablamos del tiempo. El arcoíris aparece cuando la luz del sol atraviesa las gotas de lluvia.',
  fr: "Nous avons marché le long de la rivière par un matin calme en parlant du temps. L'arc-en-ciel apparaît quand la lumière du soleil traverse les gouttes de pluie.",
  it: "Abbiamo camminato lungo il fiume in una mattina tranquilla parlando del tempo. L'arcobaleno appare quando la luce del sole attraversa le gocce di pioggia.",
  pt: 'Caminhamos ao longo do rio numa manhã tranquila e falámos sobre o tempo. O arco-íris aparece quando a luz do sol atravessa as gotas de chuva.',
  nl: 'We liepen op een rustige ochtend langs de rivier en praatten over het weer. Een regenboog ontstaat wanneer zonlicht door regendruppels valt.',
};

/** The text candidates are fitted on. */
export function calibrationText(language: string): string {
  return CALIBRATION_TEXTS[language.split('-')[0].toLowerCase()] ?? sampleSentence(language);
}

/** The text the stored similarity is measured on (the language's sample sentence). */
export function similarityText(language: string): string {
  return sampleSentence(language);
}
