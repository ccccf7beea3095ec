import { readdirSync, readFileSync } from 'node:fs';

/**
 * What /proc says about the processes of a stack: resident memory, open file
 * descriptors and who started whom, for the soak's per-minute samples and the
 * multi-node harness's leftover check. Linux only; a process that exits while
 * it is read is skipped.
 */

/** Linux clock ticks per second (USER_HZ), the unit of /proc/<pid>/stat times. */
const TICKS_PER_SECOND = 100;

/** What /proc/<pid>/stat and cmdline say of a process. */
export interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** The arguments, each followed by a space. */
  cmdline: string;
  /** CPU seconds the process used itself. */
  cpuOwn: number;
  /** CPU seconds of its children that exited and were waited for (engines and ffmpeg for the worker). */
  cpuChildren: number;
}

export interface ProcInfo extends ProcStat {
  /** VmRSS, MiB. */
  rssMiB: number;
  /** RssAnon, MiB: the process's own memory (PostgreSQL backends also map shared buffers, which VmRSS counts as they are touched). */
  anonMiB: number;
  fds: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm may contain spaces and parentheses: the fields start after the last ')'.
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 4 and 14-17 of proc(5) (ppid; utime stime cutime cstime) are 1 and 11-14 here.
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    return {
      pid,
      ppid: Number(fields[1]),
      comm,
      cmdline,
      cpuOwn: (utime + stime) / TICKS_PER_SECOND,
      cpuChildren: (cutime + cstime) / TICKS_PER_SECOND,
    };
  } catch {
    return null;
  }
}

function readProc(pid: number): ProcInfo | null {
  const stat = readStat(pid);
  if (!stat) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    let fds = 0;
    try {
      fds = readdirSync(`/proc/${pid}/fd`).length;
    } catch {
      fds = NaN;
    }
    return { ...stat, rssMiB: kib('VmRSS') / 1024, anonMiB: kib('RssAnon') / 1024, fds };
  } catch {
    return null;
  }
}

const pids = () =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);

/** Every process's stat and command line (cheap: for CPU accounting). */
export const allStats = (): ProcStat[] => pids().flatMap((pid) => readStat(pid) ?? []);

/** Every process, with its memory and descriptors. */
export const allProcs = (): ProcInfo[] => pids().flatMap((pid) => readProc(pid) ?? []);

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
