import { createHash, randomBytes } from 'node:crypto';

/** A URL-safe random secret (`[A-Za-z0-9_-]`) of `bytes` bytes of entropy. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * SHA-256 of a high-entropy secret (API key, refresh-token id, verification
 * token): what is stored and looked up, cheap enough for every request.
 */
export function sha256(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}
