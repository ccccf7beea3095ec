import { executeChild, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { BenchActivities } from './worker';

/**
 * Workflows for bench/service.ts only: the orchestration baselines a
 * synthesis is measured against. They touch nothing, and only the
 * benchmark's own worker (./worker.ts) loads them: the service's workflow
 * bundle does not carry them.
 */
const { noop } = proxyActivities<BenchActivities>({ startToCloseTimeout: '10 seconds' });
const local = proxyLocalActivities<BenchActivities>({ startToCloseTimeout: '10 seconds' });

/** Start → one no-op activity → complete: the floor of any workflow here. */
export async function benchNoop(): Promise<void> {
  await noop();
}

/** A credit capture's shape: one local activity. */
export async function benchCreditShape(): Promise<void> {
  await local.noop();
}

/**
 * The synthesis workflow's graph with no-op activities: slot (local), the
 * render (one step, or chunks in parallel then the finish), the credit
 * capture child, record (local).
 */
export async function benchSynthesisShape(chunks: number): Promise<void> {
  await local.noop();
  if (chunks === 1) {
    await noop();
  } else {
    await Promise.all(Array.from({ length: chunks }, () => noop()));
    await noop();
  }
  await executeChild(benchCreditShape, {});
  await local.noop();
}
