import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { probeDatabase, probeStorage } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

export interface SystemCheckResult {
  database: { serverTime: string; planCount: number };
  storage: { bucket: string; bytes: number };
}

/** `system-check:<uuid>`: proves worker, PostgreSQL and MinIO work together; start it from the Temporal UI or CLI. */
export async function systemCheck(): Promise<SystemCheckResult> {
  const { workflowId } = workflowInfo();
  const [database, storage] = await Promise.all([
    probeDatabase(),
    probeStorage(`system-checks/${workflowId.replace(/[^A-Za-z0-9-]/g, '-')}.txt`),
  ]);
  return { database, storage };
}
