import type { TimedWord } from '../../../audio/timestamps';

/**
 * ElevenLabs' character alignment from the engines' word timestamps: a
 * word's time is shared evenly among its characters, and the characters
 * between two words (spaces, punctuation) take the silence between them.
 * Nothing is guessed from the audio: a voice whose engine gives no word
 * timing gets no alignment.
 */
export interface CharacterAlignment {
  characters: string[];
  character_start_times_seconds: number[];
  character_end_times_seconds: number[];
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

export const emptyAlignment = (): CharacterAlignment => ({
  characters: [],
  character_start_times_seconds: [],
  character_end_times_seconds: [],
});

/** Appends `more` to `into` (both in stream time). */
export function appendAlignment(into: CharacterAlignment, more: CharacterAlignment): void {
  into.characters.push(...more.characters);
  into.character_start_times_seconds.push(...more.character_start_times_seconds);
  into.character_end_times_seconds.push(...more.character_end_times_seconds);
}

/**
 * One sentence's characters in stream time: `lead` (the text between the
 * previous sentence and this one, said during the pause from `leadFrom`),
 * then the sentence's own, whose `words` are in its time (offsets in UTF-16
 * units of `text`), moved by `offset` seconds; `seconds` is its length.
 */
export function alignSentence(
  text: string,
  words: readonly TimedWord[],
  offset: number,
  seconds: number,
  lead: { text: string; from: number },
): CharacterAlignment {
  const out = emptyAlignment();
  const push = (character: string, start: number, end: number) => {
    out.characters.push(character);
    out.character_start_times_seconds.push(round(start));
    out.character_end_times_seconds.push(round(Math.max(start, end)));
  };
  for (const character of lead.text) push(character, lead.from, offset);
  let next = 0;
  let unit = 0;
  for (const character of text) {
    while (next < words.length && words[next].char_end <= unit) next++;
    const word = words[next];
    if (word && word.char_start <= unit) {
      const letters = [...text.slice(word.char_start, word.char_end)];
      const position = [...text.slice(word.char_start, unit)].length;
      const share = (word.end - word.start) / letters.length;
      push(character, offset + word.start + share * position, offset + word.start + share * (position + 1));
    } else {
      const from = next > 0 ? words[next - 1].end : 0;
      const to = word ? word.start : seconds;
      push(character, offset + from, offset + to);
    }
    unit += character.length;
  }
  return out;
}
