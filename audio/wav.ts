import { open, readFile, writeFile } from 'node:fs/promises';

/** The one PCM format every rendered chunk has: joining chunks needs no conversion. */
export const CHUNK_SAMPLE_RATE = 24_000;

/** The 44-byte header of a mono 16-bit PCM WAV holding `samples` samples. */
export function wavHeader(samples: number, sampleRate = CHUNK_SAMPLE_RATE): Buffer {
  const dataBytes = samples * 2;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

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
 * Reads the format and data size of a PCM WAV this service wrote itself
 * (ffmpeg to a seekable file writes true sizes; engines' stdout headers do not,
 * which is why nothing here reads those).
 */
export async function readWavInfo(file: string): Promise<WavInfo> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(12);
    await handle.read(head, 0, 12, 0);
    if (head.toString('ascii', 0, 4) !== 'RIFF' || head.toString('ascii', 8, 12) !== 'WAVE') throw new Error(`${file}: not a WAV file`);
    let offset = 12;
    let format: Omit<WavInfo, 'dataBytes' | 'dataOffset' | 'durationSeconds'> | undefined;
    const chunkHeader = Buffer.alloc(8);
    while (offset + 8 <= size) {
      await handle.read(chunkHeader, 0, 8, offset);
      const id = chunkHeader.toString('ascii', 0, 4);
      const length = chunkHeader.readUInt32LE(4);
      if (id === 'fmt ') {
        const body = Buffer.alloc(16);
        await handle.read(body, 0, 16, offset + 8);
        format = { channels: body.readUInt16LE(2), sampleRate: body.readUInt32LE(4), bitsPerSample: body.readUInt16LE(14) };
      } else if (id === 'data') {
        if (!format) break;
        // Never trust a size past the end of the file.
        const dataBytes = Math.min(length, size - offset - 8);
        const frameBytes = format.channels * (format.bitsPerSample / 8);
        return { ...format, dataBytes, dataOffset: offset + 8, durationSeconds: Math.floor(dataBytes / frameBytes) / format.sampleRate };
      }
      offset += 8 + length + (length % 2);
    }
    throw new Error(`${file}: WAV without fmt/data chunks`);
  } finally {
    await handle.close();
  }
}

/** The samples of a mono 16-bit PCM WAV this service wrote (a rendered chunk), with its sample rate. */
export async function readWavSamples(file: string): Promise<{ samples: Int16Array; sampleRate: number }> {
  const info = await readWavInfo(file);
  if (info.channels !== 1 || info.bitsPerSample !== 16) throw new Error(`${file}: not mono 16-bit PCM`);
  const bytes = await readFile(file);
  const data = bytes.subarray(info.dataOffset, info.dataOffset + info.dataBytes);
  const samples = new Int16Array(info.dataBytes >> 1);
  new Uint8Array(samples.buffer).set(data.subarray(0, samples.length * 2));
  return { samples, sampleRate: info.sampleRate };
}
