import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ffmpeg, fileUrl } from '../audio/ffmpeg';
import { createKokoroEngine, KOKORO_DIR, KOKORO_MODEL } from '../engines/kokoro';
import { kokoroSymbols } from '../engines/kokoro/phonemes';
import { textToPhonemes } from '../engines/piper/phonemes';
import { defaultModelsDir } from '../lib/config';
import { durationAndF0, recognize, wordErrors } from './measures';
import { EVERYDAY_SENTENCES } from './texts';

/**
 * Kokoro here against kokoro-onnx's own Python API (PyPI, in a venv under ~/.cache/openvox), same
 * machine, same run, same model file, same style and the same phonemes (ours, fed with
 * `is_phonemes=True`; kokoro-onnx's own phonemizer as a third row): CPU seconds per audio second
 * (the host process's, from /proc; Python's process time), the first sentence's latency (what a
 * stream's first audio waits for), pocketsphinx WER and the audio's duration.
 *
 *   npm run bench:kokoro -- [style .npy]   (default: MODELS_DIR/kokoro/voices/jf_alpha.npy, the shipped style)
 */

const run = promisify(execFile);
const VENV = path.join(os.homedir(), '.cache', 'openvox', 'kokoro-onnx-venv');
const PYTHON = path.join(VENV, 'bin', 'python');

const PY = String.raw`
import json, sys, time, wave
import numpy as np
from kokoro_onnx import Kokoro
model, npz, out, requests = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(open(sys.argv[4]).read())
kokoro = Kokoro(model, npz)
style = kokoro.voices["af_bench"]
results = []
kokoro.create("Warm up.", voice=style, lang="en-us", trim=False)
for index, request in enumerate(requests):
    cpu, wall = time.process_time(), time.perf_counter()
    if request["phonemes"]:
        audio, rate = kokoro.create(request["phonemes"], voice=style, is_phonemes=True, trim=False, sentence_pause=0, clause_pause=0)
    else:
        audio, rate = kokoro.create(request["text"], voice=style, lang="en-us", trim=False, sentence_pause=0, clause_pause=0)
    results.append({"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall, "seconds": len(audio) / rate})
    with wave.open(f"{out}/{index}.wav", "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(rate)
        w.writeframes((np.clip(audio, -1, 1) * 32767).astype(np.int16).tobytes())
print(json.dumps(results))
`;

async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function ensureVenv() {
  if (existsSync(PYTHON)) return;
  await run('python3', ['-m', 'venv', VENV]);
  await run(path.join(VENV, 'bin', 'pip'), ['install', '--quiet', 'kokoro-onnx==0.6.1'], { maxBuffer: 1 << 24 });
}

async function main() {
  const shared = path.join(process.env.MODELS_DIR || defaultModelsDir(), KOKORO_DIR);
  const stylePath = process.argv[2] ?? path.join(shared, 'voices', 'jf_alpha.npy');
  await ensureVenv();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-bench-kokoro-'));
  const modelsDir = path.join(dir, 'models');
  await mkdir(path.join(modelsDir, KOKORO_DIR, 'voices'), { recursive: true });
  await symlink(path.join(shared, KOKORO_MODEL), path.join(modelsDir, KOKORO_DIR, KOKORO_MODEL));
  await copyFile(path.join(shared, 'vocab.json'), path.join(modelsDir, KOKORO_DIR, 'vocab.json'));
  await copyFile(stylePath, path.join(modelsDir, KOKORO_DIR, 'voices', 'af_bench.npy'));
  const vocab = (
    JSON.parse(await readFile(path.join(shared, 'vocab.json'), 'utf8')) as { vocab: Record<string, number> }
  ).vocab;
  // One thread each side: the comparison is of CPU per audio second, not of how many cores each grabs.
  const engine = createKokoroEngine({ modelsDir, loneThreads: 1, maxHosts: 1 });
  try {
    const sentences = [...EVERYDAY_SENTENCES];
    const phonemes: string[] = [];
    for (const sentence of sentences) {
      const [first] = await textToPhonemes(sentence, { espeakVoice: 'en-us' });
      phonemes.push(kokoroSymbols(first.phonemes, vocab).symbols.join(''));
    }
    // Ours: warm the host, then each sentence alone (its first sentence's time is the first-audio latency).
    await engine.synthesize({ text: 'Warm up.', voice: 'af_bench', outPath: path.join(dir, 'warm.wav') });
    const ours: Array<{ cpu: number; wall: number; seconds: number; wav: string }> = [];
    for (const [index, sentence] of sentences.entries()) {
      const wav = path.join(dir, `ours-${index}.wav`);
      let pid = 0;
      let cpu = 0;
      const started = performance.now();
      await engine.pool.with(path.join(modelsDir, KOKORO_DIR, KOKORO_MODEL), async (host) => {
        pid = host.pid!;
        cpu = await cpuSeconds(pid);
      });
      await engine.synthesize({ text: sentence, voice: 'af_bench', outPath: wav });
      const wall = (performance.now() - started) / 1000;
      ours.push({ cpu: (await cpuSeconds(pid)) - cpu, wall, seconds: (await durationAndF0(wav)).seconds, wav });
    }
    // kokoro-onnx on the same phonemes, and on its own phonemes of the text.
    const npz = path.join(dir, 'style.npz');
    await run(PYTHON, [
      '-c',
      `import numpy as np, sys; np.savez(sys.argv[1], af_bench=np.load(sys.argv[2]))`,
      npz,
      stylePath,
    ]);
    const reference = async (label: string, requests: Array<{ text: string; phonemes: string | null }>) => {
      const out = path.join(dir, label);
      await mkdir(out);
      const requestsFile = path.join(dir, `${label}.json`);
      await writeFile(requestsFile, JSON.stringify(requests));
      const { stdout } = await run(PYTHON, ['-c', PY, path.join(shared, KOKORO_MODEL), npz, out, requestsFile], {
        env: { ...process.env, OMP_NUM_THREADS: '1' },
        maxBuffer: 1 << 24,
      });
      return (
        JSON.parse(stdout.trim().split('\n').at(-1)!) as Array<{ cpu: number; wall: number; seconds: number }>
      ).map((row, index) => ({ ...row, wav: path.join(out, `${index}.wav`) }));
    };
    const samePhonemes = await reference(
      'same',
      sentences.map((text, index) => ({ text, phonemes: phonemes[index] })),
    );
    const ownPhonemes = await reference(
      'own',
      sentences.map((text) => ({ text, phonemes: null })),
    );

    const heard = async (wav: string) => {
      const input = `${wav}.16k.wav`;
      await ffmpeg([
        '-i',
        fileUrl(wav),
        '-af',
        'adelay=300,apad=pad_dur=0.3',
        '-ar',
        '16000',
        '-ac',
        '1',
        '-c:a',
        'pcm_s16le',
        fileUrl(input),
      ]);
      return (await recognize(input)) ?? '';
    };
    const rows: string[][] = [];
    const base = { cpu: 0, seconds: 0, first: 0 };
    for (const [label, results] of [
      ['openvox kokoro engine', ours],
      ['kokoro-onnx, same phonemes', samePhonemes],
      ['kokoro-onnx, its own phonemes', ownPhonemes],
    ] as const) {
      const cpu = results.reduce((sum, row) => sum + row.cpu, 0);
      const seconds = results.reduce((sum, row) => sum + row.seconds, 0);
      let hypothesis = '';
      for (const row of results) hypothesis += ` ${await heard(row.wav)}`;
      const { errors, words } = wordErrors(sentences.join(' '), hypothesis);
      if (label === 'openvox kokoro engine')
        Object.assign(base, { cpu: cpu / seconds, seconds, first: results[0].wall });
      rows.push([
        label,
        (cpu / seconds).toFixed(3),
        `${(cpu / seconds / base.cpu).toFixed(2)}×`,
        `${(results[0].wall * 1000).toFixed(0)} ms`,
        `${(results[0].wall / base.first).toFixed(2)}×`,
        `${seconds.toFixed(2)} s`,
        `${(seconds / base.seconds).toFixed(3)}×`,
        `${((100 * errors) / words).toFixed(1)} % (${errors}/${words})`,
      ]);
      console.log(rows.at(-1)!.join(' | '));
    }
    const header = [
      'rendering',
      'CPU s per audio s',
      'vs ours',
      'first sentence',
      'vs ours',
      'audio',
      'vs ours',
      'WER (pocketsphinx)',
    ];
    console.log(
      `\n${sentences.length} sentences, one thread each side, load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores\n`,
    );
    console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
    for (const row of rows) console.log(`| ${row.join(' | ')} |`);
    console.log(`\nphonemes (ours, fed to both): ${phonemes[0]}`);
  } finally {
    engine.pool.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
