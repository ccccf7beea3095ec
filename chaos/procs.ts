import { readdirSync, readFileSync } from 'node:fs';

/**
 * What /proc says about the processes of a stack: resident memory, open file
 * descriptors and who started whom, for the soak's per-minute samples and the
 * multi-node harness's leftover check. Linux only; a process that exits while
 * it is read is skipped.
 */

export interface ProcInfo {
  pid: number;
  ppid: number;
  comm: string;
  cmdline: string;
  /** VmRSS, MiB. */
  rssMiB: number;
  /** RssAnon, MiB: the process's own memory (PostgreSQL backends also map shared buffers, which VmRSS counts as they are touched). */
  anonMiB: number;
  fds: number;
}

function readProc(pid: number): ProcInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    let fds = 0;
    try {
      fds = readdirSync(`/proc/${pid}/fd`).length;
    } catch {
      fds = NaN;
    }
    return { pid, ppid, comm, cmdline, rssMiB: kib('VmRSS') / 1024, anonMiB: kib('RssAnon') / 1024, fds };
  } catch {
    return null;
  }
}

export function allProcs(): ProcInfo[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProc(Number(name)))
    .filter((info): info is ProcInfo => info !== null);
}

/** Every process below `root` (not `root` itself), at any depth. */
export function descendants(root: number, procs: ProcInfo[]): ProcInfo[] {
  const children = new Map<number, ProcInfo[]>();
  for (const info of procs) children.set(info.ppid, [...(children.get(info.ppid) ?? []), info]);
  const found: ProcInfo[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** Sum of a group of processes: how many, their resident memory and descriptors. */
export interface GroupSample {
  count: number;
  rssMiB: number;
  anonMiB: number;
  fds: number;
}

export function sumGroup(members: ProcInfo[]): GroupSample {
  return members.reduce<GroupSample>(
    (sum, info) => ({
      count: sum.count + 1,
      rssMiB: sum.rssMiB + info.rssMiB,
      anonMiB: sum.anonMiB + info.anonMiB,
      fds: sum.fds + (Number.isFinite(info.fds) ? info.fds : 0),
    }),
    { count: 0, rssMiB: 0, anonMiB: 0, fds: 0 },
  );
}

/** Piper's model hosts (engines/piper/host), Festival interpreters, and everything else a worker runs (espeak-ng, ffmpeg, …). */
export function classifyWorkerChild(info: ProcInfo): 'piper' | 'festival' | 'other' {
  if (/engines\/piper\/host\.(js|ts)\b/.test(info.cmdline)) return 'piper';
  if (info.comm === 'festival') return 'festival';
  return 'other';
}
