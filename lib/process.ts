import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, type Writable } from 'node:stream';

/**
 * Spawning helpers shared by the engine adapters and the audio pipeline.
 * Programs always get an argument array, never a shell string, so nothing in
 * a user's text can ever reach a shell.
 */

export interface RunOptions {
  /** Written to the program's stdin, which is then closed (a stream: piped, then closed at its end). */
  input?: string | Buffer | Readable;
  /** Where the program's stdout goes as it comes (it is not collected then: the result's stdout is empty). */
  output?: Writable;
  /** Killed (SIGKILL) after this long; default 2 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Runs the program at this `nice` value (background work; see lowerPriority). */
  niceness?: number;
}

export interface RunResult {
  stdout: Buffer;
  stderr: string;
}

export class ProcessError extends Error {
  override name = 'ProcessError';
  constructor(
    readonly command: string,
    readonly exitCode: number | null,
    readonly stderr: string,
    message: string,
  ) {
    super(message);
  }
}

const STDERR_LIMIT = 64 * 1024;

/** Runs `command` with `args`; resolves on exit code 0, rejects with a ProcessError otherwise. */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      signal: options.signal,
      timeout: options.timeoutMs ?? 120_000,
      killSignal: 'SIGKILL',
    });
    if (options.niceness) lowerPriority(child, options.niceness);
    const stdout: Buffer[] = [];
    let stderr = '';
    if (options.output) child.stdout.pipe(options.output);
    else child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_LIMIT) stderr += chunk.toString('utf8');
    });
    // A program that exits before reading all its input raises EPIPE here; its exit code tells the story.
    child.stdin.on('error', () => {});
    child.on('error', (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === 'ENOENT' ? 'not installed' : error.name === 'AbortError' ? 'aborted' : error.message;
      reject(new ProcessError(command, null, stderr, `${command}: ${reason}`));
    });
    child.on('close', (code, signal) => {
      if (code === 0) {
        resolve({ stdout: Buffer.concat(stdout), stderr });
        return;
      }
      const why = signal ? `killed by ${signal}` : `exited with code ${code}`;
      const detail = lastLines(stderr);
      reject(new ProcessError(command, code, stderr, `${command} ${why}${detail ? `: ${detail}` : ''}`));
    });
    if (options.input instanceof Readable) {
      // A failing source ends the program's input; its exit code (or the caller's abort) tells the rest.
      options.input.once('error', () => child.stdin.end());
      options.input.pipe(child.stdin);
    } else {
      child.stdin.end(options.input ?? '');
    }
  });
}

function lastLines(text: string, count = 3): string {
  return text.trim().split('\n').slice(-count).join(' | ').slice(0, 500);
}

const found = new Map<string, Promise<string | null>>();

/** The absolute path of an executable on PATH, or null (cached per name). */
export function which(name: string): Promise<string | null> {
  let result = found.get(name);
  if (!result) {
    result = (async () => {
      for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter)) {
        if (!dir) continue;
        const candidate = path.join(dir, name);
        try {
          await access(candidate, constants.X_OK);
          return candidate;
        } catch {
          // not in this directory
        }
      }
      return null;
    })();
    found.set(name, result);
  }
  return result;
}

/** Runs `work` with a fresh private temporary directory that is always removed afterwards. */
export async function withTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Size of a file in bytes, or 0 when it does not exist. */
export async function fileSize(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}

/**
 * Gives a spawned program a lower CPU priority (`nice`): background work (a
 * book's renders) then takes only the cores the service's other work leaves.
 * Set once it has started (a process may lower its children's priority; only
 * root may raise it again). A program that already exited, or never started,
 * has nothing to lower.
 */
export function lowerPriority(child: { pid?: number }, niceness: number): void {
  if (child.pid === undefined) return;
  try {
    os.setPriority(child.pid, niceness);
  } catch {
    // ESRCH: it exited already.
  }
}

/**
 * Lets a kept child process (a Festival interpreter, a Piper host) hold the
 * event loop or not: an idle one must not keep a process (a test run, a
 * stopping worker) alive. Its stdio pipes are net.Sockets, which can be
 * unref'd like the child itself.
 */
export function holdProcess(child: ChildProcessWithoutNullStreams, held: boolean): void {
  const handles = [child, child.stdin, child.stdout, child.stderr] as unknown as { ref(): void; unref(): void }[];
  for (const handle of handles) {
    if (held) handle.ref();
    else handle.unref();
  }
}
