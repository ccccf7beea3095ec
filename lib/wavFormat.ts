/**
 * The bytes of a mono 16-bit PCM WAV, the one format every engine host, render and stream writes. Here, at the
 * bottom layer, so the engines' model hosts (engines/onnxHost.ts), the audio pipeline (audio/wav.ts) and the
 * API's streams share one writer.
 */

/** Written where a streamed WAV's sizes go: decoders then read samples until the stream ends. */
const UNKNOWN_SIZE = 0xffffffff;

function header(riffBytes: number, dataBytes: number, sampleRate: number): Buffer {
  const bytes = Buffer.alloc(44);
  bytes.write('RIFF', 0, 'ascii');
  bytes.writeUInt32LE(riffBytes, 4);
  bytes.write('WAVE', 8, 'ascii');
  bytes.write('fmt ', 12, 'ascii');
  bytes.writeUInt32LE(16, 16);
  bytes.writeUInt16LE(1, 20); // PCM
  bytes.writeUInt16LE(1, 22); // mono
  bytes.writeUInt32LE(sampleRate, 24);
  bytes.writeUInt32LE(sampleRate * 2, 28);
  bytes.writeUInt16LE(2, 32);
  bytes.writeUInt16LE(16, 34);
  bytes.write('data', 36, 'ascii');
  bytes.writeUInt32LE(dataBytes, 40);
  return bytes;
}

/** The 44-byte header of a mono 16-bit PCM WAV holding `samples` samples. */
export function wavHeader(samples: number, sampleRate: number): Buffer {
  return header(36 + samples * 2, samples * 2, sampleRate);
}

/** The header of a mono 16-bit WAV of unknown length, for a stream sent as it is made. */
export function streamingWavHeader(sampleRate: number): Buffer {
  return header(UNKNOWN_SIZE, UNKNOWN_SIZE, sampleRate);
}

/** 16-bit samples as bytes (little-endian, as on every machine this runs on): a view, not a copy. */
export function pcmBytes(samples: Int16Array): Buffer {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}
