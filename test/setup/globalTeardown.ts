import { rm } from 'node:fs/promises';
import { dropDatabase } from '../../scripts/stack';

export default async function globalTeardown(): Promise<void> {
  // Stop what the setup started (a reused service is left alone), newest first.
  for (const service of (globalThis.__openvoxServices ?? []).reverse()) {
    await service.stop().catch(() => undefined);
  }
  if (process.env.DATABASE_URL) await dropDatabase(process.env.DATABASE_URL).catch(() => undefined);
  if (process.env.DATA_DIR?.includes('openvox-test-')) await rm(process.env.DATA_DIR, { recursive: true, force: true });
}
