import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { holdProcess } from '../../lib/process';

/**
 * espeak-ng kept running per espeak voice, for Piper's phonemes: a process
 * costs ~15-25 ms of CPU to start (its data files), more than phonemizing a
 * clause. With no text argument the CLI reads its input line by line, each
 * line one synthesis of its own (espeak-ng.c: `fgets` of up to 999 bytes,
 * then `espeak_Synth`, then `fflush(stdout)`): the same call a one-clause
 * process makes, so the phonemes are the same (test/integration/piperPhonemes.test.ts).
 *
 * Matching the output to the input: a line of only punctuation (`.`) prints
 * one empty line, and a line with letters or digits prints only non-empty
 * lines. So every clause is written as its lines (those with something to
 * say) followed by a `.` line, and its IPA is what comes before the next
 * empty line. Each request ends with a fixed word whose IPA is known: if that
 * is not what comes last, the output and the input have come apart (an
 * espeak-ng that printed an empty line of its own), the process is dropped
 * and the caller falls back to a process per clause.
 */

const MARKER = '.';
/** A word whose IPA the process prints once at start; every request ends with it. */
const SENTINEL = 'sentinel';
/** A line espeak-ng reads in one piece: fgets reads up to 999 bytes, the newline included. */
const MAX_LINE_BYTES = 990;
const REQUEST_TIMEOUT_MS = 30_000;
// A start costs espeak-ng its data files and the worker a fork; kept, it holds a few MiB.
const IDLE_MS = 10 * 60_000;
/** Replaced after this many requests, so nothing it accumulates grows without bound. */
const MAX_REQUESTS = 20_000;

/** The kept process could not phonemize this text (too long a line, a mismatch, the process died): use a process per clause. */
export class KeptEspeakUnavailable extends Error {
  override name = 'KeptEspeakUnavailable';
}

interface Job {
  /** Groups (clauses, then the sentinel) still to read. */
  groups: number;
  lines: string[][];
  current: string[];
  resolve: (groups: string[][]) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** The input lines of one clause: those with something to say (a line of only punctuation prints an empty line). */
function clauseLines(text: string): string[] | null {
  const lines = text.split('\n').filter((line) => /[\p{L}\p{N}]/u.test(line));
  return lines.every((line) => Buffer.byteLength(line) < MAX_LINE_BYTES) ? lines : null;
}

class EspeakProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly jobs: Job[] = [];
  /** The sentinel's IPA, read once at start. */
  private readonly sentinel: Promise<string[]>;
  private idleTimer: NodeJS.Timeout | null = null;
  alive = true;
  requests = 0;

  constructor(
    readonly voice: string,
    private readonly onExit: (process: EspeakProcess) => void,
  ) {
    this.child = spawn('espeak-ng', ['-q', '--ipa=1', '-b', '1', '-v', voice], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdin.on('error', () => undefined);
    this.child.stderr.resume();
    this.child.on('error', (error) => this.exited(error.message));
    this.child.on('close', (code, signal) => this.exited(signal ? `killed by ${signal}` : `exited with code ${code}`));
    createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on('line', (line) => this.onLine(line));
    this.sentinel = this.send(`${SENTINEL}\n${MARKER}\n`, 1).then(([lines]) => lines);
    // Until a request awaits it; a failed start is reported to that request.
    this.sentinel.catch(() => undefined);
  }

  /** The IPA lines of each clause (empty for a clause with nothing to say). */
  async phonemize(clauses: readonly string[]): Promise<string[][]> {
    const inputs = clauses.map(clauseLines);
    if (inputs.some((lines) => lines === null)) throw new KeptEspeakUnavailable('a line too long for one read');
    if (!this.alive) throw new KeptEspeakUnavailable('espeak-ng is not running');
    this.requests += 1;
    const text =
      [...(inputs as string[][]).map((lines) => [...lines, MARKER].join('\n')), SENTINEL, MARKER].join('\n') + '\n';
    const expected = (await this.sentinel).join('\n');
    const groups = await this.send(text, clauses.length + 1);
    const sentinel = groups.pop()!.join('\n');
    if (!expected || sentinel !== expected) {
      this.kill();
      throw new KeptEspeakUnavailable('espeak-ng output out of step with its input');
    }
    return groups;
  }

  kill() {
    if (this.alive) this.child.kill('SIGKILL');
  }

  private send(text: string, groups: number): Promise<string[][]> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    holdProcess(this.child, true);
    return new Promise<string[][]>((resolve, reject) => {
      const timer = setTimeout(() => this.kill(), REQUEST_TIMEOUT_MS);
      this.jobs.push({ groups, lines: [], current: [], resolve, reject, timer });
      this.child.stdin.write(text);
    });
  }

  private onLine(line: string) {
    const job = this.jobs[0];
    if (!job) return;
    const trimmed = line.trim();
    if (trimmed) {
      job.current.push(trimmed);
      return;
    }
    job.lines.push(job.current);
    job.current = [];
    if (job.lines.length < job.groups) return;
    this.jobs.shift();
    clearTimeout(job.timer);
    job.resolve(job.lines);
    if (this.jobs.length === 0) this.idle();
  }

  /** Nothing pending: the process must not keep the service alive, and goes after a while unused. */
  private idle() {
    holdProcess(this.child, false);
    if (this.requests >= MAX_REQUESTS) return this.kill();
    this.idleTimer = setTimeout(() => this.kill(), IDLE_MS).unref();
  }

  private exited(why: string) {
    if (!this.alive) return;
    this.alive = false;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.onExit(this);
    for (const job of this.jobs.splice(0)) {
      clearTimeout(job.timer);
      job.reject(new KeptEspeakUnavailable(`espeak-ng ${why}`));
    }
  }
}

const kept = new Map<string, EspeakProcess>();

/**
 * Each clause's espeak-ng IPA lines (`--ipa=1`, phonemes joined by `_`), from
 * the voice's kept process. Throws KeptEspeakUnavailable when it cannot (the
 * caller runs a process per clause instead). An abort stops the wait, not the
 * process: its output is still read, so the next request finds it in step.
 */
export async function keptEspeakIpa(
  clauses: readonly string[],
  voice: string,
  signal?: AbortSignal,
): Promise<string[][]> {
  signal?.throwIfAborted();
  let host = kept.get(voice);
  if (!host?.alive) {
    host = new EspeakProcess(voice, (gone) => {
      if (kept.get(gone.voice) === gone) kept.delete(gone.voice);
    });
    kept.set(voice, host);
  }
  const result = host.phonemize(clauses);
  if (!signal) return result;
  return new Promise<string[][]>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    result.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Stops the kept processes (tests, shutdown). */
export function stopKeptEspeak(): void {
  for (const host of kept.values()) host.kill();
  kept.clear();
}
