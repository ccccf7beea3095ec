import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * A zip of STORED entries (no compression: MP3 does not compress), streamed
 * file by file: each file is read twice (its CRC-32, then its bytes), never
 * held. No runtime dependency writes zips, and the format's STORED subset is
 * small. No Zip64: an entry or the archive past 4 GiB is refused.
 */

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

async function crc32Of(file: string, signal?: AbortSignal): Promise<number> {
  let crc = 0xffffffff;
  for await (const chunk of createReadStream(file, { signal }) as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i++) crc = CRC_TABLE[(crc ^ chunk[i]) & 0xff] ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

async function write(out: Writable, bytes: Buffer): Promise<void> {
  if (!out.write(bytes)) await once(out, 'drain');
}

const LIMIT = 0xffffffff;
/** General purpose flag bit 11: names are UTF-8. */
const UTF8_NAMES = 0x0800;
/** 1980-01-01 00:00 in DOS time: the entries carry no date (the same input gives the same bytes). */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

export async function writeStoredZip(
  zipPath: string,
  entries: readonly { name: string; path: string }[],
  signal?: AbortSignal,
): Promise<void> {
  const out = createWriteStream(zipPath);
  const central: Buffer[] = [];
  let offset = 0;
  try {
    for (const entry of entries) {
      const size = (await stat(entry.path)).size;
      const crc = await crc32Of(entry.path, signal);
      const name = Buffer.from(entry.name, 'utf8');
      if (size >= LIMIT || offset + size + 30 + name.length >= LIMIT) throw new Error('zip past 4 GiB (no Zip64)');
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4); // version needed: 2.0
      local.writeUInt16LE(UTF8_NAMES, 6);
      local.writeUInt16LE(0, 8); // method: stored
      local.writeUInt16LE(0, 10); // time
      local.writeUInt16LE(DOS_DATE, 12);
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(size, 18);
      local.writeUInt32LE(size, 22);
      local.writeUInt16LE(name.length, 26);
      local.writeUInt16LE(0, 28);
      await write(out, Buffer.concat([local, name]));
      for await (const chunk of createReadStream(entry.path, { signal }) as AsyncIterable<Buffer>)
        await write(out, chunk);
      const header = Buffer.alloc(46);
      header.writeUInt32LE(0x02014b50, 0);
      header.writeUInt16LE(20, 4); // made by: 2.0
      local.copy(header, 6, 4, 30); // version needed .. name length, as in the local header
      // extra, comment, disk, internal and external attributes: 0
      header.writeUInt32LE(offset, 42);
      central.push(header, name);
      offset += 30 + name.length + size;
    }
    const directory = Buffer.concat(central);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(entries.length, 8);
    end.writeUInt16LE(entries.length, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(offset, 16);
    await write(out, Buffer.concat([directory, end]));
  } finally {
    out.end();
    await once(out, 'close');
  }
}
