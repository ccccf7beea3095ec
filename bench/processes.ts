import { readFileSync } from 'node:fs';
import path from 'node:path';
import { allStats, type ProcStat } from '../chaos/procs';

/**
 * CPU accounting and CPU-profile summaries for bench/service.ts: where a
 * synthesis's time goes, by process and, inside the Node processes, by function.
 */

/** Which processes make up one part of the stack: matched on every snapshot, so restarted processes count too. */
export interface ProcessGroup {
  name: string;
  match: (stat: ProcStat) => boolean;
  /** Count the CPU of exited children (e.g. the engine processes a worker spawned) under `childrenName`. */
  childrenName?: string;
}

export type CpuSnapshot = Map<string, number>;

export function cpuSnapshot(groups: ProcessGroup[]): CpuSnapshot {
  const totals: CpuSnapshot = new Map();
  const add = (name: string, seconds: number) => totals.set(name, (totals.get(name) ?? 0) + seconds);
  for (const stat of allStats()) {
    const group = groups.find((candidate) => candidate.match(stat));
    if (!group) continue;
    add(group.name, group.childrenName ? stat.cpuOwn : stat.cpuOwn + stat.cpuChildren);
    if (group.childrenName) add(group.childrenName, stat.cpuChildren);
  }
  return totals;
}

/**
 * CPU seconds per group between two snapshots. Processes that exited in
 * between lose their last seconds (a worker restarted between phases is
 * snapshotted anew, so phases do not straddle restarts).
 */
export function cpuDelta(before: CpuSnapshot, after: CpuSnapshot): Map<string, number> {
  const delta = new Map<string, number>();
  for (const [name, seconds] of after) delta.set(name, Math.max(0, seconds - (before.get(name) ?? 0)));
  return delta;
}

/** Resident memory of a process now (Linux VmRSS), MiB; NaN without one. */
export function currentRssMiB(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Peak resident memory of a process (Linux VmHWM), MiB. */
export function peakRssMiB(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  startTime: number;
  endTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: a package, our own source, Node's internals, or the engine. */
function owner(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return url;
  const own = /\/dist\/(.+)$/.exec(url);
  return own ? own[1] : path.basename(url);
}

/**
 * Self time of a V8 CPU profile (`node --cpu-prof`) by owner (package,
 * file or node: module) and by function, as shares of the busy (not idle) sampled time.
 * `lastSeconds` keeps only the samples of the profile's last seconds (a measured phase, without the start-up).
 */
export function summarizeProfile(
  file: string,
  top = 12,
  lastSeconds = Infinity,
): { byOwner: [string, number][]; byFunction: [string, number][]; seconds: number } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  const from = profile.endTime - lastSeconds * 1e6;
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index] ?? 0;
    if (at >= from) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const busy = [...selfMicros.entries()].filter(([id]) => nodes.get(id)!.callFrame.functionName !== '(idle)');
  const total = busy.reduce((sum, [, micros]) => sum + micros, 0);
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, micros] of busy) {
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    const where = owner(url, functionName);
    byOwner.set(where, (byOwner.get(where) ?? 0) + micros);
    const name = `${functionName || '(anonymous)'} ${where}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  }
  const share = (entries: Map<string, number>) =>
    [...entries.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]): [string, number] => [name, micros / total]);
  return { byOwner: share(byOwner), byFunction: share(byFunction), seconds: total / 1e6 };
}
