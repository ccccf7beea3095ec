import type { Knex } from 'knex';
import { splitSentences, splitText } from '../engines/text';
import type { ReadText } from '../audio/render';
import { parseSsml } from '../text/ssml';
import { compileLexicon, type CompiledLexicon } from '../text/lexicon';
import { PronunciationEntry } from '../db/models/PronunciationEntry';
import { Voice } from '../db/models/Voice';
import type { SynthesisRow } from '../db/models/Synthesis';
import { SynthesisSpeechPlan } from '../db/models/SynthesisSpeechPlan';

/**
 * What a synthesis says, chunk by chunk: the chunks render in parallel, each
 * as one engine call. Plain text is cut into chunks of the text itself (the
 * render reads each through the dictionary and the normalizer); an SSML
 * document is parsed first (text/ssml) and its speech segments are cut, each
 * chunk then carrying what the document said of it: its words' spans in the
 * document, the stretches to say as IPA, its prosody and the silence the
 * breaks, sentences and paragraphs put around it, and the voice a <voice>
 * element gave it (a chunk never spans a change of voice: each segment is
 * cut on its own). No engine ever sees markup.
 *
 * A synthesis is planned once: the first step that needs its plan (the slot,
 * with the reservation) stores it, and every later one (each render, the
 * finish, the API's stream) reads that plan (speechPlanOf). The plan depends
 * on the account's dictionaries, which may change while the synthesis runs.
 */

/** The most characters of a chunk (a longer sentence is cut); a text longer than this renders sentence by sentence. */
export const CHUNK_CHARS = 400;

export interface PlannedChunk {
  /** Plain text: a slice of the synthesis's text. SSML: the spoken text of the chunk, already read. */
  text: string;
  /** SSML only: how the chunk was read (absent for plain text). */
  read?: ReadText;
  /** SSML only: the voice a <voice name> gave the chunk (absent: the synthesis's voice). */
  voiceId?: string;
}

export interface SpeechPlan {
  chunks: PlannedChunk[];
  /** SSML: what was read differently from what the document asked (unknown elements, …), with line and column. */
  warnings: string[];
  /** Seconds of silence finishAudio puts between two chunks: null for its default; 0 for SSML, whose chunks carry their own. */
  pauseSeconds: number | null;
}

export interface SpeechPlanInput {
  text: string;
  textType: SynthesisRow['text_type'];
  /** One chunk per sentence (a streaming client hears the first sentence first). */
  streaming: boolean;
  /** The voice's language (BCP 47): SSML's say-as readers and the normalizer. */
  language: string;
  /** Whether ordinary SSML text goes through the normalizer (text_normalization not `off`). */
  normalize: boolean;
  lexicon?: CompiledLexicon | null;
}

const SAYS_SOMETHING = /[\p{L}\p{N}]/u;

/**
 * The chunks of a text: one for a text of up to CHUNK_CHARS (rendered in one
 * step), else one per sentence (as a streamed text always is), so that its
 * progress moves with each sentence rendered. Throws SsmlError for an invalid
 * SSML document (the API checked it at submit).
 */
export function planSpeech(input: SpeechPlanInput): SpeechPlan {
  if (input.streaming) return planWith(input, splitSentences);
  const whole = planWith(input, splitText);
  return whole.chunks.length > 1 ? planWith(input, splitSentences) : whole;
}

function planWith(input: SpeechPlanInput, split: (text: string, maxChars: number) => string[]): SpeechPlan {
  if (input.textType !== 'ssml')
    return { chunks: split(input.text, CHUNK_CHARS).map((text) => ({ text })), warnings: [], pauseSeconds: null };
  const parsed = parseSsml(input.text, {
    language: input.language,
    normalize: input.normalize,
    lexicon: input.lexicon ?? null,
  });
  const chunks: PlannedChunk[] = [];
  // Silence asked for since the last chunk (breaks, sentence and paragraph edges), milliseconds.
  let pauseMs = 0;
  for (const segment of parsed.segments) {
    if (segment.type === 'break') pauseMs += segment.ms;
    if (segment.type !== 'speech' || !SAYS_SOMETHING.test(segment.text)) continue;
    // Each spoken word's place in the segment's text: the words are its words in order.
    let at = 0;
    const located = segment.words.map((word) => {
      const index = segment.text.indexOf(word.word, at);
      at = index < 0 ? at : index + word.word.length;
      return { index, word };
    });
    let cursor = 0;
    split(segment.text, CHUNK_CHARS).forEach((piece, index) => {
      const start = Math.max(cursor, segment.text.indexOf(piece, cursor));
      const end = start + piece.length;
      cursor = end;
      chunks.push({
        text: piece,
        read: {
          words: located.filter((word) => word.index >= start && word.index < end).map(({ word }) => word),
          pronunciations: segment.pronunciations
            .filter((p) => p.start >= start && p.end <= end)
            .map((p) => ({ ipa: p.ipa, start: p.start - start, end: p.end - start })),
          prosody: segment.prosody,
          // A segment cut in pieces pauses between them as plain text does between chunks; across segments, what the document asked.
          pauseBeforeSeconds: index === 0 ? pauseMs / 1000 : null,
          pauseAfterSeconds: 0,
        },
        ...(segment.voice !== null && { voiceId: segment.voice }),
      });
      pauseMs = 0;
    });
  }
  // Breaks after the last words: silence at the end of the last chunk.
  const last = chunks.at(-1)?.read;
  if (last) last.pauseAfterSeconds = pauseMs / 1000;
  return { chunks, warnings: parsed.warnings, pauseSeconds: 0 };
}

/** The voices a plan's chunks name besides the synthesis's own, each once. */
export const chunkVoiceIds = (plan: SpeechPlan): string[] => [
  ...new Set(plan.chunks.flatMap((chunk) => (chunk.voiceId ? [chunk.voiceId] : []))),
];

/** The language a voice reads in: a cloned voice's base voice's (the voice that renders it). */
async function languageOf(db: Knex, voiceId: string): Promise<string> {
  const voice = await Voice.query(db).findById(voiceId);
  const profile = voice?.category === 'cloned' ? (voice.profile as { baseVoiceId?: string } | null) : null;
  const base = profile?.baseVoiceId ? await Voice.query(db).findById(profile.baseVoiceId) : voice;
  return base?.language ?? voice?.language ?? 'en-US';
}

type PlannedSynthesis = Pick<
  SynthesisRow,
  'id' | 'text' | 'streaming' | 'text_type' | 'voice_id' | 'text_normalization' | 'pronunciation_dictionary_ids'
>;

/**
 * A synthesis's plan: the stored one, or else (its first step, or a synthesis
 * whose first step ran before plans were stored) planned from its row now and
 * stored. `lexicon` and `language`: its dictionaries, compiled, and its
 * voice's language, when the caller has them already (read otherwise).
 */
export async function speechPlanOf(
  db: Knex,
  synthesis: PlannedSynthesis,
  lexicon?: CompiledLexicon | null,
  language?: string,
): Promise<SpeechPlan> {
  const stored = await SynthesisSpeechPlan.planOf(db, synthesis.id);
  if (stored) return stored;
  return SynthesisSpeechPlan.keep(db, synthesis.id, await loadSpeechPlan(db, synthesis, lexicon, language));
}

/** The stored plan of a synthesis, if any, without planning it. */
export const storedSpeechPlan = (db: Knex, synthesisId: string): Promise<SpeechPlan | null> =>
  SynthesisSpeechPlan.planOf(db, synthesisId);

/**
 * A synthesis's plan from its row. Plain text needs nothing else; an SSML
 * document is read in its voice's language with its dictionaries (`lexicon`
 * when the caller compiled them already).
 */
async function loadSpeechPlan(
  db: Knex,
  synthesis: PlannedSynthesis,
  lexicon?: CompiledLexicon | null,
  language?: string,
): Promise<SpeechPlan> {
  const base = {
    text: synthesis.text,
    textType: synthesis.text_type,
    streaming: synthesis.streaming,
    normalize: synthesis.text_normalization !== 'off',
  };
  if (synthesis.text_type !== 'ssml') return planSpeech({ ...base, language: language ?? 'en-US' });
  const [lang, compiled] = await Promise.all([
    language ?? languageOf(db, synthesis.voice_id),
    lexicon !== undefined
      ? lexicon
      : PronunciationEntry.lexiconOf(db, synthesis.pronunciation_dictionary_ids ?? []).then((entries) =>
          entries.length > 0 ? compileLexicon(entries) : null,
        ),
  ]);
  return planSpeech({ ...base, language: lang, lexicon: compiled });
}
