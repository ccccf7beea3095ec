import type { ActivityDeps } from '.';
import { SubscriptionPlan } from '../db/models/SubscriptionPlan';

/** Probes run by the systemCheck workflow: they prove the worker reaches its dependencies. */
export function createSystemCheckActivities({ db, storage }: ActivityDeps) {
  return {
    async probeDatabase(): Promise<{ serverTime: string; planCount: number }> {
      const { rows } = await db.raw<{ rows: { now: Date }[] }>('select now() as now');
      const planCount = await SubscriptionPlan.query(db).resultSize();
      return { serverTime: rows[0].now.toISOString(), planCount };
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
