import { executeChild, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

/**
 * Workflows for bench/service.ts only: the orchestration baselines a
 * synthesis is measured against. They touch nothing.
 */
const { noop } = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds' });

/** Start → one no-op activity → complete: the floor of any workflow here. */
export async function benchNoop(): Promise<void> {
  await noop();
}

/** The synthesis workflow's graph (slot, chunks in parallel, finish, credit child, record) with no-op activities. */
export async function benchSynthesisShape(chunks: number): Promise<void> {
  await noop();
  await Promise.all(Array.from({ length: chunks }, () => noop()));
  await noop();
  await executeChild(benchNoop, {});
  await noop();
}
