import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { ImportedDocument } from '../../../studio/document';
import { importDocument, type ImportOptions } from '../../../studio/import';
import { ImportError, type ImportErrorCode } from '../../../studio/import/importError';

/**
 * Studio imports off the API's event loop: parsing a whole EPUB, PDF or
 * Markdown book is CPU work (a 1.1 MB EPUB of 9,000 paragraphs took ~300 ms),
 * so each import runs in a worker thread started from this same file, at
 * most MAX_THREADS at once (the others wait their turn).
 */

const ROLE = 'openvox-studio-import';
const MAX_THREADS = 2;

type Outcome =
  { document: ImportedDocument } | { importError: { code: ImportErrorCode; message: string } } | { error: string };

// In the worker: read the document and answer once.
if (!isMainThread && (workerData as { role?: string } | null)?.role === ROLE) {
  const { bytes, options } = workerData as { bytes: Uint8Array; options: ImportOptions };
  importDocument(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), options).then(
    (document) => parentPort!.postMessage({ document } satisfies Outcome),
    (error: unknown) =>
      parentPort!.postMessage(
        (error instanceof ImportError
          ? { importError: { code: error.code, message: error.message } }
          : { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }) satisfies Outcome,
      ),
  );
}

let running = 0;
const waiting: (() => void)[] = [];

async function turn(): Promise<() => void> {
  if (running >= MAX_THREADS) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

/** importDocument on a worker thread: the same document, or the same ImportError. */
export async function importOnThread(bytes: Buffer, options: ImportOptions): Promise<ImportedDocument> {
  const release = await turn();
  try {
    const typescript = __filename.endsWith('.ts');
    const worker = new Worker(__filename, {
      execArgv: typescript ? ['--require', 'tsx/cjs'] : [],
      workerData: { role: ROLE, bytes, options },
    });
    const outcome = await new Promise<Outcome>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`The import thread exited (${code}) without an answer.`)));
    }).finally(() => void worker.terminate());
    if ('document' in outcome) {
      const { document } = outcome;
      // Structured clone makes the cover's Buffer a Uint8Array.
      if (document.cover) document.cover.bytes = Buffer.from(document.cover.bytes);
      return document;
    }
    if ('importError' in outcome) throw new ImportError(outcome.importError.code, outcome.importError.message);
    throw new Error(`Import thread: ${outcome.error}`);
  } finally {
    release();
  }
}
