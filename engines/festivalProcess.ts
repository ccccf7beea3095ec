import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { holdProcess, lowerPriority } from '../lib/process';
import { EngineError } from './types';

/**
 * Festival kept running. `text2wave` spends 250-450 ms of CPU on every call
 * (Festival's init files, then the voice) before it renders anything; a
 * `festival --pipe` interpreter pays that once and then renders one request
 * after another, with byte-identical output (the same tts_file and wave
 * saving as text2wave, defined below). bench/service.ts measures the gain.
 *
 * A pool keeps idle interpreters, each with its voice loaded, for a minute;
 * a busy pool starts another interpreter, so concurrency stays bounded by the
 * callers (the worker's activity slots), never by the pool.
 */

/** text2wave's main loop as functions: the same header-then-data saving, one call per request. */
const SETUP = `
(defvar hts_engine_params nil)
(defvar openvox_hts_params nil)
(defvar openvox_fp nil)
(defvar openvox_samples 0)
(defvar openvox_utt nil)
(gc-status nil)
(defvar openvox_wfp nil)
(defvar openvox_tokens 0)
(define (openvox_words utt)
  (let ((offset openvox_samples) (rate (get_param 'sample_rate (wave.info (utt.wave utt)) 16000)))
    (mapcar
      (lambda (tok)
        (set! openvox_tokens (+ 1 openvox_tokens))
        (mapcar
          (lambda (wd)
            (if (item.relation wd 'Word)
                (format openvox_wfp "%d %d %d %f %f %s\t%s\n" offset rate openvox_tokens
                  (item.feat wd "R:Word.word_start") (item.feat wd "R:Word.word_end") (item.name wd) (item.name tok))))
          (item.daughters tok)))
      (utt.relation.items utt 'Token))))
(define (openvox_save utt)
  (if openvox_wfp (openvox_words utt))
  (if (eq? openvox_samples 0)
      (wave.save.header openvox_fp (utt.wave utt) 'riff nil (list (list "numsamples" 0))))
  (set! openvox_samples (+ openvox_samples (get_param 'num_samples (wave.info (utt.wave utt)) 0)))
  (wave.save.data.fp (utt.wave utt) openvox_fp 'riff nil)
  (set! openvox_utt utt))
(define (openvox_synth infile outfile wordsfile stretch rate)
  (if openvox_fp (fclose openvox_fp))
  (if openvox_wfp (fclose openvox_wfp))
  (set! openvox_wfp (fopen wordsfile "wb"))
  (set! openvox_tokens 0)
  (Parameter.set 'Duration_Stretch stretch)
  (set! hts_engine_params (append openvox_hts_params (list (list "-r" rate))))
  (set! openvox_fp (fopen outfile "wb"))
  (set! openvox_samples 0)
  (set! openvox_utt nil)
  (set! tts_hooks (list utt.synth openvox_save))
  (tts_file infile nil)
  (if openvox_utt
      (begin
        (fseek openvox_fp 0 0)
        (wave.save.header openvox_fp (utt.wave openvox_utt) 'riff nil (list (list "numsamples" openvox_samples)))))
  (fclose openvox_fp)
  (set! openvox_fp nil)
  (fclose openvox_wfp)
  (set! openvox_wfp nil))
`;

const DONE = 'OPENVOX-DONE';
const STDERR_LIMIT = 64 * 1024;
/** An interpreter is replaced after this many requests, so nothing it accumulates grows without bound. */
const MAX_REQUESTS = 500;
const IDLE_MS = 60_000;
/** Idle interpreters kept at most (each holds its voice and heap: up to ~120 MiB). */
const MAX_IDLE = 4;
/**
 * Lisp heap cells. Festival's default (10 M cells) makes every process touch
 * ~330 MiB at start; 2 M renders a 400-character chunk as fast in ~120 MiB
 * (measured), and 0.5 M still renders a 5000-character sentence.
 */
const HEAP_CELLS = 2_000_000;
const DEFAULT_TIMEOUT_MS = 120_000;

/** Thrown when the interpreter died or was killed (crash, timeout, abort) during a request. */
export class FestivalExit extends Error {
  override name = 'FestivalExit';
}

const quote = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

class FestivalInterpreter {
  private readonly child: ChildProcessWithoutNullStreams;
  private stderr = '';
  private sequence = 0;
  private pending: { marker: string; resolve: (stderr: string) => void; reject: (error: Error) => void } | null = null;
  voice: string | null = null;
  requests = 0;
  alive = true;
  idleTimer: NodeJS.Timeout | null = null;

  constructor(niceness = 0) {
    this.child = spawn('festival', ['--heap', String(HEAP_CELLS), '--pipe'], { stdio: ['pipe', 'pipe', 'pipe'] });
    if (niceness) lowerPriority(this.child, niceness);
    this.child.stdout.resume();
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => this.onStderr(chunk));
    this.child.stdin.on('error', () => {});
    this.child.on('error', (error: NodeJS.ErrnoException) =>
      this.exited(error.code === 'ENOENT' ? 'festival is not installed' : error.message),
    );
    this.child.on('close', (code, signal) => this.exited(signal ? `killed by ${signal}` : `exited with code ${code}`));
    this.child.stdin.write(SETUP);
  }

  /** Evaluates Scheme forms and resolves with what Festival wrote to stderr meanwhile (its errors). */
  eval(
    forms: string,
    { signal, timeoutMs = DEFAULT_TIMEOUT_MS }: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<string> {
    if (!this.alive) return Promise.reject(new FestivalExit('festival is not running'));
    if (signal?.aborted) return Promise.reject(new EngineError('festival', 'aborted'));
    const marker = `${DONE} ${++this.sequence}\n`;
    this.stderr = '';
    this.requests += 1;
    return new Promise<string>((resolve, reject) => {
      const onAbort = () => this.kill();
      const timer = setTimeout(() => this.kill(), timeoutMs);
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.pending = null;
      };
      this.pending = {
        marker,
        resolve: (stderr) => {
          settle();
          resolve(stderr);
        },
        reject: (error) => {
          settle();
          reject(signal?.aborted ? new EngineError('festival', 'aborted') : error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      // Separate top-level forms: after an error Festival's reader goes on with the next one, so the marker always comes.
      this.child.stdin.write(`${forms}\n(format stderr "%s\\n" ${quote(marker.trim())})\n`);
    });
  }

  /** (voice_<name>) and the voice's own hts_engine parameters, which each request extends with its rate. */
  loadVoice(voice: string, options: { signal?: AbortSignal } = {}): Promise<string> {
    return this.eval(`(begin (voice_${voice}) (set! openvox_hts_params hts_engine_params))`, options);
  }

  /**
   * Renders a text file to a WAV; `wordsPath` receives one line per spoken
   * word: `<utterance offset in samples> <sample rate> <token number> <start s> <end s> <word>\t<token>`.
   */
  synthesize(
    input: { textFile: string; outPath: string; wordsPath: string; stretch: number; rate: number },
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<string> {
    return this.eval(
      `(openvox_synth ${quote(input.textFile)} ${quote(input.outPath)} ${quote(input.wordsPath)} ${input.stretch.toFixed(4)} ${input.rate.toFixed(4)})`,
      options,
    );
  }

  /** Idle interpreters must not keep a process (a test run, a stopping worker) alive. */
  hold(held: boolean) {
    holdProcess(this.child, held);
  }

  kill() {
    if (this.alive) this.child.kill('SIGKILL');
  }

  private onStderr(chunk: string) {
    if (this.stderr.length < STDERR_LIMIT) this.stderr += chunk;
    const pending = this.pending;
    if (!pending) return;
    const at = this.stderr.indexOf(pending.marker);
    if (at >= 0) pending.resolve(this.stderr.slice(0, at));
  }

  private exited(why: string) {
    this.alive = false;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.pending?.reject(new FestivalExit(`festival ${why}`));
  }
}

/**
 * Interpreters waiting for work. An interpreter keeps the one voice it
 * loaded for life: Festival's voices change global state (token rules,
 * parameters) that the next voice does not reset, so a Czech or Russian
 * voice loaded before another makes that one fail where a fresh process works.
 */
export class FestivalPool {
  /** Least recently used first. */
  private readonly idle: FestivalInterpreter[] = [];

  /** `niceness`: the interpreters' `nice` value (a pool for background work). */
  constructor(private readonly niceness = 0) {}

  /** Runs `work` on an idle interpreter of `voice`, or on a new one. */
  async with<T>(
    voice: string,
    signal: AbortSignal | undefined,
    work: (festival: FestivalInterpreter) => Promise<T>,
  ): Promise<T> {
    const warm = this.idle.filter((candidate) => candidate.alive && candidate.voice === voice).pop();
    if (warm) this.idle.splice(this.idle.indexOf(warm), 1);
    const festival = warm ?? new FestivalInterpreter(this.niceness);
    if (festival.idleTimer) clearTimeout(festival.idleTimer);
    festival.hold(true);
    try {
      if (festival.voice !== voice) {
        const stderr = await festival.loadVoice(voice, { signal });
        if (/SIOD ERROR|unbound variable|could not open|not found/i.test(stderr))
          throw new EngineError('festival', `${voice} produced no audio (voice not installed)`);
        festival.voice = voice;
      }
      return await work(festival);
    } finally {
      this.release(festival);
    }
  }

  private release(festival: FestivalInterpreter) {
    if (!festival.alive || festival.voice === null || festival.requests >= MAX_REQUESTS) {
      festival.kill();
      return;
    }
    festival.hold(false);
    festival.idleTimer = setTimeout(() => this.retire(festival), IDLE_MS).unref();
    this.idle.push(festival);
    while (this.idle.length > MAX_IDLE) this.retire(this.idle[0]);
  }

  private retire(festival: FestivalInterpreter) {
    const index = this.idle.indexOf(festival);
    if (index >= 0) this.idle.splice(index, 1);
    if (festival.idleTimer) clearTimeout(festival.idleTimer);
    festival.kill();
  }
}
