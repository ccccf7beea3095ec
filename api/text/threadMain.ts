import { parentPort } from 'node:worker_threads';
import { compileLexicon, parsePls, PlsError, type CompiledLexicon, type LexiconEntry } from '../../text/lexicon';
import { readText } from './reading';
import type { PlsOutcome, ThreadReply, ThreadRequest } from './thread';

/**
 * The text thread (./thread.ts): reads texts with dictionaries it compiled
 * once per version and keeps, asking the API for a version's entries only
 * the first time it meets it, and parses PLS documents.
 */
const KEPT = 16;
const compiled = new Map<string, CompiledLexicon | null>();

function lexiconOf(key: string, entries: LexiconEntry[] | undefined): CompiledLexicon | null | undefined {
  if (entries) {
    compiled.set(key, entries.length > 0 ? compileLexicon(entries) : null);
    if (compiled.size > KEPT) compiled.delete(compiled.keys().next().value!);
  }
  if (!compiled.has(key)) return undefined;
  const lexicon = compiled.get(key)!;
  // Most recently used last.
  compiled.delete(key);
  compiled.set(key, lexicon);
  return lexicon;
}

function plsOf(xml: string): PlsOutcome {
  try {
    return { entries: parsePls(xml).entries };
  } catch (error) {
    if (error instanceof PlsError) return { invalid: error.message };
    throw error;
  }
}

parentPort!.on('message', ({ id, ...request }: ThreadRequest & { id: number }) => {
  let reply: ThreadReply;
  try {
    if (request.kind === 'pls') reply = { id, pls: plsOf(request.xml) };
    else {
      const lexicon = request.key === null ? null : lexiconOf(request.key, request.entries);
      reply = lexicon === undefined ? { id, needEntries: true } : { id, outcome: readText(request.job, lexicon) };
    }
  } catch (error) {
    reply = { id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
  parentPort!.postMessage(reply);
});
