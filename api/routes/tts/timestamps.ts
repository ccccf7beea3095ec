import type { Context } from 'koa';
import { z } from 'zod';
import { timestampsKey } from '../../../synthesis/objects';
import { readJsonObject, type StoredTimestamps } from '../../../synthesis/timestamps';
import type { SynthesisRow } from '../../../db/models/Synthesis';
import type { TimedWord } from '../../../audio/timestamps';
import type { Storage } from '../../../lib/storage';
import { notReady, timestampsUnavailable } from '../../errors';

export const TIMESTAMP_FORMATS = ['json', 'srt', 'vtt'] as const;

export const TimestampsQuery = z.object({
  format: z
    .enum(TIMESTAMP_FORMATS, `Must be one of: ${TIMESTAMP_FORMATS.join(', ')}.`)
    .default('json')
    .meta({ description: '`json` (the words), `srt` (SubRip captions) or `vtt` (WebVTT captions)' }),
});

export const TimestampsBody = z.object({
  words: z
    .array(
      z.object({
        word: z.string().meta({ description: 'The word as written in the submitted text: text[char_start:char_end].' }),
        start: z.number().meta({ description: 'Seconds from the start of the delivered audio.' }),
        end: z.number().meta({ description: 'Seconds from the start of the delivered audio at which the word ends.' }),
        char_start: z.int().meta({
          description: "Offset of the word's first character in the synthesis's text (characters are code points).",
        }),
        char_end: z.int().meta({ description: 'Offset just past its last character.' }),
      }),
    )
    .meta({
      description:
        'The words of the text in spoken order, each with its time span in the audio and its characters in the text',
    }),
});

/** Caption cues: a few words each, broken after sentence ends and long pauses, at most ~7 s or 42 characters. */
export function captionCues(
  text: string,
  words: readonly TimedWord[],
): Array<{ start: number; end: number; text: string }> {
  const chars = Array.from(text);
  const cues: Array<{ start: number; end: number; text: string }> = [];
  let first = 0;
  for (let index = 0; index < words.length; index++) {
    const word = words[index];
    const next = words[index + 1];
    const cueText = chars.slice(words[first].char_start, word.char_end).join('');
    const sentenceEnds = /[.!?;:]/.test(chars.slice(word.char_end, next?.char_start ?? chars.length).join(''));
    const full = cueText.length >= 42 || word.end - words[first].start >= 7;
    if (!next || sentenceEnds || full || next.start - word.end > 0.6) {
      cues.push({ start: words[first].start, end: word.end, text: cueText.replace(/\s+/g, ' ') });
      first = index + 1;
    }
  }
  return cues;
}

const clock = (seconds: number, separator: string) => {
  const ms = Math.round(seconds * 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
};

export function toSrt(cues: ReturnType<typeof captionCues>): string {
  return cues
    .map((cue, index) => `${index + 1}\n${clock(cue.start, ',')} --> ${clock(cue.end, ',')}\n${cue.text}\n`)
    .join('\n');
}

export function toVtt(cues: ReturnType<typeof captionCues>): string {
  // A cue's text must not hold "-->"; it cannot (words only), but arrows in the text between words could.
  return `WEBVTT\n\n${cues.map((cue) => `${clock(cue.start, '.')} --> ${clock(cue.end, '.')}\n${cue.text.replace(/-->/g, '→')}\n`).join('\n')}`;
}

/** The timestamps of a synthesis row the caller owns, as JSON or captions. */
export async function sendTimestamps(
  ctx: Context,
  storage: Storage,
  row: Pick<SynthesisRow, 'id' | 'account_id' | 'status' | 'text'>,
  format: (typeof TIMESTAMP_FORMATS)[number],
): Promise<void> {
  if (row.status !== 'completed') throw notReady();
  const stored = await readJsonObject<StoredTimestamps>(storage, timestampsKey(row.account_id, row.id));
  if (!stored) throw timestampsUnavailable();
  ctx.set('Cache-Control', 'private, max-age=3600');
  if (format === 'json') {
    ctx.body = { words: stored.words };
    return;
  }
  const cues = captionCues(row.text, stored.words);
  ctx.set('Content-Disposition', `inline; filename="synthesis-${row.id}.${format}"`);
  if (format === 'srt') {
    ctx.type = 'application/x-subrip; charset=utf-8';
    ctx.body = toSrt(cues);
  } else {
    ctx.type = 'text/vtt; charset=utf-8';
    ctx.body = toVtt(cues);
  }
}
