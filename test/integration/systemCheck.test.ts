import { randomUUID } from 'node:crypto';
import { systemCheck } from '../../workflows';
import { createTestDeps, startTestWorker } from '../helpers/stack';

describe('systemCheck workflow on the real Temporal dev server', () => {
  const deps = createTestDeps();
  afterAll(() => deps.close());

  it('runs its activities against PostgreSQL and MinIO and returns their answers', async () => {
    const testWorker = await startTestWorker(deps);
    try {
      const workflowId = `system-check:${randomUUID()}`;
      const result = await deps.temporal.workflow.execute(systemCheck, {
        workflowId,
        taskQueue: testWorker.taskQueue,
        workflowExecutionTimeout: '1 minute',
      });

      expect(result.database.planCount).toBe(4);
      expect(Math.abs(Date.parse(result.database.serverTime) - Date.now())).toBeLessThan(60_000);
      expect(result.storage).toEqual({ bucket: deps.config.AUDIO_BUCKET, bytes: expect.any(Number) });
      expect(result.storage.bytes).toBeGreaterThan(0);

      // The workflow is recorded on the server, as the Temporal UI shows it.
      const description = await deps.temporal.workflow.getHandle(workflowId).describe();
      expect(description.type).toBe('systemCheck');
      expect(description.status.name).toBe('COMPLETED');
      // The probe object was removed again.
      expect(await deps.storage.size(`system-checks/${workflowId.replace(/[^A-Za-z0-9-]/g, '-')}.txt`)).toBeNull();
    } finally {
      await testWorker.shutdown();
    }
  });
});
