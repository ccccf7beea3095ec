import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Knex } from 'knex';
import { PronunciationDictionary } from '../../db/models/PronunciationDictionary';
import { PronunciationEntry } from '../../db/models/PronunciationEntry';
import type { LexiconEntry } from '../../text/lexicon';
import type { TextJob, TextOutcome } from './reading';

/**
 * The API's text work (checking SSML, counting what aliases say, previews,
 * parsing PLS documents)
 * on a thread of its own: linear in the text, it still takes hundreds of
 * milliseconds at a large plan's 40,000 characters, and on the event loop
 * every other request (and /healthz) would wait meanwhile. One thread per API
 * process: requests take turns there, the loop stays free.
 */

export type ThreadRequest =
  { kind: 'read'; job: TextJob; key: string | null; entries?: LexiconEntry[] } | { kind: 'pls'; xml: string };

/** A PLS document's entries, or why it is not one (PlsError's message, with line and column). */
export type PlsOutcome = { entries: LexiconEntry[] } | { invalid: string };

export type ThreadReply =
  | { id: number; outcome: TextOutcome }
  | { id: number; needEntries: true }
  | { id: number; pls: PlsOutcome }
  | { id: number; error: string };

interface Pending {
  resolve: (reply: ThreadReply) => void;
  reject: (error: Error) => void;
}

let thread: { worker: Worker; pending: Map<number, Pending> } | null = null;
let nextId = 0;

/** The thread's code: compiled JavaScript in production, TypeScript through tsx in the tests. */
function startThread(): NonNullable<typeof thread> {
  const typescript = __filename.endsWith('.ts');
  const worker = new Worker(path.join(__dirname, `threadMain.${typescript ? 'ts' : 'js'}`), {
    execArgv: typescript ? ['--require', 'tsx/cjs'] : [],
  });
  // It never keeps the process alive: an API that stops does not wait for it.
  worker.unref();
  const started = { worker, pending: new Map<number, Pending>() };
  const fail = (error: Error) => {
    if (thread === started) thread = null;
    for (const { reject } of started.pending.values()) reject(error);
    started.pending.clear();
  };
  worker.on('message', (reply: ThreadReply) => {
    const pending = started.pending.get(reply.id);
    started.pending.delete(reply.id);
    pending?.resolve(reply);
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the text thread exited (${code})`)));
  return started;
}

function ask(message: ThreadRequest): Promise<ThreadReply> {
  thread ??= startThread();
  const { worker, pending } = thread;
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, ...message });
  });
}

/**
 * Reads `job` on the text thread with the dictionaries `dictionaryIds` (in
 * order). The thread keeps them compiled per version: their entries cross
 * over only when it has not met that version yet.
 */
export async function readOnThread(db: Knex, job: TextJob, dictionaryIds: readonly string[]): Promise<TextOutcome> {
  const key = dictionaryIds.length > 0 ? await PronunciationDictionary.versionKey(db, dictionaryIds) : null;
  let reply = await ask({ kind: 'read', job, key });
  if ('needEntries' in reply)
    reply = await ask({ kind: 'read', job, key, entries: await PronunciationEntry.lexiconOf(db, dictionaryIds) });
  if ('outcome' in reply) return reply.outcome;
  throw new Error(`text thread: ${'error' in reply ? reply.error : 'unexpected reply'}`);
}

/** Parses a PLS document (up to the 1 MiB a JSON body holds: ~300 ms of parsing) on the text thread. */
export async function parsePlsOnThread(xml: string): Promise<PlsOutcome> {
  const reply = await ask({ kind: 'pls', xml });
  if ('pls' in reply) return reply.pls;
  throw new Error(`text thread: ${'error' in reply ? reply.error : 'unexpected reply'}`);
}
