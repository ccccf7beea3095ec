import { CancelledFailure, Context, heartbeat } from '@temporalio/activity';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Runs `work` in a fresh temporary directory, removed afterwards whatever happens. */
export async function inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'openvox-work-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Keeps a slow activity alive for Temporal (a dead worker is noticed within
 * the heartbeat timeout); heartbeats also deliver a cancel, which aborts the
 * work (engines and ffmpeg are killed) through the signal it is given.
 */
export async function withHeartbeat<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const { cancellationSignal } = Context.current();
  heartbeat();
  const timer = setInterval(() => heartbeat(), 2_000);
  try {
    return await work(cancellationSignal);
  } catch (error) {
    if (cancellationSignal.aborted) throw new CancelledFailure('activity canceled');
    throw error;
  } finally {
    clearInterval(timer);
  }
}

/** Stores only while the activity is still wanted: a canceled one must leave nothing behind. */
export function unlessCanceled(signal: AbortSignal): void {
  if (signal.aborted) throw new CancelledFailure('activity canceled');
}
