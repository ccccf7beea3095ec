import type { Account } from '../../db/models/Account';
import { AUTH_CHANNEL, type ProgressListener } from '../../lib/progress';

/**
 * Per-process memory of who a credential is, for AUTH_CACHE_SECONDS: a
 * status poll or an SSE reconnect then costs no JWT verification and no
 * account read. Coherent with revocation: deleting an API key or an account
 * fires a trigger that NOTIFYs `auth_changed` (lib/progress.ts), every API
 * process drops what it keeps of that account, and the process that deleted
 * drops it at once, before it answers. Nothing is kept while the LISTEN
 * connection is down (a notification could be missed), and a read that a
 * notification overtook is not kept.
 */

interface Identity {
  accountId: string;
  /** For an API key: its row, whose last use is written at most once a minute. */
  keyId?: string;
  lastUsedAt?: number;
  until: number;
}

const MAX_ENTRIES = 10_000;

export interface AuthCache {
  /** Who the credential is, if kept and still fresh. */
  identity(credential: string): Identity | undefined;
  /**
   * Runs `read` and keeps its answer, unless a revocation came meanwhile or
   * nothing listens for revocations.
   */
  rememberIdentity(credential: string, read: () => Promise<Identity | null>): Promise<Identity | null>;
  /** The account, as read at most AUTH_CACHE_SECONDS ago: for reads that need only who it is (id). */
  account(accountId: string, read: () => Promise<Account | undefined>): Promise<Account | undefined>;
  /** Drops everything kept of the account (its keys, its tokens, its row). */
  forgetAccount(accountId: string): void;
  ttlMs: number;
}

const caches = new WeakMap<ProgressListener, AuthCache>();

/** The process's auth cache, one per listener (the API's deps share one). */
export function authCacheOf(progress: ProgressListener, ttlSeconds: number): AuthCache {
  let cache = caches.get(progress);
  if (!cache) {
    cache = createAuthCache(progress, ttlSeconds * 1000);
    caches.set(progress, cache);
  }
  return cache;
}

function createAuthCache(progress: ProgressListener, ttlMs: number): AuthCache {
  const identities = new Map<string, Identity>();
  const accounts = new Map<string, { account: Account; until: number }>();
  /** Bumped by every revocation and reset: a read that saw it change keeps nothing. */
  let generation = 0;
  const forgetAccount = (accountId: string) => {
    generation += 1;
    accounts.delete(accountId);
    for (const [credential, identity] of identities)
      if (identity.accountId === accountId) identities.delete(credential);
  };
  progress.subscribe({
    notified(channel, payload) {
      if (channel === AUTH_CHANNEL && payload.startsWith('account:')) forgetAccount(payload.slice('account:'.length));
    },
    reset() {
      generation += 1;
      identities.clear();
      accounts.clear();
    },
  });
  /** Keeps `value` under `key` when nothing intervened; the oldest entry goes when full. */
  const keep = async <V>(map: Map<string, V>, key: string, read: () => Promise<V | null | undefined>) => {
    const seen = generation;
    const listening = ttlMs > 0 && (await progress.listening());
    const value = await read();
    if (value && listening && seen === generation) {
      if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
      map.set(key, value);
    }
    return value;
  };
  return {
    ttlMs,
    identity(credential) {
      const identity = identities.get(credential);
      if (identity && identity.until > Date.now()) return identity;
      if (identity) identities.delete(credential);
      return undefined;
    },
    rememberIdentity: (credential, read) => keep(identities, credential, read).then((value) => value ?? null),
    async account(accountId, read) {
      const kept = accounts.get(accountId);
      if (kept && kept.until > Date.now()) return kept.account;
      const entry = await keep(accounts, accountId, async () => {
        const account = await read();
        return account ? { account, until: Date.now() + ttlMs } : undefined;
      });
      return entry?.account;
    },
    forgetAccount,
  };
}
