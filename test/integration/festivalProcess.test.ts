import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFestivalEngine, htsRate } from '../../engines/festival';
import { EngineError } from '../../engines/types';

/**
 * The kept Festival interpreters (engines/festivalProcess.ts) against the
 * real festival: the same bytes as text2wave, reuse, and recovery when an
 * interpreter dies or a render is aborted.
 */

const VOICE = 'cmu_us_slt_arctic_hts';
const TEXT = 'The morning train left on time, and every passenger found a seat.';
let work: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'openvox-festival-test-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Process ids of this test process's festival interpreters. */
function interpreters(): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(process.pid), '-x', 'festival'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

const until = async (what: string, probe: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('kept Festival interpreters', () => {
  it('write the same bytes as a text2wave run of the same text, voice and rate', async () => {
    const festival = createFestivalEngine();
    const kept = path.join(work, 'kept.wav');
    await festival.synthesize({ text: TEXT, voice: VOICE, rate: 1.25, outPath: kept });
    const textFile = path.join(work, 'cli.txt');
    await writeFile(textFile, TEXT);
    const cli = path.join(work, 'cli.wav');
    execFileSync('text2wave', [
      '-eval',
      `(voice_${VOICE})`,
      '-eval',
      `(Parameter.set 'Duration_Stretch ${(1 / 1.25).toFixed(4)})`,
      // The HTS voice is asked its calibrated rate (htsRate), as the engine asks it.
      '-eval',
      `(begin (defvar hts_engine_params nil) (set! hts_engine_params (append hts_engine_params (list (list "-r" ${htsRate(1.25).toFixed(4)})))))`,
      '-o',
      cli,
      textFile,
    ]);
    expect((await readFile(kept)).equals(await readFile(cli))).toBe(true);
  }, 30_000);

  it('reuse one interpreter per voice for requests one after another', async () => {
    const festival = createFestivalEngine();
    const before = interpreters();
    for (let i = 0; i < 3; i++)
      await festival.synthesize({
        text: `${TEXT} Take ${i}.`,
        voice: VOICE,
        outPath: path.join(work, `reuse-${i}.wav`),
      });
    expect(interpreters().filter((pid) => !before.includes(pid))).toHaveLength(1);
  }, 30_000);

  it('replace an interpreter that died while idle, and the next render still succeeds', async () => {
    const festival = createFestivalEngine();
    const before = interpreters();
    await festival.synthesize({ text: TEXT, voice: VOICE, outPath: path.join(work, 'first.wav') });
    const [pid] = interpreters().filter((candidate) => !before.includes(candidate));
    process.kill(pid, 'SIGKILL');
    await until('the killed interpreter to be reaped', () => !interpreters().includes(pid));
    const out = path.join(work, 'after-kill.wav');
    await festival.synthesize({ text: TEXT, voice: VOICE, outPath: out });
    expect((await readFile(out)).length).toBeGreaterThan(44);
  }, 30_000);

  it('kill the interpreter of an aborted render, report it as aborted, and render again afterwards', async () => {
    const festival = createFestivalEngine();
    const controller = new AbortController();
    const long = Array.from({ length: 12 }, () => TEXT).join(' ');
    const before = interpreters();
    const render = festival.synthesize({
      text: long,
      voice: VOICE,
      outPath: path.join(work, 'aborted.wav'),
      signal: controller.signal,
    });
    await until('an interpreter to start', () => interpreters().some((pid) => !before.includes(pid)));
    const [pid] = interpreters().filter((candidate) => !before.includes(candidate));
    setTimeout(() => controller.abort(), 300);
    await expect(render).rejects.toThrow(EngineError);
    await expect(render).rejects.toThrow(/aborted/);
    await until('the aborted interpreter to exit', () => !interpreters().includes(pid));
    const out = path.join(work, 'after-abort.wav');
    await festival.synthesize({ text: TEXT, voice: VOICE, outPath: out });
    expect((await readFile(out)).length).toBeGreaterThan(44);
  }, 30_000);

  it('fail cleanly for a voice that is not installed, without keeping a broken interpreter', async () => {
    const festival = createFestivalEngine();
    const before = interpreters();
    await expect(
      festival.synthesize({ text: TEXT, voice: 'no_such_voice', outPath: path.join(work, 'none.wav') }),
    ).rejects.toThrow(/voice not installed/);
    await until('the broken interpreter to exit', () => interpreters().every((pid) => before.includes(pid)));
  }, 30_000);
});
