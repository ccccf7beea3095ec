/** Captions (SRT and WebVTT) from word timings already placed on the chapter's timeline. */

export interface TimedWord {
  word: string;
  startMs: number;
  endMs: number;
}

/** A cue ends before it passes either bound: short enough to read at a glance, long enough not to flicker. */
const CUE_MAX_MS = 7_000;
const CUE_MAX_CHARS = 80;

interface Cue {
  startMs: number;
  endMs: number;
  text: string;
}

/** Groups words into cues, in order; a cue never spans a block (`blockBreaks` holds each block's first word index). */
function cuesOf(words: readonly TimedWord[], blockBreaks: ReadonlySet<number>): Cue[] {
  const cues: Cue[] = [];
  let current: Cue | null = null;
  words.forEach((word, index) => {
    const text = word.word.replace(/\s+/g, ' ').trim();
    if (!text) return;
    const fits =
      current &&
      !blockBreaks.has(index) &&
      word.endMs - current.startMs <= CUE_MAX_MS &&
      current.text.length + 1 + text.length <= CUE_MAX_CHARS;
    if (current && fits) {
      current.text += ` ${text}`;
      current.endMs = Math.max(current.endMs, word.endMs);
    } else {
      current = { startMs: word.startMs, endMs: Math.max(word.endMs, word.startMs + 1), text };
      cues.push(current);
    }
  });
  // Overlapping timings (an engine's rounding) would make players show two cues at once.
  for (let i = 0; i + 1 < cues.length; i++) cues[i].endMs = Math.min(cues[i].endMs, cues[i + 1].startMs);
  return cues;
}

const VTT_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

function clock(ms: number, separator: ',' | '.'): string {
  const whole = Math.max(0, Math.round(ms));
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor(whole / 60_000) % 60;
  const seconds = Math.floor(whole / 1000) % 60;
  return `${pad(hours)}:${pad(minutes)}:${pad(seconds)}${separator}${pad(whole % 1000, 3)}`;
}

export function captionsOf(
  words: readonly TimedWord[],
  blockBreaks: ReadonlySet<number>,
): { srt: string; vtt: string } {
  const cues = cuesOf(words, blockBreaks);
  const srt = cues
    .map((cue, i) => `${i + 1}\n${clock(cue.startMs, ',')} --> ${clock(cue.endMs, ',')}\n${cue.text}\n`)
    .join('\n');
  const vtt = [
    'WEBVTT\n',
    // WebVTT cue text is markup: &, < and > are escaped (an arrow in the text would otherwise end the cue).
    ...cues.map(
      (cue) =>
        `${clock(cue.startMs, '.')} --> ${clock(cue.endMs, '.')}\n${cue.text.replace(/[&<>]/g, (c) => VTT_ENTITIES[c])}\n`,
    ),
  ].join('\n');
  return { srt, vtt };
}
