import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import type { Config } from './config';

/** The typed Temporal client the API uses to start, signal and describe workflows. */
export function createTemporalClient(config: Config): Client {
  // Lazy: the API starts (and /readyz reports it) even while Temporal is down.
  const connection = Connection.lazy({
    address: config.TEMPORAL_ADDRESS,
    connectTimeout: '2 seconds',
    // No hidden gRPC retries: an unreachable Temporal becomes a prompt 503 with
    // Retry-After instead of a request that hangs through ten backoffs.
    interceptors: [],
  });
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}

/** Resolves when the Temporal frontend answers; rejects within the timeout otherwise. */
export async function pingTemporal(client: Client, timeoutMs = 1_500): Promise<void> {
  await client.connection.withDeadline(Date.now() + timeoutMs, () => client.workflowService.getSystemInfo({}));
}

/** The task queue of the CPU-heavy synthesis activities (one per worker process, concurrency = cores). */
export function cpuTaskQueue(config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>): string {
  return `${config.TEMPORAL_TASK_QUEUE}-cpu`;
}

/** Webhook delivery attempts: a queue of their own with WEBHOOK_CONCURRENCY slots, so receivers that hang never hold the slots of mails and bookkeeping. */
export function webhookTaskQueue(config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>): string {
  return `${config.TEMPORAL_TASK_QUEUE}-webhooks`;
}

/**
 * Waits up to `ms` for a workflow the caller started to finish, and returns
 * either way: a removal normally completes before the client's answer, and
 * during an outage finishes later on its own.
 */
export async function awaitBriefly(client: Client, handle: { result(): Promise<unknown> }, ms = 5_000): Promise<void> {
  await client.connection.withDeadline(Date.now() + ms, () => handle.result()).catch(() => undefined);
}

/** Asks a workflow to cancel; one that has ended (or never started) needs nothing. */
export async function requestCancel(handle: { cancel(): Promise<unknown> }): Promise<void> {
  try {
    await handle.cancel();
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}

/**
 * Starts the workflow that removes the stored objects of `id` (a synthesis's
 * audio, a voice's sample), once per workflow id: a repeated request joins the
 * removal already running. Wait for it with awaitBriefly.
 */
export function startRemoval(
  { temporal, config }: { temporal: Client; config: Pick<Config, 'TEMPORAL_TASK_QUEUE'> },
  removal: { workflow: (id: string) => Promise<void>; workflowId: string; id: string },
) {
  return temporal.workflow.start(removal.workflow, {
    workflowId: removal.workflowId,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    args: [removal.id],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}
