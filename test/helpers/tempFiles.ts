import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * A temporary directory for the file's tests, made in beforeAll and removed
 * in afterAll; returns a function naming a new file in it: `file('wav')`.
 */
export function useTempFiles(prefix: string): (ext: string) => string {
  let work: string | undefined;
  let counter = 0;
  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), prefix));
  });
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });
  return (ext) => {
    if (!work) throw new Error('useTempFiles: name files inside a test or a later hook');
    return path.join(work, `${++counter}.${ext}`);
  };
}
