/**
 * A novel's paragraph cut into narration and quoted dialogue, for reading
 * the dialogue in another voice. Quotes: straight double quotes paired in
 * order, “…”, ‘…’ (a ’ between letters is an apostrophe, not a close),
 * «…» and „…“. The segments keep every character, quotes included, so
 * joining their texts gives the paragraph back; a quote left open runs to
 * the paragraph's end (a speech that goes on in the next paragraph).
 */

export interface DialogueSegment {
  kind: 'narration' | 'dialogue';
  text: string;
}

const CLOSERS: Record<string, string> = { '“': '”', '"': '"', '‘': '’', '«': '»', '„': '“' };

export function splitDialogue(text: string): DialogueSegment[] {
  const segments: DialogueSegment[] = [];
  const push = (kind: DialogueSegment['kind'], part: string) => {
    if (part === '') return;
    const last = segments[segments.length - 1];
    if (last?.kind === kind) last.text += part;
    else segments.push({ kind, text: part });
  };
  let start = 0;
  let index = 0;
  while (index < text.length) {
    const closer = CLOSERS[text[index]];
    if (closer === undefined || (text[index] === '‘' && isLetter(text[index - 1]))) {
      index++;
      continue;
    }
    const end = closingIndex(text, index + 1, closer);
    push('narration', text.slice(start, index));
    const stop = end < 0 ? text.length : end + 1;
    push('dialogue', text.slice(index, stop));
    start = index = stop;
  }
  push('narration', text.slice(start));
  return segments;
}

function closingIndex(text: string, from: number, closer: string): number {
  for (let index = from; index < text.length; index++) {
    if (text[index] !== closer) continue;
    // Don’t, o’clock: a ’ with letters on both sides is an apostrophe.
    if (closer === '’' && isLetter(text[index - 1]) && isLetter(text[index + 1])) continue;
    return index;
  }
  return -1;
}

const isLetter = (char: string | undefined) => char !== undefined && /\p{L}/u.test(char);
