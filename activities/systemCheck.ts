import type { ActivityDeps } from '.';

/** Probes run by the systemCheck workflow: they prove the worker reaches its dependencies. */
export function createSystemCheckActivities({ db, storage }: ActivityDeps) {
  return {
    async probeDatabase(): Promise<{ serverTime: string; planCount: number }> {
      const { rows } = await db.raw<{ rows: { now: Date }[] }>('select now() as now');
      const [{ count }] = await db('subscription_plans').count<{ count: string }[]>({ count: '*' });
      return { serverTime: rows[0].now.toISOString(), planCount: Number(count) };
    },

    /** Writes, reads back and deletes a small object under a key derived from the workflow. */
    async probeStorage(key: string): Promise<{ bucket: string; bytes: number }> {
      const body = Buffer.from(`system check ${key}`);
      await storage.put(key, body, 'text/plain');
      const size = await storage.size(key);
      await storage.remove(key);
      if (size !== body.length) throw new Error(`stored ${body.length} bytes, read back ${size}`);
      return { bucket: storage.bucket, bytes: size };
    },
  };
}
