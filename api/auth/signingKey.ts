import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Config, ConfigError } from '../../lib/config';
import { randomSecret } from '../../lib/secrets';

/**
 * The HS256 key that signs access and refresh tokens: JWT_SECRET, or in
 * development a random one generated once and kept in DATA_DIR (mode 0600)
 * so tokens survive restarts. Production must set JWT_SECRET.
 */
export function loadSigningKey(config: Pick<Config, 'JWT_SECRET' | 'NODE_ENV' | 'DATA_DIR'>): Uint8Array {
  if (config.JWT_SECRET) return new TextEncoder().encode(config.JWT_SECRET);
  if (config.NODE_ENV === 'production')
    throw new ConfigError('invalid configuration:\n  JWT_SECRET: required in production');
  const file = path.join(config.DATA_DIR, 'jwt-secret');
  if (!existsSync(file)) {
    mkdirSync(config.DATA_DIR, { recursive: true });
    // 'wx' fails if another process created it first; then we read theirs.
    try {
      writeFileSync(file, randomSecret(48), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  chmodSync(file, 0o600);
  return new TextEncoder().encode(readFileSync(file, 'utf8').trim());
}
