import { parentPort, workerData } from 'node:worker_threads';
import { applyGain, keptTruePeaks } from './loudness';

/**
 * One thread of the parallel normalizer (audio/parallelLoudness.ts): it holds
 * its share of the pieces (and their true peaks, between passes) and applies
 * each pass's gain to them; the samples go back transferred, not copied.
 */
const { pieces, ceilingDb, sampleRate, keep } = workerData as { pieces: Int16Array[]; ceilingDb: number; sampleRate: number; keep: boolean };
const truePeaks = keep ? keptTruePeaks(pieces) : [];

parentPort!.on('message', (gain: number) => {
  const out = pieces.map((piece, index) => applyGain(piece, gain, ceilingDb, sampleRate, truePeaks[index]));
  parentPort!.postMessage(
    out,
    out.map((piece) => piece.samples.buffer as ArrayBuffer),
  );
});
