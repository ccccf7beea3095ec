import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { premadeVoices } from '../../engines/catalog';
import { createPiperEngine, type PiperEngine } from '../../engines/piper';
import { PiperProcess } from '../../engines/piper/pool';
import { EngineError } from '../../engines/types';
import { defaultModelsDir } from '../../lib/config';

/**
 * A multi-speaker model end to end through the engine and its host process.
 * No trained multi-speaker Piper model is available offline, so the model is
 * test/fixtures/piper-multispeaker/tiny-multi.onnx (its build.py): a graph with
 * the inputs of Piper's multi-speaker exports (`input`, `input_lengths`,
 * `scales`, `sid`) whose output, a sine of 256 samples per phoneme id, has the
 * amplitude 0.1 × (sid + 1). Joe's config (its phoneme ids) goes with it,
 * with three speakers. Joe itself has no `sid` input: a speaker id sent to
 * its host changes nothing (the host feeds `sid` only to a graph that has
 * it; onnxruntime-node 1.x was seen to ignore a feed the graph lacks, so the
 * bytes show the output is unchanged, not which of the two kept it so).
 */

const TINY = path.join(__dirname, '../fixtures/piper-multispeaker/tiny-multi.onnx');
const JOE = path.join(process.env.MODELS_DIR ?? defaultModelsDir(), 'en_US-joe-medium.onnx');
const NAME = 'en_US-tiny-low';
const TEXT = 'Hello there. A second sentence.';

let dir: string;
let engine: PiperEngine;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-multi-'));
  await copyFile(TINY, path.join(dir, `${NAME}.onnx`));
  const config = JSON.parse(await readFile(`${JOE}.json`, 'utf8'));
  await writeFile(
    path.join(dir, `${NAME}.onnx.json`),
    JSON.stringify({ ...config, num_speakers: 3, speaker_id_map: { alice: 0, bob: 1, carol: 2 } }),
  );
  engine = createPiperEngine({ modelsDir: dir, noise: false, loneThreads: 1 });
});
afterAll(async () => {
  engine?.pool.close();
  await rm(dir, { recursive: true, force: true });
});

/** The WAV's 16-bit samples (engines/piper/host.ts writes a 44-byte header). */
async function samples(file: string): Promise<Int16Array> {
  const bytes = await readFile(file);
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset + 44, bytes.byteOffset + bytes.length));
}
const peak = (pcm: Int16Array) => pcm.reduce((max, value) => Math.max(max, Math.abs(value)), 0);

describe('a multi-speaker Piper model', () => {
  it('gives the engine a voice per speaker, `<model>#<speaker>`, and not the bare model', async () => {
    expect(await engine.voices()).toEqual([`${NAME}#alice`, `${NAME}#bob`, `${NAME}#carol`]);
    expect(await engine.hasVoice(`${NAME}#carol`)).toBe(true);
    expect(await engine.hasVoice(NAME)).toBe(false);
    expect(await engine.hasVoice(`${NAME}#dave`)).toBe(false);
    await expect(
      engine.synthesize({ text: TEXT, voice: `${NAME}#dave`, outPath: path.join(dir, 'dave.wav') }),
    ).rejects.toThrow(EngineError);
  });

  it('speaks each speaker with its sid, all from one loaded model', async () => {
    const outs = ['alice', 'bob', 'carol'].map((speaker) => path.join(dir, `${speaker}.wav`));
    for (const [index, speaker] of ['alice', 'bob', 'carol'].entries())
      await engine.synthesize({ text: TEXT, voice: `${NAME}#${speaker}`, outPath: outs[index] });
    const [alice, bob, carol] = await Promise.all(outs.map(samples));
    expect(alice.length).toBeGreaterThan(256 * 10);
    expect(bob.length).toBe(alice.length);
    expect(carol.length).toBe(alice.length);
    // Amplitude 0.1, 0.2, 0.3 of full scale: sid 0, 1, 2.
    expect(peak(alice) / 32767).toBeCloseTo(0.1, 2);
    expect(peak(bob) / 32767).toBeCloseTo(0.2, 2);
    expect(peak(carol) / 32767).toBeCloseTo(0.3, 2);
    expect(engine.pool.started).toBe(1);
  });

  it('lists its default speakers in the catalog (three, all it has), rendered by the engine', async () => {
    const voices = (await premadeVoices(dir)).filter((voice) => voice.engineVoice.startsWith(NAME));
    expect(voices.map((voice) => [voice.id, voice.engineVoice, voice.gender])).toEqual([
      ['en-us-tiny-low-alice', `${NAME}#alice`, 'unknown'],
      ['en-us-tiny-low-bob', `${NAME}#bob`, 'unknown'],
      ['en-us-tiny-low-carol', `${NAME}#carol`, 'unknown'],
    ]);
    for (const voice of voices) expect(await engine.hasVoice(voice.engineVoice)).toBe(true);
  });
});

describe('the host and `sid`', () => {
  const request = async (modelPath: string, speakerId: number | undefined, outPath: string) => {
    const host = new PiperProcess(modelPath);
    try {
      const ids = [1, 0, 20, 0, 21, 0, 22, 0, 2];
      await host.synthesize({
        sentences: [ids],
        scales: [0, 1, 0],
        sampleRate: 22050,
        outPath,
        pauseSamples: 0,
        speakerId,
      });
      return await readFile(outPath);
    } finally {
      host.kill();
    }
  };

  it('joe (no sid input): a speaker id changes nothing', async () => {
    const without = await request(JOE, undefined, path.join(dir, 'joe-none.wav'));
    const withSid = await request(JOE, 7, path.join(dir, 'joe-7.wav'));
    expect(without.length).toBeGreaterThan(1000);
    expect(withSid.equals(without)).toBe(true);
  });

  it('a multi-speaker model without a speaker id: sid 0, as piper-tts defaults', async () => {
    const without = await request(TINY, undefined, path.join(dir, 'tiny-none.wav'));
    const first = await request(TINY, 0, path.join(dir, 'tiny-0.wav'));
    const third = await request(TINY, 2, path.join(dir, 'tiny-2.wav'));
    expect(without.equals(first)).toBe(true);
    expect(third.equals(first)).toBe(false);
  });
});
