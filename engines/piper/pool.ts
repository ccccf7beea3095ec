import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { holdProcess, lowerPriority } from '../../lib/process';
import { EngineError } from '../types';
import type { HostReply } from '../onnxHost';
import type { HostRequest } from './host';
import type { KokoroHostRequest } from '../kokoro/host';

/**
 * Piper voices kept loaded, one child process (engines/piper/host.ts) per
 * ONNX session, the Festival interpreter pool's pattern
 * (engines/festivalProcess.ts): a session costs 1-2 s to load, so idle
 * processes wait for the next request a while; a busy pool starts another,
 * up to `maxHosts` processes at once (a caller beyond waits for one to be
 * free: each process runs on one core, so more than the cores would only
 * add memory, ~170-450 MiB each); once a burst is over, one idle process
 * stays warm for `idleMs`, the others only `spareIdleMs`. A process serves one request at a time
 * and is replaced after `maxRequests` requests or once its RSS passed
 * `maxRssBytes` (ONNX Runtime keeps the memory of its longest call).
 *
 * Threads: a request alone on a machine with cores to spare gets a process
 * with `loneThreads` intra-op threads (2: a sentence renders ~1.4× faster,
 * which is what a single listener waits for); while others run,
 * each process takes one core, one thread. The thread count is fixed when a
 * session loads, so processes of both kinds are kept; a request takes a warm
 * process of the other kind rather than wait 1-2 s for a new one, and one of
 * its own kind is started in the background for the next request (at most
 * one process beyond `maxHosts`, an idle spare like any other): under load,
 * a two-thread process kept serving one-thread requests cost ~15 % more CPU
 * per sentence (bench:peer's 4-client rounds after its lone rounds).
 */

export interface PiperPoolOptions {
  maxRequests?: number;
  maxRssBytes?: number;
  idleMs?: number;
  /** How long an idle process is kept beside a more recently used idle one (the second host of a burst). */
  spareIdleMs?: number;
  maxIdle?: number;
  /** Processes at once, busy and idle (default: the cores, the CPU task queue's default concurrency). */
  maxHosts?: number;
  /** Intra-op threads of a request alone on a machine that is not busy (default: 2, at most the cores; 1 turns it off). */
  loneThreads?: number;
  /** Whether the machine has cores to spare for a lone request's threads (default: see quietMachine; tests fix it). */
  quietMachine?: () => boolean;
  /**
   * Another model's host in the same protocol (engines/kokoro/host.ts): its absolute path without the
   * extension, and the engine named in its errors. Default Piper's (engines/piper/host.ts).
   */
  host?: { path: string; engine: string };
  /** The hosts' `nice` value: a pool for background work (a book's renders) runs below the others (default 0). */
  niceness?: number;
}

export interface PiperResult {
  samples: number;
  rss: number;
  inferMs: number;
  firstMs: number;
  /** Per sentence, the frames each phoneme id lasts (absent when the model does not expose them). */
  frames?: number[][];
}

const DEFAULTS: Required<PiperPoolOptions> = {
  maxRequests: 1000,
  // A medium voice holds ~170 MiB loaded, ~330 MiB after everyday sentences and ~450 MiB after a
  // 250-character one (bench/piperMemory.ts): a process that kept that much is replaced.
  maxRssBytes: 400 * 1024 * 1024,
  idleMs: 5 * 60_000,
  // Once a burst is over, one warm host is enough (a second costs ~330 MiB); a few seconds between two
  // renders of the same burst (a long text's chunks, a finish in the other slot) keep it.
  spareIdleMs: 15_000,
  // Two cover a 2-core worker's concurrent renders.
  maxIdle: 2,
  maxHosts: availableParallelism(),
  loneThreads: Math.min(2, availableParallelism()),
  quietMachine,
  host: { path: path.join(__dirname, 'host'), engine: 'piper' },
  niceness: 0,
};
const START_TIMEOUT_MS = 60_000;
const REQUEST_TIMEOUT_MS = 120_000;

/** Thrown when the process died or was killed (crash, timeout, abort) during a request. */
export class PiperExit extends Error {
  override name = 'PiperExit';
}

/** node with tsx under the TypeScript sources (tests, tsx), plain node for the compiled dist/. */
function hostCommand(host: string): { command: string; args: string[] } {
  const script = `${host}${path.extname(__filename)}`;
  // --expose-gc: the host collects the model's bytes once its session is built (engines/onnxHost.ts).
  if (path.extname(__filename) === '.ts')
    return { command: process.execPath, args: ['--expose-gc', '--require', require.resolve('tsx/cjs'), script] };
  return { command: process.execPath, args: ['--expose-gc', script] };
}

export class PiperProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  readonly ready: Promise<void>;
  private sequence = 0;
  private stderr = '';
  private pending = new Map<number, { resolve: (reply: HostReply) => void; reject: (error: Error) => void }>();
  private onReady: { resolve: () => void; reject: (error: Error) => void } | null = null;
  alive = true;
  requests = 0;
  rss = 0;
  idleTimer: NodeJS.Timeout | null = null;
  /** Idle on the short timer: another idle process was used after it. */
  spare = false;

  constructor(
    readonly modelPath: string,
    /** Intra-op threads of its session. */
    readonly threads = 1,
    private readonly host: Required<PiperPoolOptions>['host'] = DEFAULTS.host,
    niceness = 0,
  ) {
    const { command, args } = hostCommand(host.path);
    this.child = spawn(command, [...args, modelPath, String(threads)], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, OMP_NUM_THREADS: String(threads), NODE_OPTIONS: '' },
    });
    if (niceness) lowerPriority(this.child, niceness);
    this.ready = new Promise<void>((resolve, reject) => (this.onReady = { resolve, reject }));
    // Until someone awaits it; a failed start is reported to that caller.
    this.ready.catch(() => undefined);
    const startTimer = setTimeout(() => this.kill(), START_TIMEOUT_MS);
    this.ready.finally(() => clearTimeout(startTimer)).catch(() => undefined);
    createInterface({ input: this.child.stdout }).on('line', (line) => this.onLine(line));
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      if (this.stderr.length < 16_384) this.stderr += chunk;
    });
    this.child.stdin.on('error', () => {});
    this.child.on('error', (error) => this.exited(error.message));
    this.child.on('close', (code, signal) => this.exited(signal ? `killed by ${signal}` : `exited with code ${code}`));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  async synthesize(
    request: Omit<HostRequest, 'id'> | Omit<KokoroHostRequest, 'id'>,
    { signal, timeoutMs = REQUEST_TIMEOUT_MS }: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<PiperResult> {
    await this.ready;
    if (!this.alive) throw new PiperExit(`${this.host.engine} host is not running`);
    if (signal?.aborted) throw new EngineError(this.host.engine, 'aborted');
    const id = ++this.sequence;
    this.requests += 1;
    const reply = await new Promise<HostReply>((resolve, reject) => {
      const onAbort = () => this.kill();
      const timer = setTimeout(() => this.kill(), timeoutMs);
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
      };
      this.pending.set(id, {
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(signal?.aborted ? new EngineError(this.host.engine, 'aborted') : error);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.child.stdin.write(`${JSON.stringify({ ...request, id })}\n`);
    });
    if (reply.error) throw new EngineError(this.host.engine, reply.error);
    this.rss = reply.rss ?? 0;
    return {
      samples: reply.samples ?? 0,
      rss: this.rss,
      inferMs: reply.inferMs ?? 0,
      firstMs: reply.firstMs ?? 0,
      frames: reply.frames,
    };
  }

  /** Idle processes must not keep a process (a test run, a stopping worker) alive. */
  hold(held: boolean) {
    holdProcess(this.child, held);
  }

  kill() {
    if (this.alive) this.child.kill('SIGKILL');
  }

  private onLine(line: string) {
    let message: HostReply;
    try {
      message = JSON.parse(line) as HostReply;
    } catch {
      return;
    }
    if (message.ready) {
      this.rss = message.rss ?? 0;
      this.onReady?.resolve();
      return;
    }
    if (message.id !== undefined) this.pending.get(message.id)?.resolve(message);
    else if (message.error) this.stderr += `${message.error}\n`;
  }

  private exited(why: string) {
    if (!this.alive) return;
    this.alive = false;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const detail = this.stderr.trim().split('\n').slice(-2).join(' | ').slice(0, 300);
    const error = new PiperExit(`${this.host.engine} host ${why}${detail ? `: ${detail}` : ''}`);
    this.onReady?.reject(error);
    for (const pending of [...this.pending.values()]) pending.reject(error);
  }
}

/**
 * Whether a lone request may take more than one core: the 1-minute load
 * average under twice the cores. Not a measure of the last moments: the
 * request's own steps just before its render (the API, Temporal, the
 * worker, PostgreSQL) keep about a core busy, which a short window counted
 * as other work (bench:peer: a lone sentence saw 0-1.3 idle cores of 2).
 * A second thread without a core of its own mostly waits for the first: with
 * one other busy core, one sentence took 349 ms on 1 thread and 344 on 2
 * (334 and 237 on idle cores), for ~13 % more CPU; at a load of 8, 737 and
 * 953 ms. So two threads are the better bet until the machine is overloaded.
 */
function quietMachine(): boolean {
  return loadavg()[0] < 2 * availableParallelism();
}

/** How long after the last contended request a request still counts as one of a burst (one thread). */
const ALONE_AFTER_MS = 2_000;

export class PiperPool {
  /** Least recently used first. */
  private readonly idle: PiperProcess[] = [];
  private busy = 0;
  /** Callers waiting for a process slot, first come first served. */
  private readonly waiting: Array<() => void> = [];
  private readonly options: Required<PiperPoolOptions>;
  /** Hosts being started in the background for the next request of their kind (see prestart). */
  private starting = 0;
  /** When a request last found another busy or waiting here (performance.now()). */
  private contendedAt = -Infinity;
  /** Processes started, for the bench and the tests. */
  started = 0;

  constructor(options: PiperPoolOptions = {}) {
    // An option left undefined keeps its default.
    this.options = {
      ...DEFAULTS,
      ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)),
    };
  }

  /** The intra-op threads of each idle process, least recently used first (the tests). */
  get idleThreads(): number[] {
    return this.idle.map((host) => host.threads);
  }

  /** Processes running now, busy, idle and starting in the background (the bench and the tests). */
  get size(): number {
    return this.busy + this.idle.length + this.starting;
  }

  /** Runs `work` on an idle process of `modelPath`, or on a new one once fewer than `maxHosts` are busy. */
  async with<T>(modelPath: string, work: (host: PiperProcess) => Promise<T>, signal?: AbortSignal): Promise<T> {
    // A slot ends in the hands of the next waiter (busy unchanged), so a newcomer cannot overtake it.
    if (this.busy < this.options.maxHosts && this.waiting.length === 0) this.busy += 1;
    else await this.slot(signal);
    let host: PiperProcess | undefined;
    try {
      const threads = this.threadsNow();
      const warmOnes = this.idle.filter((candidate) => candidate.alive && candidate.modelPath === modelPath);
      // The most recently used of the wanted kind, else of the other kind (a start costs more than the threads gain).
      const warm = warmOnes.filter((candidate) => candidate.threads === threads).pop() ?? warmOnes.pop();
      if (warm) {
        this.idle.splice(this.idle.indexOf(warm), 1);
        // Of the other kind: it serves this request at once, and one of the wanted kind starts for the next.
        if (warm.threads !== threads) this.prestart(modelPath, threads);
      }
      // No warm one: an idle process of another voice makes room for the new one.
      else while (this.idle.length > 0 && this.size > this.options.maxHosts) this.retire(this.idle[0]);
      host = warm ?? new PiperProcess(modelPath, threads, this.options.host, this.options.niceness);
      if (!warm) this.started += 1;
      if (host.idleTimer) clearTimeout(host.idleTimer);
      host.hold(true);
      return await work(host);
    } finally {
      if (host) this.release(host);
      const next = this.waiting.shift();
      if (next) next();
      else this.busy -= 1;
    }
  }

  /**
   * The threads for a request starting now: more than one only when it runs
   * alone (no other request busy or waiting here, nor for ALONE_AFTER_MS
   * before) on a machine that is not overloaded (quietMachine). Concurrent
   * streams leave the pool for moments between their sentences; taking those
   * for "alone" switched the kind of process wanted back and forth.
   */
  private threadsNow(): number {
    const { loneThreads } = this.options;
    const now = performance.now();
    if (this.busy > 1 || this.waiting.length > 0) this.contendedAt = now;
    if (loneThreads <= 1 || now - this.contendedAt < ALONE_AFTER_MS) return 1;
    return this.options.quietMachine() ? loneThreads : 1;
  }

  /**
   * Starts a process of `threads` in the background, which joins the idle
   * ones once loaded, when a request had to take a warm process of the other
   * kind: the next request of this kind finds its own. One at a time, and at
   * most one process beyond maxHosts (the idle list keeps its cap: the least
   * recently used goes).
   */
  private prestart(modelPath: string, threads: number) {
    if (this.starting > 0 || this.size >= this.options.maxHosts + 1) return;
    const host = new PiperProcess(modelPath, threads, this.options.host, this.options.niceness);
    this.started += 1;
    this.starting += 1;
    host.hold(false);
    host.ready
      .then(
        () => this.release(host),
        () => host.kill(),
      )
      .finally(() => (this.starting -= 1));
  }

  /** Waits until a process slot is free (with() starts the next waiter as it ends), or the signal aborts. */
  private slot(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(new EngineError(this.options.host.engine, 'aborted'));
      const onAbort = () => {
        const index = this.waiting.indexOf(turn);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(new EngineError(this.options.host.engine, 'aborted'));
      };
      const turn = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(turn);
    });
  }

  /** Stops every idle process (tests, shutdown). */
  close() {
    while (this.idle.length > 0) this.retire(this.idle[0]);
  }

  private release(host: PiperProcess) {
    if (!host.alive || host.requests >= this.options.maxRequests || host.rss > this.options.maxRssBytes) {
      host.kill();
      return;
    }
    host.hold(false);
    host.spare = false;
    host.idleTimer = setTimeout(() => this.retire(host), this.options.idleMs).unref();
    this.idle.push(host);
    while (this.idle.length > Math.min(this.options.maxIdle, this.options.maxHosts)) this.retire(this.idle[0]);
    for (const spare of this.idle.slice(0, -1)) {
      if (spare.spare) continue;
      spare.spare = true;
      if (spare.idleTimer) clearTimeout(spare.idleTimer);
      spare.idleTimer = setTimeout(() => this.retire(spare), this.options.spareIdleMs).unref();
    }
  }

  private retire(host: PiperProcess) {
    const index = this.idle.indexOf(host);
    if (index >= 0) this.idle.splice(index, 1);
    if (host.idleTimer) clearTimeout(host.idleTimer);
    host.kill();
  }
}
