import { open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { InferenceSession as Session, Tensor } from 'onnxruntime-node';
import { pcmBytes, wavHeader } from '../lib/wavFormat';

/**
 * The child process that runs one ONNX voice model for an engine (engines/piper/host.ts, engines/kokoro/host.ts;
 * engines/piper/pool.ts starts and keeps them): `session.run` blocks its thread for the whole inference and ONNX
 * Runtime keeps the memory of the longest call, so the service's event loop never runs it and a process that
 * grew is simply replaced. An engine's host file names only what differs: its inputs, its audio output and the
 * graph edit that exposes per-token durations.
 *
 * Protocol, one JSON object per line. In: the model path as argv[2] (and the session's intra-op threads as
 * argv[3], default 1); then requests ({@link HostRequestBase} plus the engine's fields). Out: `{"ready": true}`
 * once the session is loaded, then per request a {@link HostReply}: `{"id", "samples", "rss", "inferMs",
 * "firstMs", "frames"}` or `{"id", "error"}`. One request at a time: the next line is read only after the reply
 * to this one. The WAV (16-bit mono at the request's rate) goes to outPath.
 */

/** What every engine's request has: the sentences as the model's input ids, one inference each. */
export interface HostRequestBase {
  id: number;
  sentences: number[][];
  sampleRate: number;
  outPath: string;
  /** Silence between two sentences of one request, in samples. */
  pauseSamples: number;
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
  /**
   * Per sentence, the frames each input id lasts (when the model exposes them): the sentence has exactly
   * `sum(frames) x hop` samples, hop being the engine's decoder's.
   */
  frames?: number[][];
}

type Ort = typeof import('onnxruntime-node');

export interface OnnxHostModel<Request extends HostRequestBase> {
  /** Named in the error of a host that could not start. */
  engine: string;
  /**
   * The model's bytes with its per-token durations added as a graph output (engines/piper/durations.ts), or
   * null when the graph has no such node: the model still speaks, without word timings.
   */
  withDurations(model: Uint8Array): { model: Uint8Array; output: string } | null;
  /** The inputs of one sentence's inference. */
  feeds(ort: Ort, session: Session, request: Request, index: number): Record<string, Tensor>;
  /** The output that holds the audio; default the graph's first. */
  audioOutput?: string;
}

function reply(message: HostReply) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

/** The models' own conversion: scale to 16 bits and clip (loudness is normalized later in the pipeline). */
function toInt16(audio: Float32Array): Int16Array {
  const out = new Int16Array(audio.length);
  for (let i = 0; i < audio.length; i++) out[i] = Math.max(-32767, Math.min(32767, Math.round(audio[i] * 32767)));
  return out;
}

async function writeWav(outPath: string, pieces: Int16Array[], sampleRate: number): Promise<number> {
  const samples = pieces.reduce((sum, piece) => sum + piece.length, 0);
  const file = await open(outPath, 'w');
  try {
    await file.write(wavHeader(samples, sampleRate));
    for (const piece of pieces) await file.write(pcmBytes(piece));
  } finally {
    await file.close();
  }
  return samples;
}

async function synthesize<Request extends HostRequestBase>(
  model: OnnxHostModel<Request>,
  ort: Ort,
  session: Session,
  durationOutput: string | null,
  request: Request,
): Promise<HostReply> {
  const started = performance.now();
  const audioOutput = model.audioOutput ?? session.outputNames[0];
  let firstMs = 0;
  const pieces: Int16Array[] = [];
  const frames: number[][] = [];
  for (const index of request.sentences.keys()) {
    if (index > 0 && request.pauseSamples > 0) pieces.push(new Int16Array(request.pauseSamples));
    const results = await session.run(model.feeds(ort, session, request, index));
    pieces.push(toInt16(results[audioOutput].data as Float32Array));
    if (durationOutput) frames.push(Array.from(results[durationOutput].data as Float32Array, Math.round));
    for (const value of Object.values(results)) value.dispose();
    if (index === 0) firstMs = performance.now() - started;
  }
  const samples = await writeWav(request.outPath, pieces, request.sampleRate);
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
 * Loads the model's session. Its bytes (the file, ~63 MB for a medium Piper voice, and the edited copy) are only
 * needed until ONNX Runtime has built the session: they are dropped here and collected at once, which takes
 * ~120 MiB off every host's RSS for its whole life (measured with Piper: 297 -> 177 MiB loaded).
 */
async function load(
  withDurations: OnnxHostModel<HostRequestBase>['withDurations'],
  ort: Ort,
  modelPath: string,
  threads: number,
): Promise<{ session: Session; durationOutput: string | null }> {
  // The pool decides how many cores a host takes (engines/piper/pool.ts): one intra-op thread, or two for a
  // request alone in the pool on a machine that is not overloaded. The threads do not spin waiting for work:
  // spinning makes a lone sentence ~10 % faster (237 -> 214 ms on 2 idle cores) but costs ~40 % more CPU per
  // sentence than one thread (two threads without it: ~13 %), and a warm two-thread host also serves requests
  // under load.
  // No memory pattern: the models' shapes change with every sentence, so the cached patterns only
  // held memory (a 5000-character text's Piper calls: peak 503 -> 409 MiB, no CPU cost measured).
  const options: Session.SessionOptions = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    enableMemPattern: false,
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  };
  const edited = withDurations(await readFile(modelPath));
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

async function serve<Request extends HostRequestBase>(model: OnnxHostModel<Request>) {
  const modelPath = process.argv[2];
  const threads = Math.max(1, Number(process.argv[3] ?? 1) || 1);
  const ort = await import('onnxruntime-node');
  const { session, durationOutput } = await load(model.withDurations, ort, modelPath, threads);
  // ONNX Runtime's telemetry library (1DS, in libonnxruntime) creates this empty log in TMPDIR at the first
  // session and never removes it: one per host started, for ever. Nothing is written to it.
  await rm(path.join(tmpdir(), `mat-debug-${process.pid}.log`), { force: true });
  await collect();
  reply({ ready: true, rss: process.memoryUsage().rss });
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let request: Request;
    try {
      request = JSON.parse(line) as Request;
    } catch {
      reply({ error: 'malformed request' });
      continue;
    }
    try {
      reply(await synthesize(model, ort, session, durationOutput, request));
    } catch (error) {
      reply({ id: request.id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  await session.release();
}

/** Runs this process as the host of `model` until its stdin closes (call it from the host file's main). */
export function runOnnxHost<Request extends HostRequestBase>(model: OnnxHostModel<Request>): void {
  serve(model).catch((error) => {
    reply({ error: `${model.engine} host failed: ${error instanceof Error ? error.message : String(error)}` });
    process.exit(1);
  });
}
