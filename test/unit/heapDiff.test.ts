import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { diffSummaries, heapDiffTable, summarizeSnapshot } from '../../chaos/heapDiff';

/** Instances kept alive between the two snapshots: what a leak looks like in them. */
class SoakHeapDiffLeak {
  constructor(readonly payload: number[]) {}
}

describe('heap snapshot diff', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'heapdiff-'));
  const kept: SoakHeapDiffLeak[] = [];
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the constructor whose instances were retained between two real snapshots, with their count', () => {
    const before = writeHeapSnapshot(path.join(dir, 'before.heapsnapshot'));
    for (let i = 0; i < 5_000; i++) kept.push(new SoakHeapDiffLeak([i, i + 1, i + 2]));
    const after = writeHeapSnapshot(path.join(dir, 'after.heapsnapshot'));

    const summaryBefore = summarizeSnapshot(readFileSync(before, 'utf8'));
    const summaryAfter = summarizeSnapshot(readFileSync(after, 'utf8'));
    const count = (list: typeof summaryBefore) => list.find((group) => group.name === 'SoakHeapDiffLeak')?.count ?? 0;
    expect(count(summaryBefore)).toBe(0);
    expect(count(summaryAfter)).toBe(kept.length);
    const leak = diffSummaries(summaryBefore, summaryAfter).find((change) => change.name === 'SoakHeapDiffLeak')!;
    expect(leak.countAfter - leak.countBefore).toBe(5_000);
    expect(leak.bytesAfter).toBeGreaterThan(5_000 * 8);
    expect(heapDiffTable(before, after, 1_000)).toContain('| SoakHeapDiffLeak | 0 | 5000 |');
  });

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
});
