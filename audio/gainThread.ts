import { parentPort, workerData } from 'node:worker_threads';
import { applyGain, keptTruePeaks } from './loudness';

/**
 * One thread of the parallel normalizer (audio/parallelLoudness.ts): it holds
 * its share of the pieces (and their true peaks, between passes) and applies
 * each pass's gain to them; the samples go back and forth transferred, not copied.
 */
const { pieces, ceilingDb, sampleRate, keep } = workerData as {
  pieces: Int16Array[];
  ceilingDb: number;
  sampleRate: number;
  keep: boolean;
};
const truePeaks = keep ? keptTruePeaks(pieces) : [];

// A correction pass comes with the pass it corrects, transferred back to be written over.
parentPort!.on('message', ({ gain, into }: { gain: number; into?: Int16Array[] }) => {
  const out = pieces.map((piece, index) =>
    applyGain(piece, gain, ceilingDb, sampleRate, truePeaks[index], into?.[index]),
  );
  parentPort!.postMessage(
    out,
    out.map((piece) => piece.samples.buffer as ArrayBuffer),
  );
});
