import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readWavInfo } from '../../audio/wav';
import { createPiperEngine, type PiperEngine } from '../../engines/piper';
import { createEngines } from '../../engines/registry';
import { PiperProcess } from '../../engines/piper/pool';
import { EngineError } from '../../engines/types';
import { defaultModelsDir } from '../../lib/config';
import { until } from '../helpers/eventually';

/**
 * The piper engine on the real model (scripts/install.sh puts
 * en_US-joe-medium into MODELS_DIR), without noise so runs are identical.
 */
const JOE = 'en_US-joe-medium';
const modelsDir = process.env.MODELS_DIR ?? defaultModelsDir();

describe('piper engine', () => {
  let engine: PiperEngine;
  let dir: string;

  beforeAll(async () => {
    // One intra-op thread always: a two-thread session (a lone request, engines/piper/pool.ts) sums in another
    // order, so its samples can differ in their last bits from a one-thread session's.
    engine = createPiperEngine({ modelsDir, noise: false, maxRequests: 3, loneThreads: 1 });
    dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-piper-'));
  });
  afterAll(async () => {
    engine.pool.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('finds the joe voice in MODELS_DIR', async () => {
    expect(await engine.available()).toBe(true);
    expect(await engine.voices()).toContain(JOE);
    const [model] = await engine.models();
    expect(model).toMatchObject({ name: JOE, sampleRate: 22050, espeakVoice: 'en-us', language: 'en-US' });
  });

  it('renders speech at 22 050 Hz, identical run to run without noise, in kept processes replaced after N requests', async () => {
    const text = 'Hello, this is a short test of my voice. And a second sentence!';
    const outs = [1, 2, 3, 4].map((n) => path.join(dir, `joe-${n}.wav`));
    for (const outPath of outs) await engine.synthesize({ text, voice: JOE, outPath });
    const info = await readWavInfo(outs[0]);
    expect(info.sampleRate).toBe(22050);
    expect(info.durationSeconds).toBeGreaterThan(2);
    expect(info.durationSeconds).toBeLessThan(8);
    const bytes = await Promise.all(outs.map((file) => readFile(file)));
    for (const other of bytes.slice(1)) expect(other.equals(bytes[0])).toBe(true);
    // maxRequests 3: the fourth request ran in a second process.
    expect(engine.pool.started).toBe(2);
  });

  it('splits long text into calls of at most 250 characters and keeps all of it', async () => {
    const sentence =
      'This long sentence keeps going on and on, with commas and clauses, so that the engine has to split it somewhere sensible';
    const outPath = path.join(dir, 'long.wav');
    await engine.synthesize({ text: `${sentence} ${sentence} ${sentence}.`, voice: JOE, outPath });
    const short = path.join(dir, 'short.wav');
    await engine.synthesize({ text: `${sentence}.`, voice: JOE, outPath: short });
    const ratio = (await readWavInfo(outPath)).durationSeconds / (await readWavInfo(short)).durationSeconds;
    expect(ratio).toBeGreaterThan(2.5);
    expect(ratio).toBeLessThan(3.5);
  });

  it('gives a longer rendering at a lower rate', async () => {
    const text = 'Speed changes the length scale of the model.';
    const slow = path.join(dir, 'slow.wav');
    const fast = path.join(dir, 'fast.wav');
    await engine.synthesize({ text, voice: JOE, rate: 0.5, outPath: slow });
    await engine.synthesize({ text, voice: JOE, rate: 2, outPath: fast });
    expect((await readWavInfo(slow)).durationSeconds).toBeGreaterThan(2.5 * (await readWavInfo(fast)).durationSeconds);
  });

  it('reports an unknown voice and text without anything to say as engine errors', async () => {
    await expect(engine.synthesize({ text: 'Hi.', voice: 'nope', outPath: path.join(dir, 'x.wav') })).rejects.toThrow(
      EngineError,
    );
    await expect(engine.synthesize({ text: '...', voice: JOE, outPath: path.join(dir, 'x.wav') })).rejects.toThrow(
      /nothing/,
    );
  });

  it('kills the process when the request is aborted', async () => {
    const controller = new AbortController();
    const pending = engine.synthesize({
      text: 'A sentence that will never finish rendering. '.repeat(5),
      voice: JOE,
      outPath: path.join(dir, 'abort.wav'),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow(/aborted/);
  });
  it('runs at most maxHosts processes at once: callers beyond wait for a free one, an aborted one stops waiting', async () => {
    // One kind of process (one thread): this is about the cap, not about the kinds (below).
    const capped = createPiperEngine({ modelsDir, noise: false, maxHosts: 1, loneThreads: 1 });
    try {
      const text = 'One process at a time renders this sentence.';
      let most = 0;
      const watch = setInterval(() => (most = Math.max(most, capped.pool.size)), 5);
      const controller = new AbortController();
      const outs = [1, 2, 3].map((n) => path.join(dir, `capped-${n}.wav`));
      const renders = outs.map((outPath) => capped.synthesize({ text, voice: JOE, outPath }));
      const aborted = capped.synthesize({
        text,
        voice: JOE,
        outPath: path.join(dir, 'capped-aborted.wav'),
        signal: controller.signal,
      });
      controller.abort();
      await expect(aborted).rejects.toThrow(/aborted/);
      await Promise.all(renders);
      clearInterval(watch);
      expect(most).toBe(1);
      // The waiting callers were served by the one process, which the abort of a waiter did not kill.
      expect(capped.pool.started).toBe(1);
      const bytes = await Promise.all(outs.map((file) => readFile(file)));
      for (const other of bytes.slice(1)) expect(other.equals(bytes[0])).toBe(true);
    } finally {
      capped.pool.close();
    }
  });

  it("a background pool's hosts run at its nice value, the others at the worker's", async () => {
    const background = createPiperEngine({ modelsDir, noise: false, loneThreads: 1, niceness: 7 });
    try {
      const hostPid = (registryEngine: PiperEngine) =>
        registryEngine.pool.with(`${modelsDir}/${JOE}.onnx`, async (host) => host.pid!);
      const [model] = await engine.models();
      expect(model.modelPath).toBe(`${modelsDir}/${JOE}.onnx`);
      expect(os.getPriority(await hostPid(background))).toBe(7);
      expect(os.getPriority(await hostPid(engine))).toBe(os.getPriority());
    } finally {
      background.pool.close();
    }
  });

  it("a registry's idleMs lets its last idle host go that soon (a book's engines, worker/main.ts)", async () => {
    const background = createEngines({ modelsDir, idleMs: 300 }).get('piper') as PiperEngine;
    try {
      await background.synthesize({ text: 'Done.', voice: JOE, outPath: path.join(dir, 'idle.wav') });
      expect(background.pool.size).toBe(1);
      await until('the idle host retired', async () => background.pool.size === 0, 5_000);
    } finally {
      background.pool.close();
    }
  });

  it('a host keeps no copy of the model once its session is loaded', async () => {
    const [model] = await engine.models();
    const host = new PiperProcess(model.modelPath);
    try {
      const result = await host.synthesize({
        sentences: [[1, 20, 30, 40, 2]],
        scales: [0, 1, 0],
        sampleRate: model.sampleRate,
        outPath: path.join(dir, 'bytes.wav'),
        pauseSamples: 0,
      });
      // The model file (63 MB) and its edited copy held on to cost ~120 MiB more: ~290 MiB instead of ~170-180.
      expect(result.rss).toBeLessThan(240 * 2 ** 20);
    } finally {
      host.kill();
    }
  });
  it('a request alone on a quiet machine gets two threads; one that takes a warm process of the other kind starts its own kind for the next', async () => {
    let quiet = false;
    const pool = createPiperEngine({ modelsDir, noise: false, quietMachine: () => quiet });
    try {
      const render = (n: number) =>
        pool.synthesize({ text: 'Two kinds of processes.', voice: JOE, outPath: path.join(dir, `kinds-${n}.wav`) });
      // Alone, but on a busy machine: one thread.
      await render(1);
      expect(pool.pool.idleThreads).toEqual([1]);
      // Alone on a quiet machine: two threads wanted; the warm one-thread process serves it at once...
      quiet = true;
      await render(2);
      // ...and a two-thread process starts beside it, joining the idle ones once loaded.
      expect(pool.pool.started).toBe(2);
      await until('the two-thread process', async () => pool.pool.idleThreads.includes(2), 60_000);
      expect([...pool.pool.idleThreads].sort()).toEqual([1, 2]);
      // The next request alone takes it: no other start.
      await render(3);
      expect(pool.pool.started).toBe(2);
      expect(pool.pool.idleThreads.at(-1)).toBe(2);
    } finally {
      pool.pool.close();
    }
  });

  it('keeps a second idle process only a short while after a burst, the most recently used one longer', async () => {
    const pool = createPiperEngine({ modelsDir, noise: false, spareIdleMs: 300, loneThreads: 1 });
    try {
      const text = 'Two renders at once take two processes.';
      await Promise.all(
        [1, 2].map((n) => pool.synthesize({ text, voice: JOE, outPath: path.join(dir, `spare-${n}.wav`) })),
      );
      expect(pool.pool.started).toBe(2);
      expect(pool.pool.size).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(pool.pool.size).toBe(1);
      // The one kept is warm: no new process for the next request.
      await pool.synthesize({ text, voice: JOE, outPath: path.join(dir, 'spare-3.wav') });
      expect(pool.pool.started).toBe(2);
    } finally {
      pool.pool.close();
    }
  });
});
