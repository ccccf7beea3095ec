import type { Config } from '../../lib/config';
import { createStorage } from '../../lib/storage';

/** Lists object keys in the audio bucket, so a test can prove nothing is left under a prefix. */
export function createObjectLister(config: Config) {
  const storage = createStorage(config);
  return { list: (prefix: string) => storage.list(prefix) };
}
