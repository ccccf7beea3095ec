import { textTokens } from '../../audio/timestamps';
import { CHUNK_CHARS } from '../../synthesis/speechPlan';
import { longestPassage, MAX_PASSAGE_SPOKEN, spokenCharacters } from '../../synthesis/spokenLength';
import { applyLexicon, type CompiledLexicon } from '../../text/lexicon';
import { normalizeText } from '../../text/normalize';
import { parseSsml, SsmlError, startsWithSpeak } from '../../text/ssml';

/**
 * The text work of a request, all of it linear in the text but still too
 * long for the API's event loop at a plan's largest texts: it runs on the
 * text thread (./thread.ts). Pure: the thread gets the text and the compiled
 * dictionaries, and answers what the handler needs.
 */

export interface TextJob {
  /** The NFC text as sent: a preview's spans index it; its trimmed form is what is checked and charged. */
  text: string;
  /** `text_type` as asked; absent: SSML when the text starts with <speak>. */
  askedType?: 'text' | 'ssml';
  /** The language it is read in (the voice's). */
  language: string;
  /** Also answer the preview: the text as it will be read, each word with its source span. */
  preview?: { normalize: boolean };
}

export interface SpokenWordSpan {
  word: string;
  source_start: number;
  source_end: number;
}

export interface ReadText {
  textType: 'text' | 'ssml';
  /** What an SSML document asked that is read differently (line and column); none for plain text. */
  warnings: string[];
  /** The voice ids an SSML document's <voice name> elements name (the caller checks the account may use each); none for plain text. */
  voices: string[];
  /** Code points said after the dictionaries' aliases (synthesis/spokenLength.ts). */
  spokenCharacters: number;
  preview?: { spoken: string; words: SpokenWordSpan[]; applied: boolean };
}

/** A text that cannot be read, with the reason a 400 on `text` gives. */
export type TextOutcome = { read: ReadText } | { refused: string };

const spans = (words: ReadonlyArray<SpokenWordSpan>): SpokenWordSpan[] =>
  words.map(({ word, source_start, source_end }) => ({ word, source_start, source_end }));

/**
 * Whether the text is SSML (asked, or absent and it starts with <speak>), and
 * the document's warnings. An invalid document, or one with nothing to say,
 * is refused with its line and column.
 */
function textTypeOf(
  text: string,
  job: TextJob,
): { textType: 'text' | 'ssml'; warnings: string[]; voices: string[] } | string {
  const textType = job.askedType ?? (startsWithSpeak(text) ? 'ssml' : 'text');
  if (textType === 'text') return { textType, warnings: [], voices: [] };
  try {
    const parsed = parseSsml(text, { language: job.language, normalize: false });
    if (!parsed.speaks) return 'The SSML document has nothing to say: its text must contain a letter or a digit.';
    return { textType, warnings: parsed.warnings, voices: parsed.voices };
  } catch (error) {
    if (error instanceof SsmlError) return `Invalid SSML: ${error.message}.`;
    throw error;
  }
}

function previewOf(job: TextJob, textType: 'text' | 'ssml', lexicon: CompiledLexicon | null, normalize: boolean) {
  const { text, language } = job;
  if (textType === 'ssml') {
    const parsed = parseSsml(text, { language, lexicon, normalize });
    return { spoken: parsed.plainText, words: spans(parsed.words), applied: true };
  }
  if (lexicon) {
    // As a synthesis reads it: the dictionary first, then (unless off) the normalizer over the rest.
    const read = applyLexicon(text, lexicon, { language, normalize });
    return { spoken: read.spoken, words: spans(read.words), applied: read.spoken !== text };
  }
  const normalized = normalize ? normalizeText(text, { language }) : null;
  if (!normalized?.applied) {
    // Read as written: each word of the text is its own span, as word timestamps cut the text into words.
    const words = textTokens(text).map(({ word, start, end }) => ({ word, source_start: start, source_end: end }));
    return { spoken: text, words, applied: false };
  }
  return { spoken: normalized.spoken, words: spans(normalized.words), applied: true };
}

export function readText(job: TextJob, lexicon: CompiledLexicon | null): TextOutcome {
  const trimmed = job.text.trim();
  const type = textTypeOf(trimmed, job);
  if (typeof type === 'string') return { refused: type };
  if (type.textType === 'text' && lexicon) {
    const passage = longestPassage(trimmed, lexicon);
    if (passage > MAX_PASSAGE_SPOKEN)
      return {
        refused: `With your pronunciation dictionaries' aliases one passage of this text says ${passage} characters; at most ${MAX_PASSAGE_SPOKEN} are said from one passage of up to ${CHUNK_CHARS} written characters.`,
      };
  }
  const read: ReadText = {
    ...type,
    spokenCharacters: spokenCharacters(trimmed, type.textType, job.language, lexicon),
  };
  if (job.preview) read.preview = previewOf(job, type.textType, lexicon, job.preview.normalize);
  return { read };
}
