import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { premadeVoices } from '../../engines/catalog';
import { defaultSpeakers, findPiperModels } from '../../engines/piper/models';

/**
 * Multi-speaker Piper models in MODELS_DIR (engines/piper/models.ts) and the
 * speakers the catalog offers of them (engines/catalog.ts): the sidecar's
 * `speakers`, else up to four spread over the ids. Only the configs are read
 * here, so the `.onnx` files are empty.
 */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'openvox-speakers-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function addModel(
  name: string,
  config: { code: string; speakers: number; map?: Record<string, number> },
  sidecar?: object,
) {
  await writeFile(path.join(dir, `${name}.onnx`), '');
  await writeFile(
    path.join(dir, `${name}.onnx.json`),
    JSON.stringify({
      audio: { sample_rate: 22050, quality: 'medium' },
      espeak: { voice: 'en-us' },
      phoneme_id_map: { _: [0], '^': [1], $: [2] },
      language: { code: config.code },
      num_speakers: config.speakers,
      speaker_id_map: config.map ?? {},
    }),
  );
  if (sidecar) await writeFile(path.join(dir, `${name}.voice.json`), JSON.stringify(sidecar));
}

/** 904 speakers named like libritts_r's (numbers that do not sort as their ids do). */
const LIBRITTS = Object.fromEntries(Array.from({ length: 904 }, (_, sid) => [String(9000 - sid * 7), sid]));
const VCTK = Object.fromEntries(Array.from({ length: 109 }, (_, sid) => [`p${225 + sid}`, sid]));
const operatorVoices = async () =>
  (await premadeVoices(dir)).filter((voice) => voice.engine === 'piper' && voice.id !== 'en-us-joe');

describe('multi-speaker models', () => {
  it('are kept with their speaker_id_map; one without a map names its speakers by id', async () => {
    await addModel('en_GB-vctk-medium', { code: 'en_GB', speakers: 109, map: VCTK });
    await addModel('xx-nomap-low', { code: 'en_US', speakers: 3 });
    await addModel('en_US-single-medium', { code: 'en_US', speakers: 1 });
    const models = await findPiperModels(dir);
    expect(models.map((model) => [model.name, Object.keys(model.speakers).length])).toEqual([
      ['en_GB-vctk-medium', 109],
      ['en_US-single-medium', 0],
      ['xx-nomap-low', 3],
    ]);
    expect(models[0].speakers.p225).toBe(0);
    expect(models[0].speakers.p333).toBe(108);
    expect(models[2].speakers).toEqual({ 0: 0, 1: 1, 2: 2 });
  });

  it('offer four speakers spread evenly over the ids when the sidecar lists none, the first one first', async () => {
    expect(defaultSpeakers(LIBRITTS).map((speaker) => LIBRITTS[speaker])).toEqual([0, 226, 452, 678]);
    expect(defaultSpeakers({ b: 1, a: 0, c: 2 })).toEqual(['a', 'b', 'c']);
    expect(defaultSpeakers({})).toEqual([]);

    await addModel('en_US-libritts_r-medium', { code: 'en_US', speakers: 904, map: LIBRITTS });
    const voices = await operatorVoices();
    expect(voices.map((voice) => voice.id)).toEqual(
      ['9000', '7418', '5836', '4254'].map((speaker) => `en-us-libritts-r-medium-${speaker}`),
    );
    expect(voices[0]).toMatchObject({
      name: 'en_US-libritts_r-medium 9000',
      language: 'en-US',
      gender: 'unknown',
      engine: 'piper',
      engineVoice: 'en_US-libritts_r-medium#9000',
      license: 'free',
      quality: 'neural',
    });
    expect(voices[0].description).toContain('speaker 9000 of en_US-libritts_r-medium, a model of 904 speakers');
    expect(new Set(voices.map((voice) => voice.description)).size).toBe(4);
  });

  it("offer the sidecar's speakers in its order, with their names and genders; names the model lacks are left out", async () => {
    await addModel(
      'en_GB-vctk-medium',
      { code: 'en_GB', speakers: 109, map: VCTK },
      {
        name: 'VCTK',
        licence: 'CC-BY-4.0 (VCTK), per its model card.',
        speakers: [
          { speaker: 'p226', name: 'Bob', gender: 'male', description: 'A calm southern English man.' },
          { speaker: 'p225', name: 'Alice', gender: 'female' },
          { speaker: 'nobody' },
          'p227',
        ],
      },
    );
    const voices = await operatorVoices();
    expect(
      voices.map(({ id, name, gender, engineVoice, language }) => ({ id, name, gender, engineVoice, language })),
    ).toEqual([
      {
        id: 'en-gb-vctk-medium-p226',
        name: 'Bob',
        gender: 'male',
        engineVoice: 'en_GB-vctk-medium#p226',
        language: 'en-GB',
      },
      {
        id: 'en-gb-vctk-medium-p225',
        name: 'Alice',
        gender: 'female',
        engineVoice: 'en_GB-vctk-medium#p225',
        language: 'en-GB',
      },
    ]);
    expect(voices[0]).toMatchObject({
      description: 'A calm southern English man.',
      licence: 'CC-BY-4.0 (VCTK), per its model card.',
    });
    expect(voices[1].description).toContain('speaker p225 of en_GB-vctk-medium');
  });

  it("take the sidecar's id as the prefix of their ids, sanitized like file names", async () => {
    await addModel(
      'en_GB-vctk-medium',
      { code: 'en_GB', speakers: 109, map: VCTK },
      { id: 'en-gb-house', speakers: [{ speaker: 'p225' }] },
    );
    await addModel('en_US-odd-low', { code: 'en_US', speakers: 2, map: { 'Speaker One!': 0, 'two/2': 1 } });
    expect((await operatorVoices()).map((voice) => [voice.id, voice.engineVoice])).toEqual([
      ['en-us-odd-low-speaker-one', 'en_US-odd-low#Speaker One!'],
      ['en-us-odd-low-two-2', 'en_US-odd-low#two/2'],
      ['en-gb-house-p225', 'en_GB-vctk-medium#p225'],
    ]);
  });

  it('sit among the single-speaker voices by model name, and never take a taken id', async () => {
    await addModel('en_US-amy-medium', { code: 'en_US', speakers: 1 });
    await addModel('en_US-b-low', { code: 'en_US', speakers: 2, map: { x: 0, y: 1 } });
    // A single-speaker model whose id is speaker x's (`en-us-b-low-x`): its file name comes first, so it keeps the id.
    await addModel('en_US-b-low-x', { code: 'en_US', speakers: 1 });
    await addModel('en_US-c-low', { code: 'en_US', speakers: 1 });
    const voices = await operatorVoices();
    expect(voices.map((voice) => [voice.id, voice.engineVoice])).toEqual([
      ['en-us-amy-medium', 'en_US-amy-medium'],
      ['en-us-b-low-y', 'en_US-b-low#y'],
      ['en-us-b-low-x', 'en_US-b-low-x'],
      ['en-us-c-low', 'en_US-c-low'],
    ]);
  });
});
