import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  diffSummaries,
  heapDiffTable,
  samplingProfileTable,
  summarizeSamplingProfile,
  summarizeSnapshot,
} from '../../chaos/heapDiff';

/**
 * Two heap snapshots of a small node process of their own, instances of a class kept alive between them: what a
 * leak looks like in them. (Not this jest worker's heap: after a suite's worth of tests it holds gigabytes, and
 * snapshotting it took many minutes.)
 */
const LEAKING_PROCESS = `
  const { writeHeapSnapshot } = require('node:v8');
  class SoakHeapDiffLeak { constructor(payload) { this.payload = payload; } }
  const [before, after] = process.argv.slice(1);
  const kept = [];
  writeHeapSnapshot(before);
  for (let i = 0; i < 5000; i++) kept.push(new SoakHeapDiffLeak([i, i + 1, i + 2]));
  writeHeapSnapshot(after);
  process.stdout.write(String(kept.length));
`;

describe('heap snapshot diff', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'heapdiff-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the constructor whose instances were retained between two real snapshots, with their count', () => {
    const [before, after] = [path.join(dir, 'before.heapsnapshot'), path.join(dir, 'after.heapsnapshot')];
    const kept = Number(execFileSync(process.execPath, ['-e', LEAKING_PROCESS, before, after], { encoding: 'utf8' }));
    expect(kept).toBe(5_000);

    const summaryBefore = summarizeSnapshot(readFileSync(before, 'utf8'));
    const summaryAfter = summarizeSnapshot(readFileSync(after, 'utf8'));
    const count = (list: typeof summaryBefore) => list.find((group) => group.name === 'SoakHeapDiffLeak')?.count ?? 0;
    expect(count(summaryBefore)).toBe(0);
    expect(count(summaryAfter)).toBe(kept);
    const leak = diffSummaries(summaryBefore, summaryAfter).find((change) => change.name === 'SoakHeapDiffLeak')!;
    expect(leak.countAfter - leak.countBefore).toBe(5_000);
    expect(leak.bytesAfter).toBeGreaterThan(5_000 * 8);
    expect(heapDiffTable(before, after, 1_000)).toContain('| SoakHeapDiffLeak | 0 | 5000 |');
  }, 120_000);

  it('orders the changes by growth in bytes, a group gone counted as shrinking', () => {
    const changes = diffSummaries(
      [
        { name: 'A', count: 10, bytes: 1_000 },
        { name: 'Gone', count: 5, bytes: 500 },
      ],
      [
        { name: 'A', count: 11, bytes: 1_100 },
        { name: 'New', count: 2, bytes: 4_000 },
      ],
    );
    expect(changes.map((change) => [change.name, change.bytesAfter - change.bytesBefore])).toEqual([
      ['New', 4_000],
      ['A', 100],
      ['Gone', -500],
    ]);
  });

  it('names the stack that allocated what is still alive in a real sampling heap profile', async () => {
    const session = new Session();
    session.connect();
    const post = (method: string, params?: object) =>
      new Promise<unknown>((resolve, reject) =>
        session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
      );
    await post('HeapProfiler.enable');
    await post('HeapProfiler.startSampling', { samplingInterval: 1_024 });
    const retained: number[][] = [];
    function soakHeapDiffAllocator() {
      for (let i = 0; i < 20_000; i++) retained.push([i, i, i, i]);
    }
    soakHeapDiffAllocator();
    const { profile } = (await post('HeapProfiler.getSamplingProfile')) as { profile: unknown };
    await post('HeapProfiler.stopSampling');
    session.disconnect();
    const file = path.join(dir, 'live.heapprofile');
    writeFileSync(file, JSON.stringify(profile));

    const sites = summarizeSamplingProfile(readFileSync(file, 'utf8'));
    const ours = sites.filter((site) => site.stack[0].startsWith('soakHeapDiffAllocator '));
    expect(retained).toHaveLength(20_000);
    // 20 000 arrays of four small integers: well over 500 KiB, whatever V8's exact layout.
    expect(ours.reduce((sum, site) => sum + site.bytes, 0)).toBeGreaterThan(500 * 1024);
    expect(sites[0].bytes).toBeGreaterThanOrEqual(sites[sites.length - 1].bytes);
    expect(samplingProfileTable(file)).toContain('soakHeapDiffAllocator');
  });
});
