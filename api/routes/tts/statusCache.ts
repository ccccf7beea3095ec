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
  /**
   * The same for the followers of a running synthesis (status streams): one
   * read shared by every caller of one account and synthesis that asks while
   * it runs or within SHARED_READ_MS after, until a notification about it
   * (then the next caller reads anew). 300 streams on one synthesis cost one
   * read per change, not 300.
   */
  findShared(account: Account, id: string, read: () => Promise<SynthesisStatusRow>): Promise<SynthesisStatusRow>;
  forget(id: string): void;
}

/** How long a followers' shared read is reused without a notification (their keep-alive wake-ups). */
const SHARED_READ_MS = 1_000;

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
  /** The followers' shared reads per synthesis, by account. */
  const shared = new Map<string, Map<string, { at: number; row: Promise<SynthesisStatusRow> }>>();
  const forget = (id: string) => {
    kept.delete(id);
    shared.delete(id);
    for (const read of reading.get(id) ?? []) read.stale = true;
  };
  deps.progress.subscribe({
    notified(channel, payload) {
      if (channel === PROGRESS_CHANNEL) forget(payload);
    },
    reset() {
      kept.clear();
      shared.clear();
      for (const reads of reading.values()) for (const read of reads) read.stale = true;
    },
  });
  return {
    forget,
    findShared(account, id, readRow) {
      const byAccount = shared.get(id) ?? new Map<string, { at: number; row: Promise<SynthesisStatusRow> }>();
      shared.set(id, byAccount);
      const recent = byAccount.get(account.id);
      if (recent && Date.now() - recent.at < SHARED_READ_MS) return recent.row;
      const entry = { at: Date.now(), row: readRow() };
      byAccount.set(account.id, entry);
      const drop = () => {
        if (byAccount.get(account.id) !== entry) return;
        byAccount.delete(account.id);
        if (byAccount.size === 0 && shared.get(id) === byAccount) shared.delete(id);
      };
      // A failed read is not shared with whoever asks next; a finished one is dropped once stale, so the maps stay small.
      entry.row.then(() => setTimeout(drop, SHARED_READ_MS).unref(), drop);
      return entry.row;
    },
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
