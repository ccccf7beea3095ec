import { open, readFile, writeFile } from 'node:fs/promises';
import { wavHeader } from '../lib/wavFormat';

/** The one PCM format every rendered chunk has: joining chunks needs no conversion. */
export const CHUNK_SAMPLE_RATE = 24_000;

/** A mono 16-bit PCM WAV of silence. */
export function silenceWav(seconds: number, sampleRate = CHUNK_SAMPLE_RATE): Buffer {
  const samples = Math.round(seconds * sampleRate);
  return Buffer.concat([wavHeader(samples, sampleRate), Buffer.alloc(samples * 2)]);
}

export async function writeSilenceWav(file: string, seconds: number, sampleRate = CHUNK_SAMPLE_RATE): Promise<void> {
  await writeFile(file, silenceWav(seconds, sampleRate));
}

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  dataBytes: number;
  /** Where the samples start in the file. */
  dataOffset: number;
  durationSeconds: number;
}

/**
 * The format and data chunk of a PCM WAV from its first bytes (`head`) and
 * its total size: RIFF chunks are walked until `data`.
 */
function parseWavLayout(head: Buffer, size: number, name: string): WavInfo {
  if (head.toString('ascii', 0, 4) !== 'RIFF' || head.toString('ascii', 8, 12) !== 'WAVE')
    throw new Error(`${name}: not a WAV file`);
  let offset = 12;
  let format: Omit<WavInfo, 'dataBytes' | 'dataOffset' | 'durationSeconds'> | undefined;
  while (offset + 8 <= Math.min(size, head.length)) {
    const id = head.toString('ascii', offset, offset + 4);
    const length = head.readUInt32LE(offset + 4);
    if (id === 'fmt ' && offset + 24 <= head.length) {
      format = {
        channels: head.readUInt16LE(offset + 10),
        sampleRate: head.readUInt32LE(offset + 12),
        bitsPerSample: head.readUInt16LE(offset + 22),
      };
    } else if (id === 'data') {
      if (!format) break;
      // Never trust a size past the end of the file.
      const dataBytes = Math.min(length, size - offset - 8);
      const frameBytes = format.channels * (format.bitsPerSample / 8);
      return {
        ...format,
        dataBytes,
        dataOffset: offset + 8,
        durationSeconds: Math.floor(dataBytes / frameBytes) / format.sampleRate,
      };
    }
    offset += 8 + length + (length % 2);
  }
  throw new Error(`${name}: WAV without fmt/data chunks`);
}

/** The samples of a mono 16-bit PCM WAV held in memory (a stored chunk), with its sample rate. */
export function wavSamplesOf(bytes: Buffer, name = 'wav'): { samples: Int16Array; sampleRate: number } {
  const info = parseWavLayout(bytes, bytes.length, name);
  if (info.channels !== 1 || info.bitsPerSample !== 16) throw new Error(`${name}: not mono 16-bit PCM`);
  const count = info.dataBytes >> 1;
  const start = bytes.byteOffset + info.dataOffset;
  // A view of the bytes where the samples are 2-byte aligned (a canonical header is 44 bytes), not a second copy of them.
  if (start % 2 === 0) return { samples: new Int16Array(bytes.buffer, start, count), sampleRate: info.sampleRate };
  const samples = new Int16Array(count);
  new Uint8Array(samples.buffer).set(bytes.subarray(info.dataOffset, info.dataOffset + count * 2));
  return { samples, sampleRate: info.sampleRate };
}

/** Header bytes read to find the data chunk (ffmpeg's WAVs put it within the first hundred). */
const HEAD_BYTES = 64 * 1024;

/**
 * Reads the format and data size of a PCM WAV this service wrote itself
 * (ffmpeg to a seekable file writes true sizes; engines' stdout headers do not,
 * which is why nothing here reads those).
 */
export async function readWavInfo(file: string): Promise<WavInfo> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(Math.min(size, HEAD_BYTES));
    await handle.read(head, 0, head.length, 0);
    return parseWavLayout(head, size, file);
  } finally {
    await handle.close();
  }
}

/**
 * Lengthens a mono 16-bit PCM WAV this service wrote (its data chunk last,
 * as ffmpeg writes it) with digital silence to `samples` samples in all.
 */
export async function padWav(file: string, samples: number): Promise<void> {
  const info = await readWavInfo(file);
  if (info.channels !== 1 || info.bitsPerSample !== 16) throw new Error(`${file}: not mono 16-bit PCM`);
  const have = info.dataBytes >> 1;
  if (samples < have) throw new RangeError(`${file}: ${have} samples, more than the ${samples} asked for`);
  if (samples === have) return;
  const handle = await open(file, 'r+');
  try {
    const dataEnd = info.dataOffset + have * 2;
    await handle.write(Buffer.alloc((samples - have) * 2), 0, (samples - have) * 2, dataEnd);
    const sizes = Buffer.alloc(4);
    sizes.writeUInt32LE(info.dataOffset + samples * 2 - 8);
    await handle.write(sizes, 0, 4, 4);
    sizes.writeUInt32LE(samples * 2);
    await handle.write(sizes, 0, 4, info.dataOffset - 4);
    await handle.truncate(info.dataOffset + samples * 2);
  } finally {
    await handle.close();
  }
}

/** The samples of a mono 16-bit PCM WAV this service wrote (a rendered chunk), with its sample rate. */
export async function readWavSamples(file: string): Promise<{ samples: Int16Array; sampleRate: number }> {
  return wavSamplesOf(await readFile(file), file);
}
