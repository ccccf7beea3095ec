import { pingDb } from '../../../db/knex';
import { pingTemporal } from '../../../lib/temporal';
import type { ApiDeps } from '../../deps';

export type DependencyName = 'postgresql' | 'temporal' | 'minio';
export interface DependencyState {
  status: 'up' | 'down';
  latency_ms: number;
  error?: string;
}

const CHECK_TIMEOUT_MS = 1_500;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function check(probe: () => Promise<unknown>): Promise<DependencyState> {
  const started = performance.now();
  try {
    await withTimeout(probe(), CHECK_TIMEOUT_MS);
    return { status: 'up', latency_ms: Math.round(performance.now() - started) };
  } catch (error) {
    // The message is for operators; it names no host beyond the dependency.
    const message = error instanceof Error ? error.message : String(error);
    return { status: 'down', latency_ms: Math.round(performance.now() - started), error: message.slice(0, 200) };
  }
}

/** Probes every dependency in parallel; each answers or fails within CHECK_TIMEOUT_MS. */
export async function checkDependencies({
  db,
  temporal,
  storage,
}: ApiDeps): Promise<Record<DependencyName, DependencyState>> {
  const [postgresql, temporalState, minio] = await Promise.all([
    check(() => pingDb(db)),
    check(() => pingTemporal(temporal, CHECK_TIMEOUT_MS)),
    check(() => storage.ping()),
  ]);
  return { postgresql, temporal: temporalState, minio };
}
