import type { Account } from '../../../db/models/Account';
import type { SynthesisStatusRow } from '../../../db/models/Synthesis';
import { PROGRESS_CHANNEL, type ProgressListener } from '../../../lib/progress';
import type { ApiDeps } from '../../deps';

/**
 * Per-process memory of ended syntheses' statuses: a client that polls a
 * finished synthesis (or several clients, or a dashboard) costs no
 * PostgreSQL read. An ended status changes only when the entry is deleted,
 * and every deletion NOTIFYs `synthesis_progress` (a trigger,
 * db/migrations/012_auth_notify.ts), which drops the entry in every API
 * process; the process that deletes drops it before it answers. Nothing is
 * kept while the LISTEN connection is down, and a read that a notification
 * for its synthesis overtook is not kept.
 */

const ENDED = new Set(['completed', 'failed', 'canceled']);
const MAX_ENTRIES = 20_000;

export interface StatusCache {
  /** The caller's synthesis status (`read` reads it), from memory when it had ended. */
  find(account: Account, id: string, read: () => Promise<SynthesisStatusRow>): Promise<SynthesisStatusRow>;
  forget(id: string): void;
}

const caches = new WeakMap<ProgressListener, StatusCache>();

export function statusCacheOf(deps: ApiDeps): StatusCache {
  let cache = caches.get(deps.progress);
  if (!cache) {
    cache = createStatusCache(deps);
    caches.set(deps.progress, cache);
  }
  return cache;
}

function createStatusCache(deps: ApiDeps): StatusCache {
  const kept = new Map<string, { accountId: string; row: SynthesisStatusRow }>();
  /** Reads in flight per synthesis; a notification marks them stale. */
  const reading = new Map<string, Set<{ stale: boolean }>>();
  const forget = (id: string) => {
    kept.delete(id);
    for (const read of reading.get(id) ?? []) read.stale = true;
  };
  deps.progress.subscribe({
    notified(channel, payload) {
      if (channel === PROGRESS_CHANNEL) forget(payload);
    },
    reset() {
      kept.clear();
      for (const reads of reading.values()) for (const read of reads) read.stale = true;
    },
  });
  return {
    forget,
    async find(account, id, readRow) {
      const hit = kept.get(id);
      if (hit && hit.accountId === account.id) return hit.row;
      const read = { stale: false };
      const reads = reading.get(id) ?? new Set();
      reading.set(id, reads);
      reads.add(read);
      try {
        const listening = await deps.progress.listening();
        const row = await readRow();
        if (listening && !read.stale && ENDED.has(row.status)) {
          if (kept.size >= MAX_ENTRIES) kept.delete(kept.keys().next().value!);
          kept.set(id, { accountId: account.id, row });
        }
        return row;
      } finally {
        reads.delete(read);
        if (reads.size === 0) reading.delete(id);
      }
    },
  };
}
