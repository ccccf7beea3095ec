import type { Storage } from '../lib/storage';

/**
 * Where a synthesis's objects live in storage, and their removal. Keys are
 * derived from ids only, so a retried step overwrites what it wrote before
 * and every path that removes a synthesis's objects finds all of them.
 */

/** Rendered chunks (and their words) wait here until the synthesis is recorded. */
export const chunkPrefix = (synthesisId: string) => `work/syntheses/${synthesisId}/`;
export const chunkKey = (synthesisId: string, index: number) =>
  `${chunkPrefix(synthesisId)}chunk-${String(index).padStart(4, '0')}.wav`;
/** One chunk's word timings (chunk time), beside the chunk. */
export const chunkWordsKey = (synthesisId: string, index: number) =>
  `${chunkPrefix(synthesisId)}chunk-${String(index).padStart(4, '0')}.words.json`;

/** Every delivered audio of an account (and its timestamps): an account deletion removes the prefix. */
export const accountAudioPrefix = (accountId: string) => `syntheses/${accountId}/`;
/** The delivered audio. */
export const audioKey = (accountId: string, synthesisId: string, format: string) =>
  `${accountAudioPrefix(accountId)}${synthesisId}.${format}`;
/** The delivered audio's word timestamps, beside it. */
export const timestampsKey = (accountId: string, synthesisId: string) =>
  `${accountAudioPrefix(accountId)}${synthesisId}.timestamps.json`;

/**
 * Removes every object a synthesis made: its chunks (and their words), its
 * audio and its word timestamps. Idempotent: what is already gone is skipped.
 */
export async function removeSynthesisObjects(
  storage: Storage,
  synthesis: { id: string; account_id: string; output_format: string },
): Promise<void> {
  await storage.removePrefix(chunkPrefix(synthesis.id));
  await storage.remove(audioKey(synthesis.account_id, synthesis.id, synthesis.output_format));
  await storage.remove(timestampsKey(synthesis.account_id, synthesis.id));
}
