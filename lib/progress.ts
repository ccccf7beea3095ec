import { Client } from 'pg';
import type { Config } from './config';
import type { Logger } from './logger';

/**
 * How the API learns, while a synthesis runs, that it moved on (a chunk
 * stored, a status changed) without asking Temporal or polling hard:
 * activities `NOTIFY synthesis_progress, '<synthesis id>'` after each step
 * has been written (the object in storage, the row in PostgreSQL; the row's
 * writes and their notifications are synthesis/lifecycle.ts), and each API
 * process keeps one connection that `LISTEN`s and wakes the requests
 * waiting on that id. A notification only says "look again": the truth stays
 * in the row and in storage, so a lost notification (a reconnect) costs at
 * most one fallback interval, never a wrong answer.
 */
export const PROGRESS_CHANNEL = 'synthesis_progress';
/**
 * Credentials stopped working: payload `account:<id>` (an API key of the
 * account was deleted, or the account itself). Sent by database triggers
 * (db/migrations), so every path that deletes one announces it; the API's
 * per-process caches (api/auth/cache.ts) drop what they keep of that account.
 */
export const AUTH_CHANNEL = 'auth_changed';

/** A watch on one synthesis: created before the first read, so no notification after it is missed. */
export interface ProgressWatch {
  /**
   * Resolves at once if a notification came since the last call, else at the
   * next one, after `fallbackMs`, or when `signal` aborts.
   */
  wait(fallbackMs: number, signal?: AbortSignal): Promise<void>;
  close(): void;
}

/** What a per-process cache hears: every notification, and a reset whenever some may have been missed. */
interface NotificationSubscriber {
  notified(channel: string, payload: string): void;
  /** The connection was lost (or closed): anything cached may be stale. */
  reset(): void;
}

export interface ProgressListener {
  /** Starts listening (the connection is opened on first use) for notifications about `synthesisId`. */
  watch(synthesisId: string): Promise<ProgressWatch>;
  /**
   * Resolves true once the connection listens (opening it if needed), false
   * when it cannot: a cache may keep what it reads only while this holds.
   */
  listening(): Promise<boolean>;
  /** Hears every notification of both channels; returns the unsubscribe. */
  subscribe(subscriber: NotificationSubscriber): () => void;
  close(): Promise<void>;
}

interface Watcher {
  pending: boolean;
  wake: (() => void) | null;
}

/** One LISTEN connection per process, opened on first use and reopened after an error. */
export function createProgressListener(config: Pick<Config, 'DATABASE_URL'>, logger?: Logger): ProgressListener {
  const watchers = new Map<string, Set<Watcher>>();
  let connecting: Promise<Client> | null = null;
  let connected = false;
  let closed = false;
  const subscribers = new Set<NotificationSubscriber>();
  const resetSubscribers = () => {
    for (const subscriber of subscribers) subscriber.reset();
  };

  const poke = (watcher: Watcher) => {
    watcher.pending = true;
    watcher.wake?.();
  };
  const pokeAll = () => {
    for (const set of watchers.values()) for (const watcher of set) poke(watcher);
  };
  const connect = (): Promise<Client> => {
    connecting ??= (async () => {
      const client = new Client({ connectionString: config.DATABASE_URL, connectionTimeoutMillis: 2_000 });
      client.on('notification', ({ channel, payload }) => {
        for (const subscriber of subscribers) subscriber.notified(channel, payload ?? '');
        if (channel === PROGRESS_CHANNEL) for (const watcher of watchers.get(payload ?? '') ?? []) poke(watcher);
      });
      client.on('error', (error) => {
        logger?.warn({ err: error }, 'progress listener connection lost');
        connecting = null;
        connected = false;
        void client.end().catch(() => undefined);
        // Whatever was missed is read again by the watchers, and forgotten by the caches.
        resetSubscribers();
        pokeAll();
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${PROGRESS_CHANNEL}; LISTEN ${AUTH_CHANNEL}`);
      } catch (error) {
        connecting = null;
        void client.end().catch(() => undefined);
        throw error;
      }
      connected = true;
      return client;
    })();
    return connecting;
  };

  return {
    async watch(synthesisId) {
      const watcher: Watcher = { pending: false, wake: null };
      const set = watchers.get(synthesisId) ?? new Set();
      watchers.set(synthesisId, set);
      set.add(watcher);
      // Without the connection the watch still works, on its fallback interval.
      await connect().catch((error) => logger?.warn({ err: error }, 'progress listener unavailable; polling'));
      return {
        async wait(fallbackMs, signal) {
          if (closed || signal?.aborted) return;
          if (!watcher.pending) {
            await new Promise<void>((resolve) => {
              const done = () => {
                clearTimeout(timer);
                signal?.removeEventListener('abort', done);
                watcher.wake = null;
                resolve();
              };
              const timer = setTimeout(done, fallbackMs);
              signal?.addEventListener('abort', done, { once: true });
              watcher.wake = done;
            });
          }
          watcher.pending = false;
        },
        close() {
          set.delete(watcher);
          if (set.size === 0 && watchers.get(synthesisId) === set) watchers.delete(synthesisId);
        },
      };
    },
    async listening() {
      if (closed) return false;
      if (connected) return true;
      return connect().then(
        () => connected,
        () => false,
      );
    },
    subscribe(subscriber) {
      subscribers.add(subscriber);
      return () => subscribers.delete(subscriber);
    },
    async close() {
      closed = true;
      connected = false;
      resetSubscribers();
      pokeAll();
      const pending = connecting;
      connecting = null;
      if (pending) await pending.then((client) => client.end()).catch(() => undefined);
    },
  };
}
