import { open, readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { InferenceSession as Session } from 'onnxruntime-node';
import { withNodeOutput } from '../piper/durations';
import type { HostReply } from '../piper/host';

/**
 * The Kokoro model in its own process, in the Piper host's protocol (engines/piper/host.ts; the pool,
 * engines/piper/pool.ts, starts it with this file's path): argv[2] the model, argv[3] the intra-op threads;
 * `{"ready": true}` once loaded; one request at a time, one JSON line each way.
 *
 * A request's `sentences` are token ids with the 0 pad at both ends, `styles` the 256 floats of each
 * sentence's style row, `speed` the model's own speed input. The reply's `frames` are each sentence's
 * predicted duration per token (the output of the graph's `Clip` node, exposed by a protobuf edit as for
 * Piper's `Ceil`): the sentence has `sum(frames) x KOKORO_HOP_SAMPLES` samples.
 */

export interface KokoroHostRequest {
  id: number;
  sentences: number[][];
  styles: number[][];
  speed: number;
  sampleRate: number;
  outPath: string;
  pauseSamples: number;
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

function toInt16(audio: Float32Array): Int16Array {
  const out = new Int16Array(audio.length);
  for (let i = 0; i < audio.length; i++) out[i] = Math.max(-32767, Math.min(32767, Math.round(audio[i] * 32767)));
  return out;
}

async function synthesize(
  session: Session,
  ort: typeof import('onnxruntime-node'),
  request: KokoroHostRequest,
  durationOutput: string | null,
): Promise<HostReply> {
  const started = performance.now();
  let firstMs = 0;
  const pieces: Int16Array[] = [];
  const frames: number[][] = [];
  for (const [index, ids] of request.sentences.entries()) {
    if (index > 0 && request.pauseSamples > 0) pieces.push(new Int16Array(request.pauseSamples));
    const results = await session.run({
      tokens: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
      style: new ort.Tensor('float32', Float32Array.from(request.styles[index]), [1, 256]),
      speed: new ort.Tensor('float32', Float32Array.from([request.speed]), [1]),
    });
    pieces.push(toInt16(results.audio.data as Float32Array));
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

async function main() {
  const modelPath = process.argv[2];
  const threads = Math.max(1, Number(process.argv[3] ?? 1) || 1);
  const ort = await import('onnxruntime-node');
  const options: Session.SessionOptions = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    enableMemPattern: false,
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  };
  let edited = withNodeOutput(await readFile(modelPath), 'Clip');
  const session = edited
    ? await ort.InferenceSession.create(edited.model, options)
    : await ort.InferenceSession.create(modelPath, options);
  const durationOutput = edited?.output ?? null;
  edited = null;
  (globalThis as { gc?: () => void }).gc?.();
  reply({ ready: true, rss: process.memoryUsage().rss });
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let request: KokoroHostRequest;
    try {
      request = JSON.parse(line) as KokoroHostRequest;
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
    reply({ error: `kokoro host failed: ${error instanceof Error ? error.message : String(error)}` });
    process.exit(1);
  });
}
