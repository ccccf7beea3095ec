import { Client } from 'minio';
import type { Config } from '../../lib/config';

/**
 * Lists object keys in the audio bucket straight from the S3 API (the app's
 * Storage interface has no listing), so a test can prove nothing is left under a prefix.
 */
export function createObjectLister(config: Config) {
  const client = new Client({
    endPoint: config.minio.endPoint,
    port: config.minio.port,
    useSSL: config.minio.useSSL,
    accessKey: config.MINIO_ACCESS_KEY,
    secretKey: config.MINIO_SECRET_KEY,
    region: config.MINIO_REGION,
    pathStyle: true,
  });
  return {
    async list(prefix: string): Promise<string[]> {
      const keys: string[] = [];
      const stream = client.listObjectsV2(config.AUDIO_BUCKET, prefix, true);
      for await (const item of stream as AsyncIterable<{ name?: string }>) {
        if (item.name) keys.push(item.name);
      }
      return keys.sort();
    },
  };
}
