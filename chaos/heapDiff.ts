import { readFileSync } from 'node:fs';

/**
 * What grew between two V8 heap snapshots (`.heapsnapshot`, as the soak's heap
 * probe writes them): objects counted and their self size summed by
 * constructor (other kinds of node by their type: `(string)`, `(closure)`,
 * `(code)`, …), and the difference. Self sizes, not retained sizes: a leak
 * shows as a constructor whose count keeps rising, whatever holds it.
 */

export interface HeapGroup {
  name: string;
  count: number;
  bytes: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Objects of a snapshot by constructor (or node type), largest first. */
export function summarizeSnapshot(json: string): HeapGroup[] {
  const { snapshot, nodes, strings } = JSON.parse(json) as Snapshot;
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field));
  const groups = new Map<string, HeapGroup>();
  for (let at = 0; at < nodes.length; at += width) {
    const type = types[nodes[at + typeAt]];
    const name = type === 'object' || type === 'native' ? strings[nodes[at + nameAt]] : `(${type})`;
    const group = groups.get(name) ?? { name, count: 0, bytes: 0 };
    group.count += 1;
    group.bytes += nodes[at + sizeAt];
    groups.set(name, group);
  }
  return [...groups.values()].sort((a, b) => b.bytes - a.bytes);
}

export interface HeapChange {
  name: string;
  countBefore: number;
  countAfter: number;
  bytesBefore: number;
  bytesAfter: number;
}

/** Every group's count and size in both snapshots, the largest growth in bytes first. */
export function diffSummaries(before: HeapGroup[], after: HeapGroup[]): HeapChange[] {
  const names = new Set([...before, ...after].map((group) => group.name));
  const of = (list: HeapGroup[]) => new Map(list.map((group) => [group.name, group]));
  const [a, b] = [of(before), of(after)];
  return [...names]
    .map((name) => ({
      name,
      countBefore: a.get(name)?.count ?? 0,
      countAfter: b.get(name)?.count ?? 0,
      bytesBefore: a.get(name)?.bytes ?? 0,
      bytesAfter: b.get(name)?.bytes ?? 0,
    }))
    .sort((x, y) => y.bytesAfter - y.bytesBefore - (x.bytesAfter - x.bytesBefore));
}

/** A markdown table of the `top` largest growths between two snapshot files, and the totals. */
export function heapDiffTable(beforeFile: string, afterFile: string, top = 25): string {
  const before = summarizeSnapshot(readFileSync(beforeFile, 'utf8'));
  const after = summarizeSnapshot(readFileSync(afterFile, 'utf8'));
  const kib = (bytes: number) => (bytes / 1024).toFixed(1);
  const total = (list: HeapGroup[]) => list.reduce((sum, group) => sum + group.bytes, 0);
  const count = (list: HeapGroup[]) => list.reduce((sum, group) => sum + group.count, 0);
  const rows = [
    `Total: ${count(before)} → ${count(after)} objects, ${kib(total(before))} → ${kib(total(after))} KiB.`,
    '',
    '| constructor | count before | count after | KiB before | KiB after | Δ KiB |',
    '|---|---|---|---|---|---|',
  ];
  for (const change of diffSummaries(before, after).slice(0, top))
    rows.push(
      `| ${change.name.replace(/\|/g, '\\|').slice(0, 60)} | ${change.countBefore} | ${change.countAfter} | ${kib(change.bytesBefore)} | ${kib(change.bytesAfter)} | ${kib(change.bytesAfter - change.bytesBefore)} |`,
    );
  return rows.join('\n');
}

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

export interface AllocationSite {
  /** The allocating frame and its callers, innermost first. */
  stack: string[];
  bytes: number;
}

/**
 * A sampling heap profile (`.heapprofile`, V8's HeapProfiler.getSamplingProfile):
 * what was allocated since sampling started and is still alive, by allocation
 * stack, the largest first. V8 scales each sample's size to what it stands for.
 */
export function summarizeSamplingProfile(json: string): AllocationSite[] {
  const { head } = JSON.parse(json) as { head: ProfileNode };
  const sites: AllocationSite[] = [];
  const frame = ({ functionName, url, lineNumber }: ProfileNode['callFrame']) =>
    `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}`;
  const walk = (node: ProfileNode, callers: string[]) => {
    const stack = [frame(node.callFrame), ...callers];
    if (node.selfSize > 0) sites.push({ stack, bytes: node.selfSize });
    for (const child of node.children) walk(child, stack);
  };
  for (const child of head.children) walk(child, []);
  return sites.sort((a, b) => b.bytes - a.bytes);
}

/** The `top` largest live allocation sites of a sampling heap profile, with `depth` frames each. */
export function samplingProfileTable(file: string, top = 20, depth = 6): string {
  const sites = summarizeSamplingProfile(readFileSync(file, 'utf8'));
  const total = sites.reduce((sum, site) => sum + site.bytes, 0);
  return [
    `Alive at the end and allocated since sampling started: ${(total / 1024).toFixed(1)} KiB in ${sites.length} stacks.`,
    '',
    '| KiB | stack (innermost first) |',
    '|---|---|',
    ...sites
      .slice(0, top)
      .map(
        (site) =>
          `| ${(site.bytes / 1024).toFixed(1)} | ${site.stack.slice(0, depth).join(' ← ').replace(/\|/g, '\\|')} |`,
      ),
  ].join('\n');
}
