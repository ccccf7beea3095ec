import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  applyGain,
  correctedGainDb,
  type GainedPiece,
  KEEP_TRUE_PEAKS_UP_TO,
  keptTruePeaks,
  loudnessOf,
  normalizeLoudness,
} from './loudness';

/**
 * normalizeLoudness over the machine's cores: the limiter (most of a long
 * text's finish, which runs alone after the renders) works on pieces, and
 * pieces are independent, so each thread takes a contiguous share of them.
 * The measurements and the decisions are the same code in the same order,
 * so the samples are the same as normalizeLoudness's.
 */

/** Below this many samples (about 40 s at 24 kHz) a thread's start-up costs more than it saves. */
export const PARALLEL_FROM_SAMPLES = 1_000_000;
const MAX_THREADS = 4;

/** Pieces split into `parts` contiguous shares of about equal length (some may be empty). */
export function shares(lengths: readonly number[], parts: number): number[][] {
  const total = lengths.reduce((sum, length) => sum + length, 0);
  const out: number[][] = Array.from({ length: parts }, () => []);
  let done = 0;
  for (const [index, length] of lengths.entries()) {
    // A piece goes to the share its middle falls in.
    const share = Math.min(parts - 1, Math.floor(((done + length / 2) / total) * parts));
    out[share].push(index);
    done += length;
  }
  return out;
}

/** The thread's code: compiled JavaScript in production, TypeScript through tsx in the tests. */
function startThread(workerData: unknown): Worker {
  const typescript = __filename.endsWith('.ts');
  return new Worker(path.join(__dirname, `gainThread.${typescript ? 'ts' : 'js'}`), {
    workerData,
    execArgv: typescript ? ['--require', 'tsx/cjs'] : [],
  });
}

export async function normalizeLoudnessInParallel(
  pieces: readonly Int16Array[],
  sampleRate: number,
  targetLufs: number,
  ceilingDb: number,
  signal?: AbortSignal,
): Promise<Int16Array[]> {
  const total = pieces.reduce((sum, piece) => sum + piece.length, 0);
  const threads = Math.min(MAX_THREADS, availableParallelism(), pieces.length);
  if (total < PARALLEL_FROM_SAMPLES || threads < 2) return normalizeLoudness(pieces, sampleRate, targetLufs, ceilingDb);
  const measured = loudnessOf(pieces, sampleRate);
  if (measured <= -70) return [...pieces];
  const initialDb = targetLufs - measured;
  // Kept only where normalizeLoudness would keep them: the same memory bound for the whole signal.
  const keep = total <= KEEP_TRUE_PEAKS_UP_TO;
  const [own, ...theirs] = shares(
    pieces.map((piece) => piece.length),
    threads,
  );
  const ownPeaks = keep ? keptTruePeaks(own.map((index) => pieces[index])) : [];
  const workers = theirs.map((indices) => ({
    indices,
    thread: startThread({ pieces: indices.map((index) => pieces[index]), ceilingDb, sampleRate, keep }),
  }));
  const stop = () => workers.forEach(({ thread }) => void thread.terminate());
  signal?.addEventListener('abort', stop, { once: true });
  try {
    // A correction pass writes over the pass it corrects (`previous`), whose measurement was all that was needed.
    const scaleAll = async (gainDb: number, previous?: readonly GainedPiece[]): Promise<GainedPiece[]> => {
      const gain = 10 ** (gainDb / 20);
      const out: GainedPiece[] = new Array(pieces.length);
      const results = workers.map(
        ({ thread, indices }) =>
          new Promise<GainedPiece[]>((resolve, reject) => {
            const fail = (error: unknown) => {
              thread.off('message', done);
              thread.off('error', fail);
              thread.off('exit', exited);
              reject(signal?.aborted ? signal.reason : error);
            };
            // A thread that ends without answering (terminated, out of memory) fails the pass instead of hanging it.
            const exited = (code: number) => fail(new Error(`limiter thread exited (${code}) before answering`));
            const done = (message: GainedPiece[]) => {
              thread.off('error', fail);
              thread.off('exit', exited);
              resolve(message);
            };
            thread.once('message', done);
            thread.once('error', fail);
            thread.once('exit', exited);
            const into = previous && indices.map((index) => previous[index].samples);
            thread.postMessage({ gain, into }, into?.map((samples) => samples.buffer as ArrayBuffer) ?? []);
          }),
      );
      // This thread's share meanwhile, a piece at a time: between pieces the event loop runs, so the
      // activity's heartbeat timer (and the other activities of this worker) are not held up for the
      // whole share, which on a loaded machine can take longer than the heartbeat timeout.
      for (const [at, index] of own.entries()) {
        out[index] = applyGain(pieces[index], gain, ceilingDb, sampleRate, ownPeaks[at], previous?.[index].samples);
        await new Promise(setImmediate);
        // An abort stops this share within a piece; the helpers are terminated in `finally`.
        signal?.throwIfAborted();
      }
      const answers = await Promise.all(results);
      // A helper terminated before it was running may still answer: an aborted pass never counts.
      signal?.throwIfAborted();
      for (const [at, result] of answers.entries()) workers[at].indices.forEach((index, k) => (out[index] = result[k]));
      return out;
    };
    let out = await scaleAll(initialDb);
    for (let pass = 0, gainDb = initialDb; pass < 2; pass++) {
      const next = correctedGainDb(out, sampleRate, targetLufs, gainDb, initialDb);
      if (next === undefined) break;
      gainDb = next;
      out = await scaleAll(gainDb, out);
    }
    return out.map((piece) => piece.samples);
  } finally {
    signal?.removeEventListener('abort', stop);
    stop();
  }
}
