import { createHash } from 'node:crypto';
import { link, lstat, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InterruptedDownload } from '../../engines/piper/download';
import { installVoice, removeVoice } from '../../engines/piper/install';
import { findPiperModels } from '../../engines/piper/models';
import { fetchVoiceIndex, type IndexFile, listVoices, type VoiceIndex } from '../../engines/piper/voiceIndex';
import { JOE_MODEL, type PiperMirror, startPiperMirror } from '../helpers/piperMirror';

/**
 * The Piper voice installer against a local mirror of the piper-voices
 * layout (test/helpers/piperMirror.ts): the shipped joe model under other
 * keys, real sizes and MD5s. Each test installs into a fresh MODELS_DIR.
 */

const GB = 'en_GB-testa-medium';
const DE = 'de_DE-testb-low';
const MULTI = 'en_US-testm-medium';
const NO_LICENCE = 'fr_FR-testc-high';

let mirror: PiperMirror;
let index: VoiceIndex;
let dir: string;
const fast = { attempts: 3, backoffMs: 1 };

beforeAll(async () => {
  mirror = await startPiperMirror([
    { code: 'en_GB', name: 'testa', quality: 'medium' },
    { code: 'de_DE', name: 'testb', quality: 'low', licence: 'CC-BY-4.0' },
    { code: 'en_US', name: 'testm', quality: 'medium', speakers: 3 },
    { code: 'fr_FR', name: 'testc', quality: 'high', licence: null },
  ]);
  index = await fetchVoiceIndex(mirror.url);
});
afterAll(() => mirror.close());
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'openvox-voices-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const install = (key: string, onProgress?: Parameters<typeof installVoice>[1]['onProgress'], speakers?: string[]) =>
  installVoice(key, { index, baseUrl: mirror.url, modelsDir: dir, onProgress, download: fast, speakers });
const md5 = async (file: string) =>
  createHash('md5')
    .update(await readFile(file))
    .digest('hex');
const filesOf = async (key: string) => (await readdir(dir)).filter((name) => name.startsWith(key)).sort();
const onnxRequests = (key: string) => mirror.requests.filter((request) => request.path === mirror.pathOf(key, '.onnx'));

describe('the voice index', () => {
  it('lists the voices by key, filtered by language (family, code with _ or -) and quality', () => {
    const keys = (filter: Parameters<typeof listVoices>[1]) => listVoices(index, filter).map((voice) => voice.key);
    expect(keys({})).toEqual([DE, GB, MULTI, NO_LICENCE]);
    for (const language of ['de', 'de_DE', 'de-DE', 'DE-de']) expect(keys({ language })).toEqual([DE]);
    expect(keys({ language: 'en' })).toEqual([GB, MULTI]);
    expect(keys({ language: 'en-GB' })).toEqual([GB]);
    expect(keys({ language: 'en', quality: 'medium' })).toEqual([GB, MULTI]);
    expect(keys({ quality: 'high' })).toEqual([NO_LICENCE]);
    expect(keys({ language: 'it' })).toEqual([]);
    expect(() => keys({ quality: 'best' })).toThrow('unknown quality best: one of x_low, low, medium, high');
  });

  it('names the URL when the index cannot be read', async () => {
    await expect(fetchVoiceIndex(`${mirror.url}nowhere/`)).rejects.toThrow(
      `cannot read the Piper voice index ${mirror.url}nowhere/voices.json: HTTP 404`,
    );
  });
});

describe('installing', () => {
  it('installs a voice the service then reads as a usable model, with its sidecar filled', async () => {
    const progress: number[] = [];
    const result = await install(GB, ({ done, total }) => {
      expect(total).toBe(Object.values(index[GB].files).reduce((sum, file) => sum + file.size_bytes, 0));
      progress.push(done);
    });
    expect(result).toMatchObject({ key: GB, status: 'installed', speakers: 1 });
    expect(await filesOf(GB)).toEqual([`${GB}.MODEL_CARD`, `${GB}.onnx`, `${GB}.onnx.json`, `${GB}.voice.json`]);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.at(-1)).toBe(result.bytes);
    expect(await md5(path.join(dir, `${GB}.onnx`))).toBe(await md5(JOE_MODEL));

    const [model] = await findPiperModels(dir);
    expect(model).toMatchObject({
      name: GB,
      language: 'en-GB',
      quality: 'medium',
      espeakVoice: 'en-gb',
      sampleRate: 22050,
    });
    // The file as written (the service reads the fields it uses: `quality` comes from Piper's config).
    expect(JSON.parse(await readFile(path.join(dir, `${GB}.voice.json`), 'utf8'))).toEqual({
      name: 'Testa',
      language: 'en-GB',
      quality: 'medium',
      description:
        'Neural voice Testa (English, Great Britain; Piper, medium quality), installed from the Piper voice index.',
      licence: `Piper voice ${GB}: dataset licence CC0 (https://example.org/datasets/${GB}), per its model card (${GB}.MODEL_CARD). Runs with ONNX Runtime (MIT); phonemes by eSpeak NG (GPL-3.0-or-later).`,
    });
    // No gender: the index does not say it, and a sidecar's gender would override what the catalog knows.
    expect(model.sidecar).not.toHaveProperty('gender');
  });

  it('points to the model card when it names no licence', async () => {
    await install(NO_LICENCE);
    const [model] = await findPiperModels(dir);
    expect(model.sidecar.licence).toBe(
      `Piper voice ${NO_LICENCE}: see its model card (${mirror.url}${mirror.pathOf(NO_LICENCE, 'MODEL_CARD')}) for the dataset's licence. Runs with ONNX Runtime (MIT); phonemes by eSpeak NG (GPL-3.0-or-later).`,
    );
  });

  it('leaves an installed voice as it is', async () => {
    await install(DE);
    const before = onnxRequests(DE).length;
    expect(await install(DE)).toMatchObject({ status: 'already installed', bytes: 0 });
    expect(onnxRequests(DE)).toHaveLength(before);
  });

  it('installs a multi-speaker model with its speakers; without --speakers the sidecar lists none (the catalog spreads a default)', async () => {
    expect(await install(MULTI)).toMatchObject({
      status: 'installed',
      speakers: 3,
      offered: ['speaker_0', 'speaker_1', 'speaker_2'],
    });
    expect(await filesOf(MULTI)).toHaveLength(4);
    const [model] = await findPiperModels(dir);
    expect(model).toMatchObject({ name: MULTI, speakers: { speaker_0: 0, speaker_1: 1, speaker_2: 2 } });
    expect(model.sidecar.speakers).toBeUndefined();
  });

  it('writes the --speakers list into the sidecar, and rewrites it for an installed voice', async () => {
    expect(await install(MULTI, undefined, ['speaker_2', 'speaker_0'])).toMatchObject({
      status: 'installed',
      offered: ['speaker_2', 'speaker_0'],
    });
    const sidecarPath = path.join(dir, `${MULTI}.voice.json`);
    expect(JSON.parse(await readFile(sidecarPath, 'utf8'))).toMatchObject({
      name: 'Testm',
      speakers: [{ speaker: 'speaker_2' }, { speaker: 'speaker_0' }],
    });
    // An operator names one; running install again with another list keeps that name and the rest of the sidecar.
    const edited = JSON.parse(await readFile(sidecarPath, 'utf8'));
    edited.speakers[1] = { speaker: 'speaker_0', name: 'Zero', gender: 'female' };
    await writeFile(sidecarPath, JSON.stringify(edited));
    const before = onnxRequests(MULTI).length;
    expect(await install(MULTI, undefined, ['speaker_0', 'speaker_1'])).toMatchObject({
      status: 'already installed',
      offered: ['speaker_0', 'speaker_1'],
    });
    expect(onnxRequests(MULTI)).toHaveLength(before);
    expect(JSON.parse(await readFile(sidecarPath, 'utf8'))).toMatchObject({
      name: 'Testm',
      speakers: [{ speaker: 'speaker_0', name: 'Zero', gender: 'female' }, { speaker: 'speaker_1' }],
    });
    expect(await install(MULTI)).toMatchObject({ status: 'already installed', offered: ['speaker_0', 'speaker_1'] });
  });

  it('refuses --speakers the index does not name, or for a single-speaker voice, before downloading anything', async () => {
    const before = mirror.requests.length;
    await expect(install(MULTI, undefined, ['speaker_1', 'p225'])).rejects.toThrow(
      `${MULTI} has no speaker "p225": its 3 speakers are speaker_0, speaker_1, speaker_2 (the index's speaker_id_map)`,
    );
    await expect(install(GB, undefined, ['speaker_0'])).rejects.toThrow(
      `${GB} has a single speaker: --speakers is for multi-speaker models`,
    );
    await expect(install(MULTI, undefined, [' ', ''])).rejects.toThrow(`--speakers names no speaker of ${MULTI}`);
    expect(mirror.requests.length).toBe(before);
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses a key the index lacks or that is no file name', async () => {
    await expect(install('xx_XX-nobody-medium')).rejects.toThrow('xx_XX-nobody-medium is not in the Piper voice index');
    await expect(install('../etc-passwd')).rejects.toThrow('"../etc-passwd" is not a Piper voice key');
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('verifying', () => {
  it('refuses a file whose bytes differ from the index (MD5), leaving no model and no partial', async () => {
    mirror.fail(mirror.pathOf(GB, '.onnx'), { kind: 'corrupt' });
    await expect(install(GB)).rejects.toThrow(
      /en_GB-testa-medium\.onnx: MD5 [0-9a-f]{32} differs from the index's [0-9a-f]{32}: .* nothing was installed/,
    );
    expect(await readdir(dir)).toEqual([]);
    expect(await findPiperModels(dir)).toEqual([]);
  });

  it('refuses a file of another size, leaving no model and no partial', async () => {
    mirror.fail(mirror.pathOf(DE, '.onnx.json'), { kind: 'oversize' });
    await expect(install(DE)).rejects.toThrow(
      /de_DE-testb-low\.onnx\.json is \d+ bytes, the index says \d+: the mirror serves another file/,
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('fails at once on a file the mirror does not have', async () => {
    mirror.fail(mirror.pathOf(GB, 'MODEL_CARD'), { kind: 'status', status: 404 });
    await expect(install(GB)).rejects.toThrow(`${mirror.url}${mirror.pathOf(GB, 'MODEL_CARD')}: HTTP 404`);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('an index not to be trusted', () => {
  /** GB's entry with one file's facts or path changed. */
  const withFile = (file: '.onnx' | '.onnx.json', change: (path: string, facts: IndexFile) => [string, IndexFile]) => {
    const files = Object.fromEntries(
      Object.entries(index[GB].files).map(([path, facts]) =>
        path === mirror.pathOf(GB, file) ? change(path, facts) : [path, facts],
      ),
    );
    return { ...index, [GB]: { ...index[GB], files } } as VoiceIndex;
  };

  it('refuses a file on another origin unless it is allowed, before downloading anything', async () => {
    const other = await startPiperMirror([{ code: 'en_GB', name: 'testa', quality: 'medium' }]);
    try {
      const elsewhere = withFile('.onnx.json', (file, facts) => [`${other.url}${file}`, facts]);
      const before = mirror.requests.length;
      await expect(
        installVoice(GB, { index: elsewhere, baseUrl: mirror.url, modelsDir: dir, download: fast }),
      ).rejects.toThrow(
        `${GB}: the index names ${other.url}${mirror.pathOf(GB, '.onnx.json')}, off ${new URL(mirror.url).origin} (PIPER_VOICES_URL); nothing was downloaded`,
      );
      expect(other.requests).toEqual([]);
      expect(mirror.requests.length).toBe(before);
      expect(await readdir(dir)).toEqual([]);

      const allowed = { index: elsewhere, baseUrl: mirror.url, modelsDir: dir, download: fast };
      expect(await installVoice(GB, { ...allowed, fileOrigins: [new URL(other.url).origin] })).toMatchObject({
        status: 'installed',
      });
      expect(other.requests.map((request) => request.path)).toEqual([mirror.pathOf(GB, '.onnx.json')]);
    } finally {
      await other.close();
    }
  });

  it('refuses a size no Piper voice has, downloading nothing and removing an earlier partial', async () => {
    const huge = withFile('.onnx', (file, facts) => [file, { ...facts, size_bytes: Number.MAX_SAFE_INTEGER }]);
    await writeFile(path.join(dir, `${GB}.onnx.partial`), Buffer.alloc(3_000_000));
    const before = mirror.requests.length;
    await expect(
      installVoice(GB, { index: huge, baseUrl: mirror.url, modelsDir: dir, download: fast }),
    ).rejects.toThrow(`the index says ${mirror.pathOf(GB, '.onnx')} has ${Number.MAX_SAFE_INTEGER} bytes, more than`);
    expect(mirror.requests.length).toBe(before);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('files planted in MODELS_DIR', () => {
  it('writes through no symlink or hard link at a partial’s name: it is replaced, the file it points to untouched', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'openvox-victim-'));
    try {
      const victim = path.join(outside, 'authorized_keys');
      const linked = path.join(dir, 'linked');
      await writeFile(victim, 'keep');
      await writeFile(linked, 'keep too');
      await symlink(victim, path.join(dir, `${GB}.onnx.partial`));
      await symlink(victim, path.join(dir, `${GB}.voice.json.partial`));
      await link(linked, path.join(dir, `${GB}.onnx.json.partial`));
      expect(await install(GB)).toMatchObject({ status: 'installed' });
      expect(await readFile(victim, 'utf8')).toBe('keep');
      expect(await readFile(linked, 'utf8')).toBe('keep too');
      expect(await md5(path.join(dir, `${GB}.onnx`))).toBe(await md5(JOE_MODEL));
      expect((await lstat(path.join(dir, `${GB}.onnx`))).isFile()).toBe(true);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe('resuming', () => {
  it('resumes a connection dropped mid-download with a Range request, and the result verifies', async () => {
    const dropAt = 10_000_000;
    mirror.fail(mirror.pathOf(GB, '.onnx'), { kind: 'drop', afterBytes: dropAt });
    const before = onnxRequests(GB).length;
    await install(GB);
    const [first, second] = onnxRequests(GB).slice(before);
    expect(first.range).toBeUndefined();
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(second.range ?? '')?.[1]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThanOrEqual(dropAt);
    expect(await md5(path.join(dir, `${GB}.onnx`))).toBe(await md5(JOE_MODEL));
    expect((await findPiperModels(dir)).map((model) => model.name)).toEqual([GB]);
  });

  it('retries an HTTP 503', async () => {
    mirror.fail(mirror.pathOf(DE, '.onnx'), { kind: 'status', status: 503 }, 2);
    expect(await install(DE)).toMatchObject({ status: 'installed' });
  });

  it('keeps what arrived when every try breaks, and the next run resumes from it', async () => {
    mirror.fail(mirror.pathOf(DE, '.onnx'), { kind: 'drop', afterBytes: 5_000_000 }, fast.attempts);
    const failed = install(DE);
    await expect(failed).rejects.toThrow(InterruptedDownload);
    await expect(failed).rejects.toThrow(/failed 3 times .* run the command again to resume/);
    const kept = (await stat(path.join(dir, `${DE}.onnx.partial`))).size;
    expect(kept).toBeGreaterThan(0);
    expect(await findPiperModels(dir)).toEqual([]);

    const before = onnxRequests(DE).length;
    await install(DE);
    expect(onnxRequests(DE)[before].range).toBe(`bytes=${kept}-`);
    expect(await filesOf(DE)).toEqual([`${DE}.MODEL_CARD`, `${DE}.onnx`, `${DE}.onnx.json`, `${DE}.voice.json`]);
  });
});

describe('removing', () => {
  it('deletes the model, its config, sidecar and card', async () => {
    await install(GB);
    await install(DE);
    expect(await removeVoice(GB, dir)).toEqual([
      `${GB}.onnx`,
      `${GB}.onnx.json`,
      `${GB}.voice.json`,
      `${GB}.MODEL_CARD`,
    ]);
    expect(await filesOf(GB)).toEqual([]);
    expect((await findPiperModels(dir)).map((model) => model.name)).toEqual([DE]);
    await expect(removeVoice(GB, dir)).rejects.toThrow(`${GB} is not installed in ${dir}`);
  });

  it('deletes a partial download too', async () => {
    mirror.fail(mirror.pathOf(GB, '.onnx'), { kind: 'drop', afterBytes: 1_000_000 }, fast.attempts);
    await expect(install(GB)).rejects.toThrow(InterruptedDownload);
    expect(await removeVoice(GB, dir)).toEqual(expect.arrayContaining([`${GB}.onnx.partial`]));
    expect(await readdir(dir)).toEqual([]);
  });
});
