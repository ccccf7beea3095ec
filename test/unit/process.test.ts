import os from 'node:os';
import { run } from '../../lib/process';

describe('run', () => {
  it("runs a program at the nice value asked for, and at the caller's without one", async () => {
    // The program reads its own nice value (field 19 of /proc/<pid>/stat) a moment after it started.
    const niceOf = async (niceness?: number) =>
      Number((await run('sh', ['-c', 'sleep 0.3; cut -d" " -f19 /proc/$$/stat'], { niceness })).stdout.toString());
    expect(await niceOf(6)).toBe(6);
    expect(await niceOf()).toBe(os.getPriority());
  });
});
