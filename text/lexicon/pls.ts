/**
 * W3C Pronunciation Lexicon Specification 1.0 (PLS): parse a dictionary and
 * write one back. Strict: PLS is data, so anything outside the format is an
 * error with its line and column, never a guess.
 */
import { ipaProblem } from '../ipa';
import { decode, lineColumn, MarkupError, parseXml, type Element } from '../xml';
import { MAX_ENTRIES, MAX_GRAPHEME, MAX_PRONUNCIATION, type Lexicon, type LexiconEntry } from './types';

/** A PLS document that cannot be read: `line` and `column` are 1-based (columns in Unicode characters). */
export class PlsError extends MarkupError {
  constructor(message: string, line: number, column: number, offset: number) {
    super(message, line, column, offset);
    this.name = 'PlsError';
  }
}

const NAMESPACE = 'http://www.w3.org/2005/01/pronunciation-lexicon';
/** Largest document accepted (UTF-8 bytes): 10,000 entries with long phonemes fit. */
const MAX_BYTES = 10 * 1024 * 1024;

interface Lexeme {
  graphemes: string[];
  aliases: Array<{ text: string; prefer: boolean }>;
  phonemes: Array<{ text: string; prefer: boolean }>;
  start: number;
  end: number;
}

/** Parses a PLS 1.0 document. Throws PlsError (with line and column) for anything malformed, a DTD, a non-IPA alphabet or a limit exceeded. */
export function parsePls(xml: string): Lexicon {
  const failAt = (message: string, offset: number): never => {
    const { line, column } = lineColumn(xml, offset);
    throw new PlsError(message, line, column, offset);
  };
  if (Buffer.byteLength(xml, 'utf8') > MAX_BYTES)
    failAt(`the document is larger than ${MAX_BYTES / 1024 / 1024} MB`, 0);

  let lexicon: Lexicon | null = null;
  let lexeme: Lexeme | null = null;
  /** The element whose text is being collected (grapheme, phoneme, alias). */
  let field: { element: Element; text: string } | null = null;
  const stack: string[] = [];
  const entries: LexiconEntry[] = [];

  parseXml(
    xml,
    {
      open(element) {
        const parent = stack[stack.length - 1];
        const attr = element.attributes;
        const at = element.start;
        if (field) failAt(`<${element.name}> is not allowed inside <${field.element.name}>`, at);
        if (parent === undefined) {
          if (element.name !== 'lexicon') failAt(`the root element must be <lexicon>, not <${element.name}>`, at);
          if (attr.version !== undefined && attr.version !== '1.0')
            failAt(`version="${attr.version}" is not supported (only PLS 1.0)`, at);
          if (attr.xmlns !== undefined && attr.xmlns !== NAMESPACE) failAt(`xmlns must be ${NAMESPACE}`, at);
          if (!attr.alphabet) failAt('<lexicon> needs an alphabet attribute (alphabet="ipa")', at);
          if (attr.alphabet.toLowerCase() !== 'ipa')
            failAt(`alphabet="${attr.alphabet}" is not supported (only "ipa")`, at);
          if (!attr['xml:lang']) failAt('<lexicon> needs an xml:lang attribute (e.g. xml:lang="en-US")', at);
          lexicon = { language: attr['xml:lang'], alphabet: 'ipa', entries };
        } else if (parent === 'lexicon') {
          if (element.name === 'lexeme') {
            if (entries.length >= MAX_ENTRIES) failAt(`more than ${MAX_ENTRIES} lexemes`, at);
            lexeme = { graphemes: [], aliases: [], phonemes: [], start: element.start, end: element.end };
          } else if (element.name !== 'meta' && element.name !== 'metadata')
            failAt(`<${element.name}> is not a PLS element here (expected <lexeme>)`, at);
        } else if (parent === 'lexeme') {
          if (!['grapheme', 'phoneme', 'alias', 'example'].includes(element.name))
            failAt(`<${element.name}> is not allowed in <lexeme> (expected grapheme, phoneme, alias or example)`, at);
          if (element.name === 'phoneme' && attr.alphabet !== undefined && attr.alphabet.toLowerCase() !== 'ipa')
            failAt(`alphabet="${attr.alphabet}" is not supported (only "ipa")`, at);
          if ((element.name === 'phoneme' || element.name === 'alias') && lexeme && lexeme.graphemes.length === 0)
            failAt(`<${element.name}> must follow at least one <grapheme>`, at);
          if (element.name !== 'example') field = { element, text: '' };
        } else if (parent !== 'meta' && parent !== 'metadata' && parent !== 'example') {
          failAt(`<${element.name}> is not allowed inside <${parent}>`, at);
        }
        stack.push(element.name);
      },
      close(name) {
        stack.pop();
        if (field && name === field.element.name) {
          const text = field.text.replace(/\s+/g, ' ').trim();
          const at = field.element.start;
          const prefer = field.element.attributes.prefer === 'true';
          if (text === '') failAt(`<${name}> is empty`, at);
          if (name === 'grapheme') {
            if ([...text].length > MAX_GRAPHEME) failAt(`a grapheme is longer than ${MAX_GRAPHEME} characters`, at);
            lexeme?.graphemes.push(text);
          } else {
            if ([...text].length > MAX_PRONUNCIATION)
              failAt(`<${name}> is longer than ${MAX_PRONUNCIATION} characters`, at);
            if (name === 'phoneme') {
              const problem = ipaProblem(text);
              if (problem) failAt(`<phoneme> ${problem}`, at);
              lexeme?.phonemes.push({ text, prefer });
            } else lexeme?.aliases.push({ text, prefer });
          }
          field = null;
        } else if (name === 'lexeme' && lexeme) {
          if (lexeme.graphemes.length === 0) failAt('<lexeme> has no <grapheme>', lexeme.start);
          if (lexeme.phonemes.length === 0 && lexeme.aliases.length === 0)
            failAt('<lexeme> has neither <phoneme> nor <alias>', lexeme.start);
          const pick = (list: Array<{ text: string; prefer: boolean }>): string | undefined =>
            (list.find((item) => item.prefer) ?? list[0])?.text;
          const entry: LexiconEntry = { graphemes: lexeme.graphemes };
          const alias = pick(lexeme.aliases);
          const phoneme = pick(lexeme.phonemes);
          if (alias !== undefined) entry.alias = alias;
          if (phoneme !== undefined) entry.phoneme = phoneme;
          entries.push(entry);
          lexeme = null;
        }
      },
      text(start, end, cdata) {
        const text = cdata ? xml.slice(start, end) : decode(xml, start, end).text;
        if (field) field.text += text;
        else if (
          text.trim() !== '' &&
          stack[stack.length - 1] !== 'example' &&
          !stack.includes('meta') &&
          !stack.includes('metadata')
        )
          failAt(
            `text is not allowed directly in <${stack[stack.length - 1]}>`,
            start + (text.length - text.trimStart().length),
          );
      },
    },
    { error: PlsError },
  );
  if (!lexicon) failAt('no <lexicon> element', 0);
  return lexicon as unknown as Lexicon;
}

const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Writes a dictionary as a PLS 1.0 document (UTF-8). `caseSensitive` has no PLS form and is dropped. */
export function toPls(lexicon: Lexicon): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<lexicon version="1.0" xmlns="${NAMESPACE}" alphabet="${escapeXml(lexicon.alphabet)}" xml:lang="${escapeXml(lexicon.language)}">`,
  ];
  for (const entry of lexicon.entries) {
    lines.push('  <lexeme>');
    for (const grapheme of entry.graphemes) lines.push(`    <grapheme>${escapeXml(grapheme)}</grapheme>`);
    if (entry.phoneme !== undefined) lines.push(`    <phoneme>${escapeXml(entry.phoneme)}</phoneme>`);
    if (entry.alias !== undefined) lines.push(`    <alias>${escapeXml(entry.alias)}</alias>`);
    lines.push('  </lexeme>');
  }
  lines.push('</lexicon>', '');
  return lines.join('\n');
}
