import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { isMainThread } from 'node:worker_threads';

/**
 * The soak's window into the V8 heap of the api and the worker, never loaded
 * in production: the soak starts them with
 * `node --expose-gc --require dist/chaos/heapProbe.js` and HEAP_PROBE_DIR set,
 * and drives it with SIGUSR2. On each signal the probe reads (and removes)
 * `<HEAP_PROBE_DIR>/<pid>.command`, then appends one JSON line to
 * `<HEAP_PROBE_DIR>/probe.jsonl` saying what it did:
 *
 * - no command file (`sample`): `process.memoryUsage()` as found, again after
 *   a full garbage collection (what the heap retains, not garbage not yet
 *   collected), and RssAnon / RssFile from /proc/self/status (anonymous memory,
 *   JavaScript's and native, against mapped files);
 * - `start-sampling`: starts V8's sampling heap profiler (cheap: one
 *   allocation in every 32 KiB, with its stack);
 * - `sampling-profile`: writes what the sampling profiler saw allocated since
 *   and still alive (`.heapprofile`, opens in Chrome DevTools' Memory tab);
 * - `snapshot`: a full heap snapshot (`.heapsnapshot`). It costs the process
 *   seconds and leaves its RSS a few hundred MiB higher (the allocator keeps
 *   the memory), so the soak takes snapshots only once its series are done.
 *
 * The main thread only (Temporal's workflow threads have heaps of their own:
 * they show in RSS, not here), and only in the api's and the worker's own
 * process (`dist/api/main.js`, `dist/worker/main.js`), not in children that
 * might inherit the flags.
 */

const dir = process.env.HEAP_PROBE_DIR;
const role = /[/\\](api|worker)[/\\]main\.js$/.exec(process.argv[1] ?? '')?.[1];

const mib = (bytes: number) => Math.round((bytes / 1_048_576) * 100) / 100;
const usage = () => {
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return {
    rss: mib(rss),
    heapTotal: mib(heapTotal),
    heapUsed: mib(heapUsed),
    external: mib(external),
    arrayBuffers: mib(arrayBuffers),
  };
};
const status = () => {
  const text = readFileSync('/proc/self/status', 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { rssAnon: mib(kib('RssAnon') * 1024), rssFile: mib(kib('RssFile') * 1024) };
};
const collect = () => (globalThis as { gc?: () => void }).gc?.();

if (dir && role && isMainThread) {
  const write = (line: object) =>
    appendFileSync(
      path.join(dir, 'probe.jsonl'),
      `${JSON.stringify({ pid: process.pid, role, at: new Date().toISOString(), ...line })}\n`,
    );
  const fileFor = (extension: string) => path.join(dir, `${role}-${process.pid}-${Date.now()}.${extension}`);
  let session: Session | undefined;
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session!.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );

  const commands: Record<string, () => Promise<object>> = {
    sample: async () => {
      const found = usage();
      const started = performance.now();
      collect();
      const gcMs = Math.round(performance.now() - started);
      return { found, afterGc: usage(), gcMs, ...status() };
    },
    'start-sampling': async () => {
      session = new Session();
      session.connect();
      await post('HeapProfiler.enable');
      await post('HeapProfiler.startSampling', { samplingInterval: 32_768 });
      return { sampling: 'started' };
    },
    'sampling-profile': async () => {
      if (!session) return { samplingError: 'not started' };
      collect();
      const { profile } = (await post('HeapProfiler.getSamplingProfile')) as { profile: unknown };
      const file = fileFor('heapprofile');
      writeFileSync(file, JSON.stringify(profile));
      return { heapprofile: file };
    },
    snapshot: async () => {
      collect();
      const started = performance.now();
      const snapshot = writeHeapSnapshot(fileFor('heapsnapshot'));
      return { snapshot, ms: Math.round(performance.now() - started), ...usage() };
    },
  };

  process.on('SIGUSR2', () => {
    const commandFile = path.join(dir, `${process.pid}.command`);
    let command = 'sample';
    try {
      command = readFileSync(commandFile, 'utf8').trim();
      rmSync(commandFile, { force: true });
    } catch {
      // No command file: a sample.
    }
    const run = commands[command] ?? (async () => ({ error: `unknown command ${command}` }));
    run().then(
      (line) => write({ command, ...line }),
      (error) => write({ command, error: String(error) }),
    );
  });
}
