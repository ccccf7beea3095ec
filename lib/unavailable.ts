import { StorageUnavailableError } from './storage';

/**
 * Which backing service an error says is down (PostgreSQL, object storage, or
 * some network peer), or null for any other error. The API answers these with
 * 503; activities wait them out with retries.
 */

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
]);
// PostgreSQL: admin shutdown, crash shutdown, cannot connect now, too many connections.
const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300']);

export function unavailableDependency(thrown: unknown): 'postgresql' | 'object storage' | 'a backing service' | null {
  if (thrown instanceof StorageUnavailableError) return 'object storage';
  const error = (thrown ?? {}) as { name?: string; code?: unknown; message?: string };
  const code = typeof error.code === 'string' ? error.code : '';
  if (error.name === 'KnexTimeoutError' || PG_UNAVAILABLE.has(code)) return 'postgresql';
  if (error.message?.includes('Connection terminated')) return 'postgresql';
  if (NETWORK_CODES.has(code)) return 'a backing service';
  return null;
}
