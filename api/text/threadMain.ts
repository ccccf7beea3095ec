import { parentPort } from 'node:worker_threads';
import { compileLexicon, type CompiledLexicon, type LexiconEntry } from '../../text/lexicon';
import { readText, type TextJob } from './reading';
import type { ThreadReply } from './thread';

/**
 * The text thread (./thread.ts): reads texts with dictionaries it compiled
 * once per version and keeps, asking the API for a version's entries only
 * the first time it meets it.
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

parentPort!.on(
  'message',
  ({ id, job, key, entries }: { id: number; job: TextJob; key: string | null; entries?: LexiconEntry[] }) => {
    let reply: ThreadReply;
    try {
      const lexicon = key === null ? null : lexiconOf(key, entries);
      reply = lexicon === undefined ? { id, needEntries: true } : { id, outcome: readText(job, lexicon) };
    } catch (error) {
      reply = { id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
    }
    parentPort!.postMessage(reply);
  },
);
