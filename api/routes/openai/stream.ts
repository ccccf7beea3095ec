import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { chunkKey } from '../../../synthesis/objects';
import { READER_RENEW_SECONDS, streamReaderSignal, synthesisWorkflowId } from '../../../synthesis/contracts';
import { rawPcmInput, REPRODUCIBLE_OUTPUT } from '../../../audio/ffmpeg';
import { pauseSamples } from '../../../audio/finish';
import { normalizeLoudness } from '../../../audio/loudness';
import { EMOTION_PRESETS, type Emotion } from '../../../audio/prosody';
import { Synthesis } from '../../../db/models/Synthesis';
import { CHUNK_SAMPLE_RATE, wavSamplesOf } from '../../../audio/wav';
import { pcmBytes, streamingWavHeader, wavHeader } from '../../../lib/wavFormat';
import { completeFlacStreamInfo } from '../../../audio/flac';
import type { ApiDeps } from '../../deps';
import type { ProgressWatch } from '../../../lib/progress';
import type { SynthesisRow } from '../../../db/models/Synthesis';
import { isMissingObject } from '../../../lib/storage';
import type { ResponseFormat } from './schema';

/**
 * The streaming half of the OpenAI-compatible endpoint: the rendered
 * sentences of a running synthesis, read in order as the worker stores them,
 * and one encoder over all of them.
 */

/** How long a reader waits for a notification before it looks again on its own (a lost NOTIFY costs this much). */
const FALLBACK_MS = 1_000;
/** Peak ceiling after loudness normalization, dBFS, as finishAudio's. */
const PEAK_CEILING_DB = -1.5;

/** A synthesis that ended without its audio while a client was streaming it. */
export class SynthesisEndedError extends Error {
  constructor(
    readonly status: string,
    readonly failure: { code: string; message: string } | null,
  ) {
    super(failure?.message ?? `The synthesis ended ${status}.`);
  }
}

/**
 * Yields the synthesis's chunks (one per sentence) as 24 kHz mono PCM, in
 * text order, each as soon as it is stored: the worker announces every
 * stored chunk on PostgreSQL's `synthesis_progress` channel, and this reads
 * the object. Returns after the last chunk; throws SynthesisEndedError when
 * the synthesis fails or is canceled first. `synthesis` is the row the caller
 * submitted, `total` how many chunks its plan has (synthesis/speechPlan.ts).
 * While it reads, it tells the synthesis's workflow so, which keeps the
 * chunks after completing until this reader has stopped (streamReaderSignal).
 */
export async function* renderedSentences(
  deps: ApiDeps,
  synthesis: Pick<SynthesisRow, 'id'>,
  total: number,
  signal: AbortSignal,
): AsyncGenerator<Int16Array> {
  const { db, storage, progress } = deps;
  const synthesisId = synthesis.id;
  /** A stored chunk's samples, or null when it is not (or no longer) there: one GET, no HEAD before it. */
  const read = async (index: number): Promise<Int16Array | null> => {
    let stream: Readable;
    try {
      stream = await storage.get(chunkKey(synthesisId, index));
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw error;
    }
    const bytes: Buffer[] = [];
    for await (const piece of stream) bytes.push(piece as Buffer);
    return wavSamplesOf(Buffer.concat(bytes), `chunk ${index}`).samples;
  };
  const workflow = deps.temporal.workflow.getHandle(synthesisWorkflowId(synthesisId));
  // Best effort: a word lost (Temporal unreachable, the workflow gone) only lets the chunks go sooner or later.
  const tell = (reading: boolean) =>
    deps.background.run(
      () => workflow.signal(streamReaderSignal, { reading }),
      (error) => deps.logger.debug({ err: error, synthesis_id: synthesisId }, 'stream reader signal not delivered'),
    );
  const renew = setInterval(() => tell(true), READER_RENEW_SECONDS * 1000).unref();
  let watch: ProgressWatch | undefined;
  try {
    // Watching before the first read: a chunk stored in between is announced to this watch.
    watch = await progress.watch(synthesisId);
    let next = 0;
    while (next < total) {
      if (signal.aborted) return;
      const samples = await read(next);
      if (samples) {
        yield samples;
        next += 1;
        continue;
      }
      // Not stored yet, or the synthesis ended: the status is read only after a miss (not per sentence).
      const { status, error } = await Synthesis.query(db)
        .findById(synthesisId)
        .select('status', 'error')
        .throwIfNotFound();
      if (status === 'failed' || status === 'canceled' || status === 'completed') {
        // It may have stored the chunk (and ended) between the miss and the read: one look more.
        const late = await read(next);
        if (late) {
          yield late;
          next += 1;
          continue;
        }
        // Ended with chunks unread: removed under this reader (a failure or cancel, the entry deleted, or this reader
        // silent past READER_SILENCE_SECONDS; a workflow started before the chunks waited for readers removed them at once).
        throw new SynthesisEndedError(status, error);
      }
      await watch.wait(FALLBACK_MS, signal);
    }
  } finally {
    clearInterval(renew);
    tell(false);
    watch?.close();
  }
}

/**
 * The sentences as one continuous signal, the way finishAudio joins them: a
 * pause between sentences (scaled by speed and the emotion's rate), each
 * sentence brought to the emotion's loudness with peaks limited. The stored
 * file is normalized over the whole text instead (the stream cannot wait for
 * the end), so the two can differ by a fraction of a dB per sentence.
 * `pauseSeconds`: the plan's pause (0 for SSML, whose chunks carry their own silence); null for the default.
 */
export function joinSentences(emotion: Emotion, speed: number, pauseSeconds: number | null = null) {
  const preset = EMOTION_PRESETS[emotion];
  // The same pause as the stored file's (finishAudio's, at the same rate).
  const pause = Buffer.alloc(pauseSamples({ speed, emotion, ...(pauseSeconds !== null && { pauseSeconds }) }) * 2);
  let first = true;
  return (samples: Int16Array): Buffer[] => {
    const [scaled] = normalizeLoudness([samples], CHUNK_SAMPLE_RATE, preset.loudnessLufs, PEAK_CEILING_DB);
    const pcm = pcmBytes(scaled);
    const out = first ? [pcm] : [pause, pcm];
    first = false;
    return out;
  };
}

export const CONTENT_TYPES: Readonly<Record<ResponseFormat, string>> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg; codecs=opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

/** ffmpeg's output options per format: streamable containers only (ADTS for AAC, Ogg pages of 100 ms for Opus). */
const FFMPEG_OUTPUT: Readonly<Record<'mp3' | 'opus' | 'aac' | 'flac', string[]>> = {
  // No Xing header: on a pipe it could not be completed and would claim zero frames.
  mp3: ['-c:a', 'libmp3lame', '-b:a', '64k', '-write_xing', '0', '-id3v2_version', '0', '-f', 'mp3'],
  opus: ['-c:a', 'libopus', '-b:a', '48k', '-application', 'voip', '-page_duration', '100000', '-f', 'ogg'],
  aac: ['-c:a', 'aac', '-b:a', '64k', '-f', 'adts'],
  flac: ['-c:a', 'flac', '-f', 'flac'],
};

type EncodedFormat = keyof typeof FFMPEG_OUTPUT;
type EncoderProcess = ChildProcessByStdio<Writable, Readable, null>;

/**
 * An encoder process's output other than this endpoint's formats (the
 * ElevenLabs-compatible routes' codes): ffmpeg's output options (from the
 * 24 kHz mono input), the bytes to send before its output (a WAV header), and
 * the key its spare process is kept under (one per distinct `args`).
 */
export interface FfmpegEncoding {
  key: string;
  args: readonly string[];
  prefix?: Buffer;
}

function spawnEncoderProcess(output: readonly string[]): EncoderProcess {
  return spawn(
    'ffmpeg',
    [
      '-hide_banner',
      '-nostats',
      '-v',
      'error',
      // No probing: the input is known, and probing would hold the first output back until seconds of audio came in.
      '-probesize',
      '32',
      '-analyzeduration',
      '0',
      ...rawPcmInput(CHUNK_SAMPLE_RATE),
      ...REPRODUCIBLE_OUTPUT,
      '-flush_packets',
      '1',
      ...output,
      'pipe:1',
    ],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
}

/**
 * One encoder process per format kept started ahead, idle on its stdin: an
 * ffmpeg start costs tens of milliseconds of CPU (loading its libraries),
 * which on a small machine competed with the first sentence's render and so
 * sat on the first audio's path. A request takes the spare; the next one
 * starts just after that request's first audio (off its path). Only formats
 * that were asked for get one, and a spare nobody takes is stopped after a
 * while. A spare's pipes do not keep the process alive, and an ffmpeg whose
 * parent is gone reads the end of its input and exits.
 */
const SPARE_IDLE_MS = 10 * 60_000;
/** After a stream's first write: time for its encoder to put out the first frame before the next encoder's start competes. */
const SPARE_AFTER_FIRST_WRITE_MS = 100;
const spares = new Map<string, { child: EncoderProcess; retire: NodeJS.Timeout }>();

const holdsProcess = (child: EncoderProcess, hold: boolean) => {
  for (const pipe of [child.stdin, child.stdout] as unknown as Array<{ ref(): void; unref(): void }>) {
    if (hold) pipe.ref();
    else pipe.unref();
  }
  if (hold) child.ref();
  else child.unref();
};

/** An encoder's spare key and ffmpeg output options: one of this endpoint's formats, or another encoding. */
const ffmpegOutput = (format: EncodedFormat | FfmpegEncoding) =>
  typeof format === 'string' ? { key: format, args: FFMPEG_OUTPUT[format] } : format;

function startSpare(encoding: EncodedFormat | FfmpegEncoding): void {
  const { key: format, args } = ffmpegOutput(encoding);
  if (spares.has(format)) return;
  const child = spawnEncoderProcess(args);
  const drop = () => {
    if (spares.get(format)?.child === child) spares.delete(format);
  };
  // A spare that fails to start (no ffmpeg) or dies idle is dropped; the next request starts its own.
  child.once('error', drop);
  child.once('exit', drop);
  holdsProcess(child, false);
  const retire = setTimeout(() => {
    drop();
    child.kill('SIGKILL');
  }, SPARE_IDLE_MS).unref();
  spares.set(format, { child, retire });
}

function takeEncoderProcess(encoding: EncodedFormat | FfmpegEncoding): EncoderProcess {
  const { key: format, args } = ffmpegOutput(encoding);
  const spare = spares.get(format);
  spares.delete(format);
  if (spare && spare.child.exitCode === null && spare.child.signalCode === null) {
    clearTimeout(spare.retire);
    holdsProcess(spare.child, true);
    return spare.child;
  }
  return spawnEncoderProcess(args);
}

/** Stops the spare encoders (the API's shutdown). */
export function stopSpareEncoders(): void {
  for (const { child, retire } of spares.values()) {
    clearTimeout(retire);
    child.kill('SIGKILL');
  }
  spares.clear();
}

export interface StreamEncoder {
  /** The encoded bytes, from the first write to the end. */
  output: Readable;
  write(pcm: Buffer): Promise<void>;
  /** Flushes the encoder; `output` ends after its last bytes. */
  end(): Promise<void>;
  destroy(): void;
}

export interface StreamEncoderOptions {
  /**
   * All of the audio is written before end() (a one-sentence text): nothing
   * needs to go out before the end, so the headers can say how long it is.
   * FLAC gets a complete STREAMINFO (total samples, MD5), WAV its sizes.
   */
  whole?: boolean;
  /**
   * The stream is over (the client gone or cut): the encoder is destroyed, and
   * a write or end() waiting on it rejects. Without this, one waiting for an
   * output nobody reads any more would wait forever.
   */
  signal?: AbortSignal;
}

/**
 * One encoder over the whole stream, so the client gets one header and one
 * continuous codec state (no repeated headers, no encoder restart at a
 * sentence join). WAV gets a header whose sizes say "unknown" (0xFFFFFFFF,
 * as streaming servers send it); PCM is the raw samples; every other format
 * is one ffmpeg process fed raw PCM on stdin. A true stream's FLAC header
 * cannot say its length either (STREAMINFO's total is 0: unknown; the
 * encoder cannot seek back on a pipe); with `whole`, both headers are exact.
 */
export function createStreamEncoder(
  format: ResponseFormat | FfmpegEncoding,
  { whole = false, signal }: StreamEncoderOptions = {},
): StreamEncoder {
  const encoder = typeof format === 'string' ? encoderFor(format, whole) : processEncoder(format);
  if (!signal) return encoder;
  const aborted = new Promise<never>((_, reject) => {
    const stop = () => {
      encoder.destroy();
      reject(signal.reason);
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
  aborted.catch(() => undefined);
  return {
    output: encoder.output,
    write: (pcm) => Promise.race([encoder.write(pcm), aborted]),
    end: () => Promise.race([encoder.end(), aborted]),
    destroy: encoder.destroy,
  };
}

function encoderFor(format: ResponseFormat, whole: boolean): StreamEncoder {
  if (format === 'wav' && whole) return wholeWavEncoder();
  if (format === 'flac' && whole) return wholeFlacEncoder();
  if (format === 'wav' || format === 'pcm') {
    const output = new PassThrough();
    if (format === 'wav') output.write(streamingWavHeader(CHUNK_SAMPLE_RATE));
    return {
      output,
      async write(pcm) {
        if (!output.write(pcm)) await once(output, 'drain');
      },
      async end() {
        output.end();
      },
      destroy: () => output.destroy(),
    };
  }
  return processEncoder(format);
}

/** One ffmpeg process fed raw PCM on stdin; its output after `prefix`, if any. */
function processEncoder(format: EncodedFormat | FfmpegEncoding): StreamEncoder {
  const child = takeEncoderProcess(format);
  const exited = once(child, 'close').catch(() => undefined);
  child.stdin.on('error', () => undefined);
  let written = false;
  const prefix = typeof format === 'string' ? undefined : format.prefix;
  let output: Readable = child.stdout;
  if (prefix) {
    const withPrefix = new PassThrough();
    withPrefix.write(prefix);
    child.stdout.on('error', (error) => withPrefix.destroy(error));
    output = child.stdout.pipe(withPrefix);
  }
  return {
    output,
    async write(pcm) {
      if (!written) {
        written = true;
        // The first audio is on its way: the next request's encoder starts a moment later, off its path.
        // (Not on the output's first 'data' event: a listener there would set the output flowing before its reader is attached.)
        setTimeout(() => startSpare(format), SPARE_AFTER_FIRST_WRITE_MS).unref();
      }
      if (!child.stdin.write(pcm)) await once(child.stdin, 'drain');
    },
    async end() {
      child.stdin.end();
      await exited;
    },
    destroy: () => void child.kill('SIGKILL'),
  };
}

/** WAV of a known length: the samples are kept until end(), then sent behind a header with their sizes. */
function wholeWavEncoder(): StreamEncoder {
  const output = new PassThrough();
  const pcm: Buffer[] = [];
  return {
    output,
    async write(bytes) {
      pcm.push(bytes);
    },
    async end() {
      const length = pcm.reduce((sum, bytes) => sum + bytes.length, 0);
      output.end(Buffer.concat([wavHeader(length / 2, CHUNK_SAMPLE_RATE), ...pcm]));
    },
    destroy: () => output.destroy(),
  };
}

/**
 * FLAC of a known length: the encoder's bytes are kept until it has finished,
 * then sent with STREAMINFO completed (the total sample count and the MD5 of
 * the samples written), which an encoder on a pipe leaves unknown.
 */
function wholeFlacEncoder(): StreamEncoder {
  const output = new PassThrough();
  const child = takeEncoderProcess('flac');
  const exited = once(child, 'close').catch(() => undefined);
  child.stdin.on('error', () => undefined);
  const encoded: Buffer[] = [];
  child.stdout.on('data', (bytes: Buffer) => encoded.push(bytes));
  const md5 = createHash('md5');
  let samples = 0;
  let written = false;
  return {
    output,
    async write(pcm) {
      if (!written) {
        written = true;
        setTimeout(() => startSpare('flac'), SPARE_AFTER_FIRST_WRITE_MS).unref();
      }
      md5.update(pcm);
      samples += pcm.length / 2;
      if (!child.stdin.write(pcm)) await once(child.stdin, 'drain');
    },
    async end() {
      child.stdin.end();
      await exited;
      if (child.exitCode !== 0) {
        output.destroy(new Error(`flac encoder exited with ${child.exitCode ?? child.signalCode}`));
        return;
      }
      output.end(completeFlacStreamInfo(Buffer.concat(encoded), samples, md5.digest()));
    },
    destroy: () => {
      child.kill('SIGKILL');
      output.destroy();
    },
  };
}

/**
 * A stream of texts spoken one after another (a Wyoming stream's sentences,
 * a stream-input connection's pieces): each is submitted after the ones
 * before it, so history keeps their order, and played after theirs. When one
 * fails, those after it are canceled before any audio (`cancel`), and every
 * failure goes to `fail` (the caller tells its client once). `track` wraps
 * each text's whole work (submit, wait and play), e.g. to count it as running.
 */
export function speakInOrder<Row>(steps: {
  submit(text: string): Promise<Row>;
  play(row: Row): Promise<void>;
  cancel(row: Row): void;
  fail(error: unknown): void;
  track?(work: Promise<void>): Promise<void>;
}): SpokenInOrder {
  let submitted: Promise<unknown> = Promise.resolve();
  let played: Promise<void> = Promise.resolve();
  return {
    speak(text: string): void {
      const row = submitted.then(() => steps.submit(text));
      submitted = row.catch(() => undefined);
      const before = played;
      const work = (async () => {
        const mine = await row;
        try {
          await before;
        } catch (error) {
          // An earlier text failed (the client was told): this one is never heard.
          steps.cancel(mine);
          throw error;
        }
        await steps.play(mine);
      })();
      played = steps.track ? steps.track(work) : work;
      played.catch((error) => steps.fail(error));
    },
    played: () => played,
  };
}

export interface SpokenInOrder {
  speak(text: string): void;
  /** Settles when everything spoken so far has played; rejects if any of it failed. */
  played(): Promise<void>;
}
