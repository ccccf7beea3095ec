import { ApplicationFailure, CancelledFailure, Context, heartbeat } from '@temporalio/activity';
import { unavailableDependency } from '../lib/unavailable';
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
export async function withHeartbeat<T>(
  work: (signal: AbortSignal) => Promise<T>,
  /** What each heartbeat carries, for the next attempt (Context.current().info.heartbeatDetails) to resume from. */
  details?: () => unknown,
): Promise<T> {
  const { cancellationSignal } = Context.current();
  const beat = () => heartbeat(details?.());
  beat();
  // Often enough that a cancel (delivered with a heartbeat's answer, at most one a second: the CPU workers'
  // maxHeartbeatThrottleInterval) reaches the render within about a second; the SDK sends no more than that.
  const timer = setInterval(beat, 500);
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

/** Attempts an engine error gets (a crashed engine process is replaced) before the synthesis fails. */
const ENGINE_ATTEMPTS = 3;

/**
 * Turns what a synthesis activity threw into a retry decision (its retry
 * policy has no attempt limit; this decides):
 * - a backing service down (object storage, PostgreSQL): retried with
 *   Temporal's backoff until `retryWindowMs` after the first attempt, then
 *   `StorageUnavailable` (or `DependencyUnavailable`), so an outage is waited out;
 * - anything else is the engine or the audio pipeline: `EngineFailed` after
 *   ENGINE_ATTEMPTS attempts, so bad text fails fast.
 */
export async function classifyFailures<T>(retryWindowMs: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CancelledFailure || error instanceof ApplicationFailure) throw error;
    const { attempt, scheduledTimestampMs } = Context.current().info;
    const message = error instanceof Error ? error.message : String(error);
    const dependency = unavailableDependency(error);
    if (dependency) {
      if (Date.now() - scheduledTimestampMs < retryWindowMs) throw error;
      throw ApplicationFailure.nonRetryable(
        message,
        dependency === 'object storage' ? 'StorageUnavailable' : 'DependencyUnavailable',
      );
    }
    if (attempt < ENGINE_ATTEMPTS) throw error;
    throw ApplicationFailure.nonRetryable(message, 'EngineFailed');
  }
}
