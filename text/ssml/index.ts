/**
 * SSML, a useful subset, parsed into segments no engine sees unparsed: plain
 * text with its prosody, silences, markers, and stretches to say as IPA.
 * Every spoken word keeps its span in the SSML source, so word timestamps
 * point into the document the client sent.
 *
 * Supported: speak, break, say-as, sub, phoneme (IPA), prosody, emphasis, p,
 * s, lang (read in the request's voice), mark, voice (another voice by its id,
 * which the caller checks); audio is not played (its
 * fallback text is read); unknown elements are read as their text. Invalid
 * documents throw SsmlError with a line and column. See docs/text.md, "SSML".
 */
import { compileLexicon, readMapped, type CompiledLexicon, type LexiconEntry } from '../lexicon';
import { ipaProblem } from '../ipa';
import type { SpokenWord } from '../normalize';
import {
  collapse,
  join,
  finish,
  fromSpans,
  identity,
  normalized,
  pronounced,
  replacement,
  type Mapped,
  type Pronunciation,
} from '../spoken';
import { decode, lineColumn, lineColumns, MarkupError, parseXml, type Element } from '../xml';
import {
  BREAK_STRENGTH,
  breakTime,
  clamp,
  EMPHASIS,
  isDateFormat,
  NEUTRAL,
  PARAGRAPH_PAUSE,
  pitch,
  rate,
  RANGE,
  SAY_AS,
  sayAs,
  SENTENCE_PAUSE,
  volume,
  type Prosody,
} from './values';

export type { Prosody } from './values';
export type { Pronunciation } from '../spoken';

/** An SSML document that cannot be read: `line` and `column` are 1-based (columns in Unicode characters), `offset` is UTF-16. */
export class SsmlError extends MarkupError {
  constructor(message: string, line: number, column: number, offset: number) {
    super(message, line, column, offset);
    this.name = 'SsmlError';
  }
}

/** Plain text to say with one prosody. */
export interface SpeechSegment {
  type: 'speech';
  /** Plain text (whitespace collapsed): never markup; the engine adapter escapes it as before. */
  text: string;
  /** Each word of `text` with its span in the SSML source (UTF-16, end exclusive). */
  words: SpokenWord[];
  /** Stretches of `text` to say as IPA by engines that take phonemes; others say the text. */
  pronunciations: Pronunciation[];
  prosody: Prosody;
  /** The voice id the innermost <voice name> names; null: the request's voice. */
  voice: string | null;
}

/** Silence. `reason`: an explicit <break>, or the edge of a sentence <s> or paragraph <p>. */
export interface BreakSegment {
  type: 'break';
  ms: number;
  reason: 'break' | 'sentence' | 'paragraph';
  source_start: number;
  source_end: number;
}

/** A <mark name>: a point in the audio a client can ask the time of. */
export interface MarkSegment {
  type: 'mark';
  name: string;
  source_start: number;
  source_end: number;
}

export type Segment = SpeechSegment | BreakSegment | MarkSegment;

export interface SsmlOptions {
  /** BCP 47 tag of the request: readers (say-as, normalization) and the voice's language. */
  language: string;
  /** Pronunciation dictionary applied to the text (not inside say-as, sub or phoneme), before normalization: its entries, or compileLexicon's output. */
  lexicon?: readonly LexiconEntry[] | CompiledLexicon | null;
  /** Normalize the text (default true): "$5" → "five dollars". */
  normalize?: boolean;
}

export interface ParsedSsml {
  segments: Segment[];
  /** Every spoken word in order, with its span in the source. */
  words: SpokenWord[];
  /** The speech segments' text joined with spaces (breaks and marks left out). */
  plainText: string;
  /** What was read differently from what the document asked, each with its line and column; at most SSML_LIMITS.warnings, then one line saying how many more. */
  warnings: string[];
  /**
   * Whether the document has anything to say as written: a letter or a digit
   * in its text, aliases or say-as readings, before normalization and
   * dictionaries. A synthesis refuses a document without (the same test
   * `plainText` of a parse with normalize: false and no lexicon gives).
   */
  speaks: boolean;
  /** The voice ids <voice name> elements name, each once, in document order: the caller checks the account may use them. */
  voices: string[];
}

export const SSML_LIMITS = {
  /** Document size, UTF-8 bytes. */
  bytes: 100 * 1024,
  /** Elements open at once (speak included). */
  depth: 32,
  /** One <break>, milliseconds. */
  breakMs: 10_000,
  /** All <break>s together, milliseconds. */
  totalBreakMs: 60_000,
  /** Any attribute value, characters. */
  attribute: 1000,
  /** Warnings kept (the rest are counted in one more line): each is a line of the answer. */
  warnings: 100,
} as const;

const SPEAK_ATTRIBUTES = /^(?:version|xmlns(?::.*)?|xml:lang|xml:base|xsi:schemaLocation|onlangfailure)$/;
/** By element name, which the client writes: a Map, so <constructor> finds nothing. */
const KNOWN_ATTRIBUTES: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries({
    break: ['time', 'strength'],
    'say-as': ['interpret-as', 'format', 'detail'],
    sub: ['alias'],
    phoneme: ['alphabet', 'ph'],
    prosody: ['rate', 'pitch', 'volume'],
    emphasis: ['level'],
    p: ['xml:lang'],
    s: ['xml:lang'],
    lang: ['xml:lang', 'onlangfailure'],
    mark: ['name'],
    voice: ['name'],
  }),
);
/** Elements whose content is text only. */
const TEXT_ONLY = new Set(['say-as', 'sub', 'phoneme']);
const EMPTY = new Set(['break', 'mark']);

interface Frame {
  element: Element;
  prosody: Prosody;
  voice: string | null;
  /** Decoded content of a text-only element, in pieces (joined once, at its end). */
  content?: Mapped[];
}

/** Speech keeps its pieces in a list, joined once when the document ends: joining at each piece was quadratic. */
type Item = ({ type: 'speech'; pieces: Mapped[] } & Saying) | (BreakSegment & { implicit?: boolean }) | MarkSegment;

/** How a stretch of text is said: its prosody and its voice (text is joined into one segment only where both match). */
interface Saying {
  prosody: Prosody;
  voice: string | null;
}

/** A break as a segment shows it: without the parser's `implicit` flag. */
const bareBreak = ({ ms, reason, source_start, source_end }: BreakSegment): BreakSegment => ({
  type: 'break',
  ms,
  reason,
  source_start,
  source_end,
});

/** The pause at the opening and at the closing tag of a <p>, an <s> or a <voice> (a sentence's): implicit, so an explicit <break> beside it wins. */
const edgePause = (name: string, start: number, end: number): Item => ({
  type: 'break',
  ms: name === 'p' ? PARAGRAPH_PAUSE : SENTENCE_PAUSE,
  reason: name === 'p' ? 'paragraph' : 'sentence',
  source_start: start,
  source_end: end,
  implicit: true,
});

const sameSaying = (a: Saying, b: Saying): boolean =>
  a.voice === b.voice &&
  a.prosody.rate === b.prosody.rate &&
  a.prosody.pitch === b.prosody.pitch &&
  a.prosody.volume === b.prosody.volume;

/** A document whose first element is <speak> (or that declares a DTD) is parsed as is; anything else as the content of <speak>. */
const DOCUMENT = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!DOCTYPE|<speak[\s/>])/;

const SPEAK_FIRST = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<speak[\s/>]/;

/** Whether a text is an SSML document by its start: `<speak>` first (after an optional XML declaration and comments). */
export const startsWithSpeak = (text: string): boolean => SPEAK_FIRST.test(text);

/**
 * Parses SSML into segments. Input that does not start with <speak> is read
 * as the content of one ("Hello <break time=\"1s\"/> world"); it must still
 * be well-formed XML (a bare & is an error). Throws SsmlError.
 */
export function parseSsml(input: string, options: SsmlOptions): ParsedSsml {
  const language = options.language;
  const warnings: string[] = [];
  const fail = (message: string, offset: number): never => {
    const { line, column } = lineColumn(input, offset);
    throw new SsmlError(message, line, column, offset);
  };
  const bytes = Buffer.byteLength(input, 'utf8');
  if (bytes > SSML_LIMITS.bytes) fail(`the document is ${bytes} bytes, more than the ${SSML_LIMITS.bytes} accepted`, 0);
  let lexicon: CompiledLexicon | null = null;
  try {
    const given = options.lexicon;
    lexicon = Array.isArray(given)
      ? given.length > 0
        ? compileLexicon(given)
        : null
      : ((given as CompiledLexicon | null | undefined) ?? null);
  } catch (error) {
    throw new RangeError(`Pronunciation dictionary: ${(error as Error).message}`);
  }
  const wrapped = !DOCUMENT.test(input);

  const items: Item[] = [];
  const stack: Frame[] = [];
  let pending: ({ pieces: Mapped[] } & Saying) | null = null;
  const voices = new Set<string>();
  /** Whether the document's own text (before normalization and dictionaries) has a letter or a digit to say. */
  let speaks = false;
  const written = (text: string): void => {
    if (!speaks && /[\p{L}\p{N}]/u.test(text)) speaks = true;
  };
  let totalBreakMs = 0;

  const read = (piece: Mapped): Mapped => readMapped(piece, lexicon, { language, normalize: options.normalize }).read;
  const flush = (): void => {
    if (!pending) return;
    const { pieces, prosody, voice } = pending;
    pending = null;
    addPiece(read(join(pieces)), { prosody, voice });
  };
  function addPiece(piece: Mapped, saying: Saying): void {
    flush();
    const last = items[items.length - 1];
    if (last?.type === 'speech' && sameSaying(last, saying)) last.pieces.push(piece);
    else items.push({ type: 'speech', pieces: [piece], ...saying });
  }
  const addText = (piece: Mapped, saying: Saying): void => {
    if (pending && !sameSaying(pending, saying)) flush();
    written(piece.text);
    if (pending) pending.pieces.push(piece);
    else pending = { pieces: [piece], ...saying };
  };
  const addItem = (item: Item): void => {
    flush();
    items.push(item);
  };
  const position = lineColumns(input);
  let unsaid = 0;
  const warn = (message: string, offset: number): void => {
    if (warnings.length >= SSML_LIMITS.warnings) {
      unsaid++;
      return;
    }
    const { line, column } = position(offset);
    warnings.push(`${message} at line ${line}, column ${column}`);
  };
  const attributeAt = (element: Element, name: string): number => {
    const m = new RegExp(`\\s${name.replace(/[.:-]/g, '\\$&')}\\s*=\\s*["']`).exec(
      input.slice(element.start, element.end),
    );
    return m ? element.start + m.index + m[0].length : element.start;
  };
  const bad = (element: Element, attribute: string, message: string): never =>
    fail(`<${element.name}> ${message}`, attributeAt(element, attribute));

  /** The content span of a text-only element: its text without surrounding whitespace, else the element itself. */
  const contentSpan = (frame: Frame, content: Mapped, closeEnd: number): { start: number; end: number } => {
    const first = content.text.search(/\S/);
    if (first === -1) return { start: frame.element.start, end: closeEnd };
    const last = content.text.trimEnd().length - 1;
    return { start: content.starts[first], end: content.ends[last] };
  };

  const applyProsody = (element: Element, enclosing: Prosody): Prosody => {
    const next = { ...enclosing };
    const attr = element.attributes;
    for (const [key, parse] of [
      ['rate', rate],
      ['pitch', pitch],
      ['volume', volume],
    ] as const) {
      const value = attr[key];
      if (value === undefined) continue;
      const result = parse(value, enclosing[key]);
      if ('error' in result) bad(element, key, result.error);
      else {
        if (result.ignored) warn(result.ignored, attributeAt(element, key));
        next[key] = result.value;
      }
    }
    return bounded(element, next);
  };
  const bounded = (element: Element, prosody: Prosody): Prosody => {
    const out = { ...prosody };
    for (const key of ['rate', 'pitch', 'volume'] as const) {
      const { value, clamped } = clamp(prosody[key], RANGE[key]);
      if (clamped)
        warn(
          `<${element.name}> ${key} ${Math.round(prosody[key] * 1000) / 1000} is outside ${RANGE[key][0]}..${RANGE[key][1]} and was clamped to ${value}`,
          element.start,
        );
      out[key] = value;
    }
    return out;
  };

  const open = (element: Element): void => {
    const parent = stack[stack.length - 1];
    const prosody = parent?.prosody ?? NEUTRAL;
    const attr = element.attributes;
    const root = element.start < 0;
    if (stack.length >= SSML_LIMITS.depth)
      fail(`elements are nested more than ${SSML_LIMITS.depth} deep`, element.start);
    if (parent && TEXT_ONLY.has(parent.element.name))
      fail(`<${element.name}> is not allowed inside <${parent.element.name}>, which holds text only`, element.start);
    if (parent && EMPTY.has(parent.element.name)) fail(`<${parent.element.name}> must be empty`, element.start);
    for (const [name, value] of Object.entries(attr))
      if (value.length > SSML_LIMITS.attribute)
        fail(`attribute ${name} is longer than ${SSML_LIMITS.attribute} characters`, attributeAt(element, name));
    const known = KNOWN_ATTRIBUTES.get(element.name);
    if (known && element.name !== 'speak')
      for (const name of Object.keys(attr))
        if (!known.includes(name))
          warn(`attribute ${name} of <${element.name}> is not supported and was ignored`, attributeAt(element, name));
    const frame: Frame = { element, prosody, voice: parent?.voice ?? null };
    switch (element.name) {
      case 'speak': {
        if (parent)
          fail(
            parent.element.start < 0
              ? '<speak> must be the root element (the document does not start with it)'
              : '<speak> must be the root element',
            element.start,
          );
        if (!root) {
          for (const name of Object.keys(attr))
            if (!SPEAK_ATTRIBUTES.test(name))
              warn(`attribute ${name} of <speak> is not supported and was ignored`, attributeAt(element, name));
          const lang = attr['xml:lang'];
          if (lang && lang.split(/[-_]/)[0].toLowerCase() !== language.split(/[-_]/)[0].toLowerCase())
            warn(
              `<speak xml:lang="${lang}"> is read in the request's language and voice (${language})`,
              attributeAt(element, 'xml:lang'),
            );
        }
        break;
      }
      case 'break': {
        let ms = BREAK_STRENGTH.get('medium') ?? 0;
        if (attr.strength !== undefined) {
          const strength = BREAK_STRENGTH.get(attr.strength);
          if (strength === undefined)
            return bad(
              element,
              'strength',
              `strength="${attr.strength}" is not one of ${[...BREAK_STRENGTH.keys()].join(', ')}`,
            );
          ms = strength;
        }
        if (attr.time !== undefined) {
          const result = breakTime(attr.time);
          if ('error' in result) return bad(element, 'time', result.error);
          if (result.value > SSML_LIMITS.breakMs)
            bad(element, 'time', `time="${attr.time}" is longer than ${SSML_LIMITS.breakMs / 1000} s`);
          ms = result.value;
        }
        totalBreakMs += ms;
        if (totalBreakMs > SSML_LIMITS.totalBreakMs)
          fail(`the breaks add up to more than ${SSML_LIMITS.totalBreakMs / 1000} s`, element.start);
        if (ms > 0)
          addItem({ type: 'break', ms, reason: 'break', source_start: element.start, source_end: element.end });
        break;
      }
      case 'say-as': {
        const kind = attr['interpret-as'];
        if (kind === undefined) fail('<say-as> needs an interpret-as attribute', element.start);
        if (kind === 'date' && attr.format !== undefined && !isDateFormat(attr.format))
          bad(element, 'format', `format="${attr.format}" is not a date format (mdy, dmy, ymd, ydm, md, dm, ym, my)`);
        if (!SAY_AS.includes(kind))
          warn(
            `<say-as interpret-as="${kind}"> is not supported; its text is read as written`,
            attributeAt(element, 'interpret-as'),
          );
        frame.content = [];
        break;
      }
      case 'sub':
        if (attr.alias === undefined) fail('<sub> needs an alias attribute', element.start);
        frame.content = [];
        break;
      case 'phoneme': {
        if (attr.ph === undefined) fail('<phoneme> needs a ph attribute', element.start);
        const alphabet = (attr.alphabet ?? 'ipa').toLowerCase();
        if (alphabet === 'ipa') {
          const problem = ipaProblem(attr.ph);
          if (problem) bad(element, 'ph', `ph ${problem}`);
        } else
          warn(
            `<phoneme alphabet="${attr.alphabet}"> is not supported (only ipa); its text is read`,
            attributeAt(element, 'alphabet'),
          );
        frame.content = [];
        break;
      }
      case 'prosody':
        frame.prosody = applyProsody(element, prosody);
        break;
      case 'emphasis': {
        const level = attr.level ?? 'moderate';
        const change = EMPHASIS.get(level);
        if (!change) return bad(element, 'level', `level="${level}" is not one of strong, moderate, none, reduced`);
        frame.prosody = bounded(element, {
          rate: prosody.rate * change.rate,
          pitch: prosody.pitch + change.pitch,
          volume: prosody.volume * change.volume,
        });
        break;
      }
      case 'p':
      case 's':
        addItem(edgePause(element.name, element.start, element.end));
        break;
      case 'lang':
        warn(
          `<lang xml:lang="${attr['xml:lang'] ?? ''}"> is read in the request's voice and language (${language})`,
          element.start,
        );
        break;
      case 'mark':
        if (!attr.name) fail('<mark> needs a name attribute', element.start);
        addItem({ type: 'mark', name: attr.name, source_start: element.start, source_end: element.end });
        break;
      case 'audio':
        warn('<audio> is not played; its text, if any, is read', element.start);
        break;
      case 'voice': {
        const name = attr.name?.trim();
        if (!name) fail('<voice> needs a name attribute: the id of a voice (GET /voices/ lists them)', element.start);
        frame.voice = name!;
        voices.add(name!);
        // A change of speaker pauses as a sentence does, on either side.
        addItem(edgePause(element.name, element.start, element.end));
        break;
      }
      default:
        warn(`unknown element <${element.name}> read as its text`, element.start);
    }
    stack.push(frame);
  };

  const close = (_name: string, start: number, end: number): void => {
    const frame = stack.pop();
    if (!frame) return;
    const { element } = frame;
    const attr = element.attributes;
    const prosody = frame.prosody;
    const saying = { prosody, voice: frame.voice };
    const content = join(frame.content ?? []);
    const span = contentSpan(frame, content, end);
    switch (element.name) {
      case 'sub':
        written(attr.alias);
        addPiece(replacement(attr.alias, span.start, span.end), saying);
        break;
      case 'phoneme': {
        if (content.text.trim() === '') fail('<phoneme> needs the text it pronounces', element.start);
        const said = options.normalize === false ? content : normalized(content, language);
        written(content.text);
        addPiece((attr.alphabet ?? 'ipa').toLowerCase() === 'ipa' ? pronounced(said, attr.ph) : said, saying);
        break;
      }
      case 'say-as': {
        const text = content.text.replace(/\s+/g, ' ').trim();
        const kind = attr['interpret-as'];
        let reading: string | null = null;
        if (SAY_AS.includes(kind) && text !== '') {
          try {
            reading = sayAs(kind, attr.format, text, language);
            if (reading === null)
              warn(
                `<say-as interpret-as="${kind}"> could not read "${text.slice(0, 40)}" that way; read as ordinary text`,
                element.start,
              );
          } catch (error) {
            if (!(error instanceof RangeError)) throw error;
            warn(`<say-as> is not supported for ${language}; read as ordinary text`, element.start);
          }
        }
        written(reading ?? content.text);
        addPiece(reading === null ? read(content) : replacement(reading, span.start, span.end), saying);
        break;
      }
      case 'p':
      case 's':
      case 'voice':
        addItem(edgePause(element.name, start, end));
        break;
    }
  };

  const text = (start: number, end: number, cdata: boolean): void => {
    const frame = stack[stack.length - 1];
    const piece = cdata ? identity(input.slice(start, end), start) : fromDecoded(start, end);
    if (frame.content) frame.content.push(piece);
    else if (EMPTY.has(frame.element.name)) {
      if (piece.text.trim() !== '') fail(`<${frame.element.name}> must be empty`, start);
    } else addText(piece, { prosody: frame.prosody, voice: frame.voice });
  };
  const fromDecoded = (start: number, end: number): Mapped => {
    const decoded = decode(input, start, end);
    return fromSpans(decoded.text, decoded.starts, decoded.ends);
  };

  parseXml(
    input,
    { open, close, text },
    { error: SsmlError, ...(wrapped ? { prefix: '<speak>', suffix: '</speak>' } : {}) },
  );
  flush();
  if (unsaid > 0) warnings.push(`and ${unsaid} more ${unsaid === 1 ? 'warning' : 'warnings'} like these`);
  return { ...assemble(items), warnings, speaks, voices: [...voices] };
}

/** Speech items become segments (empty ones dropped); pauses of <s>/<p> next to another pause or at either end of the document go. */
function assemble(items: readonly Item[]): Pick<ParsedSsml, 'segments' | 'words' | 'plainText'> {
  const segments: Array<Segment & { implicit?: boolean }> = [];
  for (const item of items) {
    if (item.type !== 'speech') {
      segments.push(item);
      continue;
    }
    const { spoken, words, pronunciations } = finish(collapse(join(item.pieces, true)));
    if (spoken !== '')
      segments.push({ type: 'speech', text: spoken, words, pronunciations, prosody: item.prosody, voice: item.voice });
  }
  const speechAt = segments.map((s) => s.type === 'speech');
  const firstSpeech = speechAt.indexOf(true);
  const lastSpeech = speechAt.lastIndexOf(true);
  const kept: Segment[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (segment.type === 'break' && segment.implicit) {
      if (firstSpeech === -1 || i < firstSpeech || i > lastSpeech) continue;
      const previous = kept[kept.length - 1];
      // Next to another pause: the explicit one wins, else the longer one.
      if (previous?.type === 'break') {
        if (previous.reason === 'break') continue;
        if (previous.ms >= segment.ms) continue;
        kept.pop();
      }
      const next = segments[i + 1];
      if (next?.type === 'break' && !next.implicit) continue;
      kept.push(bareBreak(segment));
    } else if (segment.type === 'break') {
      const previous = kept[kept.length - 1];
      if (previous?.type === 'break' && previous.reason !== 'break') kept.pop();
      kept.push(bareBreak(segment));
    } else kept.push(segment);
  }
  const speech = kept.filter((s): s is SpeechSegment => s.type === 'speech');
  return {
    segments: kept,
    words: speech.flatMap((s) => s.words),
    plainText: speech.map((s) => s.text).join(' '),
  };
}
