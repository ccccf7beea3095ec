import { sampleSentence } from '../../engines/samples';

/**
 * Texts a base voice reads while a clone is built. The calibration text
 * (two sentences, ~6-7 s of speech) is what the pitch shift, EQ and tempo are fitted on: one
 * short sentence gives a noisy median F0 and long-term spectrum. The
 * candidates are scored on another text (below), so the similarity stored on
 * the voice is measured on a text the fit never saw. Languages without
 * texts here use their sample sentence for both.
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

/**
 * The text every candidate reads to be scored (the base voices plain and
 * adjusted alike): neither the fit nor the calibration text saw it. Two
 * sentences (~5 s): one short sentence alone moves a Piper voice's score by
 * ±0.05 between renderings.
 */
const HELD_OUT_TEXTS: Readonly<Record<string, string>> = {
  en: 'Please call Stella and ask her to bring these things from the store. Six spoons of fresh snow peas and a big toy frog for the kids.',
  de: 'Bitte ruf Stella an und sag ihr, sie soll diese Dinge aus dem Laden mitbringen. Sechs Löffel frische Erbsen und einen großen Spielzeugfrosch für die Kinder.',
  es: 'Por favor, llama a Stella y pídele que traiga estas cosas de la tienda. Seis cucharas de guisantes frescos y una gran rana de juguete para los niños.',
  fr: 'Appelle Stella et demande-lui de rapporter ces choses du magasin. Six cuillères de petits pois frais et une grande grenouille en jouet pour les enfants.',
  it: 'Per favore chiama Stella e chiedile di portare queste cose dal negozio. Sei cucchiai di piselli freschi e una grande rana giocattolo per i bambini.',
  pt: 'Por favor liga à Stella e pede-lhe que traga estas coisas da loja. Seis colheres de ervilhas frescas e uma grande rã de brincar para as crianças.',
  nl: 'Bel Stella alsjeblieft en vraag haar deze dingen uit de winkel mee te nemen. Zes lepels verse erwten en een grote speelgoedkikker voor de kinderen.',
};

/** The text candidates are fitted on. */
export function calibrationText(language: string): string {
  return CALIBRATION_TEXTS[language.split('-')[0].toLowerCase()] ?? sampleSentence(language);
}

/** The text every candidate is scored on, and so the stored similarity (the language's sample sentence when there is none). */
export function similarityText(language: string): string {
  return HELD_OUT_TEXTS[language.split('-')[0].toLowerCase()] ?? sampleSentence(language);
}
