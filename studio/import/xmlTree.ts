import { SaxesParser } from 'saxes';
import { ImportError } from './importError';

/**
 * The strict XML of an EPUB's container, package (OPF) and NCX as a small
 * tree. saxes refuses what is not well-formed (then the book is
 * unreadable), never loads a DTD and expands no declared entity.
 * Elements are named by their local name (`dc:title` is `title`, an
 * `opf:package` is `package`); attributes by their name as written, and by
 * their local name when that is not taken (`opf:role` is also `role`).
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The text directly inside, and inside every descendant, in order. */
  text: string;
}

const MAX_DEPTH = 200;

export function parseXmlTree(source: string, what: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let failure: Error | null = null;
  parser.on('error', (error) => {
    failure ??= error;
  });
  parser.on('opentag', (tag) => {
    const attributes: Record<string, string> = {};
    for (const attribute of Object.values(tag.attributes)) attributes[attribute.name] = attribute.value;
    for (const attribute of Object.values(tag.attributes)) attributes[attribute.local] ??= attribute.value;
    const element: XmlElement = { name: tag.local, attributes, children: [], text: '' };
    if (stack.length > 0) stack[stack.length - 1].children.push(element);
    else root = element;
    stack.push(element);
    if (stack.length > MAX_DEPTH) failure ??= new Error(`nesting deeper than ${MAX_DEPTH} elements`);
  });
  parser.on('text', (text) => {
    for (const element of stack) element.text += text;
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  try {
    parser.write(source.replace(/^\uFEFF/, '')).close();
  } catch (error) {
    failure ??= error as Error;
  }
  if (failure || !root) {
    throw new ImportError(
      'document_unreadable',
      `The ${what} is not well-formed XML (${failure?.message ?? 'empty'}).`,
    );
  }
  return root;
}

/** Every descendant element (depth first, document order) with this local name. */
export function descendants(element: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  const pending = [...element.children].reverse();
  while (pending.length > 0) {
    const next = pending.pop() as XmlElement;
    if (next.name === name) found.push(next);
    for (let index = next.children.length - 1; index >= 0; index--) pending.push(next.children[index]);
  }
  return found;
}

export function firstDescendant(element: XmlElement, name: string): XmlElement | null {
  return descendants(element, name)[0] ?? null;
}
