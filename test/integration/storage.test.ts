import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createTestDeps } from '../helpers/stack';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('storage on the real MinIO server', () => {
  const { storage, close } = createTestDeps();
  afterAll(() => close());

  it('writes an object, reads it whole and by byte range, and deletes it', async () => {
    const key = `tests/${randomUUID()}.bin`;
    const body = Buffer.from(Array.from({ length: 4096 }, (_, index) => index % 251));

    await storage.put(key, body, 'application/octet-stream');
    expect(await storage.size(key)).toBe(body.length);
    expect((await readAll(await storage.get(key))).equals(body)).toBe(true);
    expect((await readAll(await storage.get(key, { start: 100, end: 199 }))).equals(body.subarray(100, 200))).toBe(
      true,
    );
    expect((await readAll(await storage.get(key, { start: 4095, end: 4095 }))).equals(body.subarray(4095))).toBe(true);

    await storage.remove(key);
    expect(await storage.size(key)).toBeNull();
  });

  it('treats removing a missing object as done, so cleanup can be retried', async () => {
    await expect(storage.remove(`tests/${randomUUID()}-never-written`)).resolves.toBeUndefined();
  });

  it('creates its bucket idempotently', async () => {
    await expect(storage.ensureBucket()).resolves.toBeUndefined();
    await expect(storage.ensureBucket()).resolves.toBeUndefined();
  });
});
