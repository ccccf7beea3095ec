import { Client } from 'minio';
import type { Readable } from 'node:stream';
import type { Config } from './config';

/**
 * Object storage over plain S3 through the `minio` client, so an operator can
 * point it at any S3-compatible store. Audio never travels through Temporal;
 * activities and the API pass object keys and stream bytes through here.
 */
export interface Storage {
  readonly bucket: string;
  ensureBucket(): Promise<void>;
  put(key: string, body: Buffer | Readable, contentType: string): Promise<void>;
  get(key: string, range?: { start: number; end: number }): Promise<Readable>;
  size(key: string): Promise<number | null>;
  remove(key: string): Promise<void>;
  /** Keys of the objects whose key starts with `prefix`. */
  list(prefix: string): Promise<string[]>;
  /** Removes every object whose key starts with `prefix`. */
  removePrefix(prefix: string): Promise<void>;
  ping(): Promise<void>;
}

/**
 * Object storage failed to answer (down, unreachable, erroring): a condition
 * worth waiting out, unlike a missing object, which is rethrown as it came.
 */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError';
  constructor(
    operation: string,
    override readonly cause: unknown,
  ) {
    super(`object storage ${operation} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

const MISSING_CODES = new Set(['NoSuchKey', 'NotFound', 'NoSuchBucket']);

/** The object (or its bucket) does not exist: storage answered, there is nothing to wait out. */
export const isMissingObject = (error: unknown) => MISSING_CODES.has((error as { code?: string })?.code ?? '');

async function storageCall<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (MISSING_CODES.has((error as { code?: string }).code ?? '')) throw error;
    throw new StorageUnavailableError(operation, error);
  }
}

export function createStorage(config: Config): Storage {
  const client = new Client({
    endPoint: config.minio.endPoint,
    port: config.minio.port,
    useSSL: config.minio.useSSL,
    accessKey: config.MINIO_ACCESS_KEY,
    secretKey: config.MINIO_SECRET_KEY,
    region: config.MINIO_REGION,
    pathStyle: true,
  });
  const bucket = config.AUDIO_BUCKET;

  return {
    bucket,
    async ensureBucket() {
      if (await client.bucketExists(bucket)) return;
      try {
        await client.makeBucket(bucket, config.MINIO_REGION);
      } catch (error) {
        // Another process (api or worker) created it first.
        if ((error as { code?: string }).code !== 'BucketAlreadyOwnedByYou') throw error;
      }
    },
    async put(key, body, contentType) {
      await storageCall('put', () => client.putObject(bucket, key, body, undefined, { 'Content-Type': contentType }));
    },
    async get(key, range) {
      if (!range) return storageCall('get', () => client.getObject(bucket, key));
      return storageCall('get', () => client.getPartialObject(bucket, key, range.start, range.end - range.start + 1));
    },
    async size(key) {
      try {
        return (await storageCall('stat', () => client.statObject(bucket, key))).size;
      } catch (error) {
        if (MISSING_CODES.has((error as { code?: string }).code ?? '')) return null;
        throw error;
      }
    },
    async remove(key) {
      // S3 deletes are idempotent: removing a missing key succeeds.
      await storageCall('remove', () => client.removeObject(bucket, key));
    },
    async list(prefix) {
      return storageCall('list', async () => {
        const keys: string[] = [];
        for await (const item of client.listObjectsV2(bucket, prefix, true) as AsyncIterable<{ name?: string }>) {
          if (item.name) keys.push(item.name);
        }
        return keys.sort();
      });
    },
    async removePrefix(prefix) {
      const keys = await this.list(prefix);
      if (keys.length) await storageCall('remove', () => client.removeObjects(bucket, keys));
    },
    async ping() {
      await client.bucketExists(bucket);
    },
  };
}
