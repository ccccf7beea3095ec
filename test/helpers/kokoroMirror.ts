import { copyFile, mkdir, symlink } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { defaultModelsDir } from '../../lib/config';

/**
 * Kokoro voice styles served on 127.0.0.1 in both layouts KOKORO_VOICES_URL takes: one `.npz` of every
 * voice (`/voices-v1.0.bin`, kokoro-onnx's file) and a directory of `<voice>.npy` files (`/voices/`).
 */

/** A zip of the files, stored or deflated, as np.savez / np.savez_compressed write an `.npz`. */
export function zip(files: Record<string, Uint8Array>, deflate = false): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of Object.entries(files)) {
    const body = deflate ? deflateRawSync(data) : Buffer.from(data);
    // A local header and its central directory entry describe the file alike, the entry's fields 2 bytes later.
    const describe = (header: Buffer, at: number) => {
      header.writeUInt16LE(deflate ? 8 : 0, at);
      header.writeUInt32LE(body.length, at + 10);
      header.writeUInt32LE(data.length, at + 14);
      header.writeUInt16LE(Buffer.byteLength(name), at + 18);
      return header;
    };
    const local = describe(Buffer.alloc(30), 8);
    local.writeUInt32LE(0x04034b50, 0);
    const entry = describe(Buffer.alloc(46), 10);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, Buffer.from(name), body);
    central.push(entry, Buffer.from(name));
    offset += 30 + Buffer.byteLength(name) + body.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export interface KokoroMirror {
  /** The `.npz` of every voice. */
  npzUrl: string;
  /** The directory of `<voice>.npy` files (ends in `/`). */
  dirUrl: string;
  requests: string[];
  close(): Promise<void>;
}

/** `styles`: voice name -> its `.npy` bytes. */
export async function startKokoroMirror(styles: Record<string, Uint8Array>): Promise<KokoroMirror> {
  const npz = zip(Object.fromEntries(Object.entries(styles).map(([name, bytes]) => [`${name}.npy`, bytes])), true);
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const url = request.url ?? '/';
    requests.push(url);
    const voice = /^\/voices\/([a-z0-9_]+)\.npy$/.exec(url)?.[1];
    if (url === '/voices-v1.0.bin') response.writeHead(200, { 'Content-Length': npz.length }).end(npz);
    else if (voice && styles[voice]) response.writeHead(200).end(Buffer.from(styles[voice]));
    else response.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    npzUrl: `${base}/voices-v1.0.bin`,
    dirUrl: `${base}/voices/`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Fills `dir` as scripts/install.sh fills MODELS_DIR for Kokoro, from the one it assembled: the model linked, its
 * vocabulary, and of the shipped styles the files `styles` names (shipped file -> its name here; by default jf_alpha
 * under the English name `af_alpha`, an English voice as an operator installs from KOKORO_VOICES_URL); plus Piper's
 * en_US-joe-medium.
 */
export async function installKokoroModels(
  dir: string,
  styles: Record<string, string> = { 'jf_alpha.npy': 'af_alpha.npy' },
): Promise<void> {
  const models = process.env.MODELS_DIR ?? defaultModelsDir();
  const shared = path.join(models, 'kokoro');
  const joe = path.join(models, 'en_US-joe-medium.onnx');
  await mkdir(path.join(dir, 'kokoro', 'voices'), { recursive: true });
  await symlink(path.join(shared, 'kokoro-v1.0.int8.onnx'), path.join(dir, 'kokoro', 'kokoro-v1.0.int8.onnx'));
  await copyFile(path.join(shared, 'vocab.json'), path.join(dir, 'kokoro', 'vocab.json'));
  for (const [shipped, name] of Object.entries(styles))
    await copyFile(path.join(shared, 'voices', shipped), path.join(dir, 'kokoro', 'voices', name));
  await symlink(joe, path.join(dir, 'en_US-joe-medium.onnx'));
  await copyFile(`${joe}.json`, path.join(dir, 'en_US-joe-medium.onnx.json'));
}
