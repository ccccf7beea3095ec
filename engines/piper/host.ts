import { open, readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { InferenceSession as Session } from 'onnxruntime-node';
import { withDurationOutput } from './durations';

/**
 * One Piper voice in its own process (engines/piper/pool.ts starts it):
 * `session.run` blocks its thread for the whole inference and ONNX Runtime
 * keeps the memory of the longest call, so the service's event loop never
 * runs it and a process that grew is simply replaced.
 *
 * Protocol, one JSON object per line. In: the model path as argv[2] (and the
 * session's intra-op threads as argv[3], default 1); then
 * requests `{"id", "sentences": number[][], "scales": [noise, length, noise_w],
 * "outPath", "pauseSamples", "speakerId"?}`. Out: `{"ready": true}` once the session is
 * loaded, then per request `{"id", "samples", "rss", "inferMs", "firstMs", "frames"}` or
 * `{"id", "error"}`. `frames` (when the model exposes them, engines/piper/durations.ts)
 * are each sentence's frames per input id: the sentence has exactly
 * `sum(frames) x hop` samples. The WAV (16-bit mono at the model's rate) goes to outPath.
 */

export interface HostRequest {
  id: number;
  sentences: number[][];
  scales: [number, number, number];
  sampleRate: number;
  outPath: string;
  /** Silence between two sentences of one request, in samples. */
  pauseSamples: number;
  /**
   * A multi-speaker model's speaker (its `sid` input, from the config's
   * `speaker_id_map`); 0, Piper's default, when absent. Fed only to a model
   * whose graph has a `sid` input.
   */
  speakerId?: number;
}

export interface HostReply {
  id?: number;
  ready?: boolean;
  error?: string;
  samples?: number;
  rss?: number;
  /** Inference time of all sentences, and of the first one (the first audio a stream could send). */
  inferMs?: number;
  firstMs?: number;
  /** Per sentence, the frames each phoneme id lasts. */
  frames?: number[][];
}

function reply(message: HostReply) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function wavHeader(samples: number, sampleRate: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(samples * 2, 40);
  return header;
}

/** Piper's own conversion: scale to 16 bits and clip (loudness is normalized later in the pipeline). */
function toInt16(audio: Float32Array): Int16Array {
  const out = new Int16Array(audio.length);
  for (let i = 0; i < audio.length; i++) out[i] = Math.max(-32767, Math.min(32767, Math.round(audio[i] * 32767)));
  return out;
}

async function synthesize(
  session: Session,
  ort: typeof import('onnxruntime-node'),
  request: HostRequest,
  durationOutput: string | null,
): Promise<HostReply> {
  const started = performance.now();
  let firstMs = 0;
  const pieces: Int16Array[] = [];
  const frames: number[][] = [];
  for (const [index, ids] of request.sentences.entries()) {
    if (index > 0 && request.pauseSamples > 0) pieces.push(new Int16Array(request.pauseSamples));
    const feeds: Record<string, InstanceType<typeof ort.Tensor>> = {
      input: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
      input_lengths: new ort.Tensor('int64', BigInt64Array.from([BigInt(ids.length)]), [1]),
      scales: new ort.Tensor('float32', Float32Array.from(request.scales), [3]),
    };
    // Multi-speaker exports take the speaker as int64 `sid` of shape [1], as piper-tts feeds it.
    if (session.inputNames.includes('sid'))
      feeds.sid = new ort.Tensor('int64', BigInt64Array.from([BigInt(request.speakerId ?? 0)]), [1]);
    const results = await session.run(feeds);
    const output = results[session.outputNames[0]];
    pieces.push(toInt16(output.data as Float32Array));
    if (durationOutput) frames.push(Array.from(results[durationOutput].data as Float32Array, Math.round));
    for (const value of Object.values(results)) value.dispose();
    if (index === 0) firstMs = performance.now() - started;
  }
  const samples = pieces.reduce((sum, piece) => sum + piece.length, 0);
  const file = await open(request.outPath, 'w');
  try {
    await file.write(wavHeader(samples, request.sampleRate));
    for (const piece of pieces) await file.write(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
  } finally {
    await file.close();
  }
  return {
    id: request.id,
    samples,
    rss: process.memoryUsage().rss,
    inferMs: performance.now() - started,
    firstMs,
    frames: durationOutput ? frames : undefined,
  };
}

/**
 * Loads the voice's session. The model's bytes (the file, ~63 MB for a medium
 * voice, and its edited copy) are only needed until ONNX Runtime has built the
 * session: they are dropped here and collected at once, which takes ~120 MiB
 * off every host's RSS for its whole life (measured: 297 -> 177 MiB loaded).
 */
async function load(
  ort: typeof import('onnxruntime-node'),
  modelPath: string,
  threads: number,
): Promise<{ session: Session; durationOutput: string | null }> {
  // The pool decides how many cores a host takes (engines/piper/pool.ts): one intra-op thread, or two for a
  // request alone on the machine. The threads do not spin waiting for work: on a busy machine that only took
  // CPU from the other hosts.
  // No memory pattern: VITS's shapes change with every sentence, so the cached patterns only
  // held memory (a 5000-character text's calls: peak 503 -> 409 MiB, no CPU cost measured).
  const options: Session.SessionOptions = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    enableMemPattern: false,
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  };
  // The phoneme durations as a second output (word timestamps); a model without them still speaks.
  const edited = withDurationOutput(await readFile(modelPath));
  const session = edited
    ? await ort.InferenceSession.create(edited.model, options)
    : await ort.InferenceSession.create(modelPath, options);
  return { session, durationOutput: edited?.output ?? null };
}

/** Frees what is no longer referenced now (large ArrayBuffers go with a full collection; the pool starts hosts with --expose-gc). */
async function collect() {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return;
  // Twice, a turn apart: the backing stores of collected buffers are freed after the collection that found them.
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}

async function main() {
  const modelPath = process.argv[2];
  const threads = Math.max(1, Number(process.argv[3] ?? 1) || 1);
  const ort = await import('onnxruntime-node');
  const { session, durationOutput } = await load(ort, modelPath, threads);
  await collect();
  reply({ ready: true, rss: process.memoryUsage().rss });
  // One request at a time: the next line is read only after the reply to this one.
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let request: HostRequest;
    try {
      request = JSON.parse(line) as HostRequest;
    } catch {
      reply({ error: 'malformed request' });
      continue;
    }
    try {
      reply(await synthesize(session, ort, request, durationOutput));
    } catch (error) {
      reply({ id: request.id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  await session.release();
}

if (require.main === module) {
  main().catch((error) => {
    reply({ error: `piper host failed: ${error instanceof Error ? error.message : String(error)}` });
    process.exit(1);
  });
}
