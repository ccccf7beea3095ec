/**
 * The XML layer under SSML and PLS: saxes (strict, no DTD expansion) checks
 * well-formedness; this file turns its events into elements and text with
 * their spans in the source, so every spoken word can point back into the
 * document the client sent, and every error names a line and column.
 *
 * DTDs are refused outright (no internal subset, no entity declarations: no
 * XXE, no billion laughs); only the five predefined entities and numeric
 * character references are decoded.
 */
import { SaxesParser, type SaxesTag } from 'saxes';

/** An error in a markup document, with the 1-based line and column (in Unicode characters) where it was found. */
export class MarkupError extends Error {
  constructor(
    message: string,
    /** 1-based line. */
    readonly line: number,
    /** 1-based column, counted in Unicode characters (code points). */
    readonly column: number,
    /** UTF-16 offset into the source. */
    readonly offset: number,
  ) {
    super(`${message} at line ${line}, column ${column}`);
    this.name = 'MarkupError';
  }
}

/** Line and column (1-based; columns in code points) of a UTF-16 offset. */
export function lineColumn(source: string, offset: number): { line: number; column: number } {
  const at = Math.max(0, Math.min(offset, source.length));
  let line = 1;
  let lineStart = 0;
  for (let i = source.indexOf('\n'); i !== -1 && i < at; i = source.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: [...source.slice(lineStart, at)].length + 1 };
}

/**
 * Line and column of many offsets in one source: the line starts (and, when
 * the source has surrogate pairs, a code point count) are indexed once, so
 * each lookup is a binary search, not a scan from the start (a document with
 * a warning at each of thousands of elements was quadratic).
 */
export function lineColumns(source: string): (offset: number) => { line: number; column: number } {
  const lineStarts = [0];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  // Code points before each offset; without surrogate pairs that is the offset itself.
  let codePoints: Uint32Array | null = null;
  if (/[\ud800-\udbff][\udc00-\udfff]/.test(source)) {
    codePoints = new Uint32Array(source.length + 1);
    for (let i = 0; i < source.length; i++) {
      const pairEnd = i > 0 && /[\udc00-\udfff]/.test(source[i]) && /[\ud800-\udbff]/.test(source[i - 1]);
      codePoints[i + 1] = codePoints[i] + (pairEnd ? 0 : 1);
    }
  }
  const count = (offset: number): number => (codePoints ? codePoints[offset] : offset);
  return (offset) => {
    const at = Math.max(0, Math.min(offset, source.length));
    let low = 0;
    let high = lineStarts.length - 1;
    // The last line start at or before `at` (a newline at `at` itself still belongs to its line).
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (lineStarts[middle] <= at) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: count(at) - count(lineStarts[low]) + 1 };
  };
}

/** Text decoded from the source, each UTF-16 unit with the source span it came from (an entity: the whole reference). */
export interface DecodedText {
  text: string;
  starts: number[];
  ends: number[];
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes character data source[start, end): entities and character references (saxes has checked them). */
export function decode(source: string, start: number, end: number): DecodedText {
  let text = '';
  const starts: number[] = [];
  const ends: number[] = [];
  let i = start;
  while (i < end) {
    if (source[i] === '&') {
      const semi = source.indexOf(';', i);
      const name = source.slice(i + 1, semi);
      const value = name.startsWith('#x')
        ? String.fromCodePoint(parseInt(name.slice(2), 16))
        : name.startsWith('#')
          ? String.fromCodePoint(parseInt(name.slice(1), 10))
          : NAMED[name];
      for (let k = 0; k < value.length; k++) {
        starts.push(i);
        ends.push(semi + 1);
      }
      text += value;
      i = semi + 1;
    } else {
      text += source[i];
      starts.push(i);
      ends.push(i + 1);
      i++;
    }
  }
  return { text, starts, ends };
}

export interface Element {
  name: string;
  attributes: Record<string, string>;
  /** Span of the start tag (the whole element when self-closing: then `selfClosing`). */
  start: number;
  end: number;
  selfClosing: boolean;
}

export interface Handlers {
  open(element: Element): void;
  /** `start`, `end`: span of the end tag (empty at the start tag's end for a self-closing element). */
  close(name: string, start: number, end: number): void;
  /** Character data source[start, end) (undecoded); `cdata` when it is a CDATA section's content (kept as written). */
  text(start: number, end: number, cdata: boolean): void;
}

export interface ParseOptions {
  /** The source is parsed as `prefix + source + suffix` (a wrapper element); offsets reported are into `source`. */
  prefix?: string;
  suffix?: string;
  /** The error class to throw. */
  error: new (message: string, line: number, column: number, offset: number) => MarkupError;
}

/** Parses `source` with saxes, calling `handlers` in document order with spans into `source`. Throws `options.error`. */
export function parseXml(source: string, handlers: Handlers, options: ParseOptions): void {
  const prefix = options.prefix ?? '';
  const input = prefix + source + (options.suffix ?? '');
  const shift = prefix.length;
  const fail = (message: string, offset: number): never => {
    const at = Math.max(0, Math.min(offset - shift, source.length));
    const { line, column } = lineColumn(source, at);
    throw new options.error(message, line, column, at);
  };
  const parser = new SaxesParser({ position: true });
  /** Where the source not yet accounted for by an event starts (an offset into `input`). */
  let cursor = 0;
  const open: Array<{ name: string; start: number }> = [];

  parser.on('doctype', () =>
    fail(
      'DTDs (<!DOCTYPE …>) and entity declarations are not accepted',
      input.lastIndexOf('<!DOCTYPE', parser.position),
    ),
  );
  parser.on('text', () => {
    const end = input.indexOf('<', cursor);
    const stop = end === -1 ? input.length : end;
    if (open.length > 0) handlers.text(cursor - shift, stop - shift, false);
    cursor = stop;
  });
  parser.on('opentag', (tag: SaxesTag) => {
    const start = input.lastIndexOf('<', parser.position - 1);
    // Text that saxes reports before the tag has moved the cursor; anything else between is markup we skip (comments, PIs).
    cursor = parser.position;
    open.push({ name: tag.name, start });
    handlers.open({
      name: tag.name,
      // Null prototype: an attribute lookup by name never finds an inherited constructor or toString.
      attributes: Object.assign(Object.create(null) as Record<string, string>, tag.attributes),
      start: start - shift,
      end: parser.position - shift,
      selfClosing: tag.isSelfClosing,
    });
  });
  parser.on('closetag', (tag: SaxesTag) => {
    const top = open.pop();
    if (tag.isSelfClosing) {
      handlers.close(tag.name, parser.position - shift, parser.position - shift);
      return;
    }
    const start = input.lastIndexOf('</', parser.position - 1);
    const written = /^<\/([^\s>]+)/.exec(input.slice(start, parser.position))?.[1] ?? '';
    if (top && written !== top.name && start - shift >= source.length) fail(`<${top.name}> is never closed`, top.start);
    if (top && written !== top.name) {
      const opened = lineColumn(source, top.start - shift);
      fail(
        `</${written}> does not close <${top.name}> (opened at line ${opened.line}, column ${opened.column})`,
        start,
      );
    }
    cursor = parser.position;
    handlers.close(tag.name, start - shift, parser.position - shift);
  });
  parser.on('cdata', () => {
    const start = input.lastIndexOf('<![CDATA[', parser.position - 1);
    if (open.length > 0) handlers.text(start + 9 - shift, parser.position - 3 - shift, true);
    cursor = parser.position;
  });
  // saxes reports these before their last character: skip to their end ourselves.
  parser.on('comment', () => {
    cursor = input.indexOf('-->', input.indexOf('<!--', cursor) + 4) + 3;
  });
  for (const skipped of ['processinginstruction', 'xmldecl'] as const) {
    parser.on(skipped, () => {
      cursor = input.indexOf('?>', input.indexOf('<?', cursor) + 2) + 2;
    });
  }
  parser.on('error', (error: Error) => {
    const message = error.message.replace(/^(?:[^:]*:)?\d+:\d+: /, '').replace(/\.$/, '');
    const position = parser.position;
    if (/^unclosed tag/.test(message) && open.length > 0) {
      const top = open[open.length - 1];
      fail(`<${top.name}> is never closed`, top.start);
    }
    if (/entity|character reference/i.test(message)) {
      const amp = input.lastIndexOf('&', position - 1);
      fail(
        /undefined entity/.test(message)
          ? 'unknown entity (only &amp; &lt; &gt; &quot; &apos; and &#…; are accepted)'
          : message,
        amp === -1 ? position - 1 : amp,
      );
    }
    if (/doctype/i.test(message))
      fail('DTDs (<!DOCTYPE …>) and entity declarations are not accepted', input.lastIndexOf('<!', position - 1));
    if (/outside of root/.test(message)) fail('text outside the root element', position - 1);
    fail(`not well-formed XML: ${message}`, position - 1);
  });
  parser.write(input).close();
}
