import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../cli/program';
import { findPiperModels } from '../../engines/piper/models';
import { type PiperMirror, startPiperMirror } from '../helpers/piperMirror';

/**
 * `openvox voices available|install|remove` as an operator runs them, in
 * process, with MODELS_DIR a temporary directory and PIPER_VOICES_URL the
 * local mirror (test/helpers/piperMirror.ts).
 */

const GB = 'en_GB-testa-medium';
const THORSTEN = 'de_DE-thorsten-medium'; // a recommended key, served by the mirror as joe's bytes
const MULTI = 'en_US-testm-medium';
/** Its model card's licence line carries terminal escapes (a title, a screen clear). */
const ESCAPES = 'en_GB-testesc-low';

let mirror: PiperMirror;
let dir: string;

beforeAll(async () => {
  mirror = await startPiperMirror([
    { code: 'en_GB', name: 'testa', quality: 'medium' },
    { code: 'de_DE', name: 'thorsten', quality: 'medium' },
    { code: 'de_DE', name: 'testb', quality: 'low' },
    { code: 'en_US', name: 'testm', quality: 'medium', speakers: 3 },
    { code: 'en_GB', name: 'testesc', quality: 'low', licence: 'CC0\x1b]0;owned\x07\x1b[2J' },
  ]);
});
afterAll(() => mirror.close());
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'openvox-voices-cli-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function openvox(args: string[], options: { tty?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
    env: { ...process.env, MODELS_DIR: dir, PIPER_VOICES_URL: mirror.url, ...options.env },
    tty: options.tty ?? false,
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

describe('openvox voices available', () => {
  it('lists the index’s voices of a language, marking the installed ones', async () => {
    const german = await openvox(['voices', 'available', '--language', 'de']);
    expect(german.code).toBe(0);
    expect(german.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^ {2}de_DE-testb-low\tde_DE\tlow\t1 speaker\t63\.2 MB$/),
      expect.stringMatching(/^ {2}de_DE-thorsten-medium\tde_DE\tmedium\t1 speaker\t63\.2 MB$/),
    ]);
    await openvox(['voices', 'install', GB]);
    const english = await openvox(['voices', 'available', '--language', 'en-GB', '--quality', 'medium', '--json']);
    expect(english.json()).toEqual([
      { key: GB, language: 'en_GB', quality: 'medium', speakers: 1, size_bytes: expect.any(Number), installed: true },
    ]);
    expect((await openvox(['voices', 'available', '--language', 'en'])).stdout).toContain(`* ${GB}\t`);
  });

  it('escapes control characters of the index: a key cannot drive the terminal or forge a listing line', async () => {
    const forged = `zz_ZZ-x-low\x1b[2K\r\n* ${GB}\tinstalled`;
    mirror.index[forged] = { ...mirror.index[GB], key: forged, language: { code: 'zz_ZZ\u202e', family: 'zz' } };
    try {
      const listed = await openvox(['voices', 'available']);
      expect(listed.code).toBe(0);
      expect(listed.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]/u);
      const lines = listed.stdout.trimEnd().split('\n');
      // One line of GB's own, not marked installed; the forged one stays inside the key's field.
      expect(lines.filter((line) => /^[* ] en_GB-testa-medium\t/.test(line))).toEqual([
        expect.stringMatching(new RegExp(`^  ${GB}\t`)),
      ]);
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^ {2}zz_ZZ-x-low\\x1b\[2K\\r\\n\* en_GB-testa-medium\\tinstalled\tzz_ZZ\\u202e\tmedium\t/,
        ),
      );
    } finally {
      delete mirror.index[forged];
    }
  });

  it('refuses an unknown quality as a usage error', async () => {
    const bad = await openvox(['voices', 'available', '--quality', 'best']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('One of x_low, low, medium, high.');
  });

  it('says which index it could not read', async () => {
    const offline = await openvox(['voices', 'available'], { env: { PIPER_VOICES_URL: `${mirror.url}missing/` } });
    expect(offline.code).toBe(1);
    expect(offline.stderr).toContain(
      `openvox: cannot read the Piper voice index ${mirror.url}missing/voices.json: HTTP 404`,
    );
  });
});

describe('openvox voices install', () => {
  it('installs the named voices, logging each download off a terminal, and the service reads them', async () => {
    const installed = await openvox(['voices', 'install', GB, 'de_DE-testb-low']);
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain(
      `installed ${GB} (63.2 MB) in ${dir}: en-GB, medium quality; Piper voice ${GB}: dataset licence CC0`,
    );
    expect(installed.stdout).toContain(`installed de_DE-testb-low (63.2 MB) in ${dir}: de-DE, low quality;`);
    // Off a terminal: whole lines, none redrawn; each voice's first says what downloads, and any later one (every 5 s at most) is a bar.
    expect(installed.stderr).not.toContain('\r');
    const lines = installed.stderr.trimEnd().split('\n');
    expect(lines.filter((line) => line.includes(': downloading'))).toEqual([
      `${GB}: downloading 63.2 MB`,
      'de_DE-testb-low: downloading 63.2 MB',
    ]);
    for (const line of lines.filter((line) => !line.includes(': downloading')))
      expect(line).toMatch(/^(en_GB-testa-medium|de_DE-testb-low) [\d.]+\/63\.2 MB \[[#.]{24}\] +\d+%/);
    expect((await findPiperModels(dir)).map((model) => model.name)).toEqual(['de_DE-testb-low', GB]);

    const again = await openvox(['voices', 'install', GB]);
    expect(again.stdout).toBe(`${GB} is already installed in ${dir}\n`);
  });

  it('prints no terminal escape of a model card', async () => {
    const installed = await openvox(['voices', 'install', ESCAPES]);
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain(`installed ${ESCAPES} (`);
    expect(installed.stdout).toContain('dataset licence CC0');
    expect(installed.stdout).not.toMatch(/[\x07\x1b]/);
  });

  it('redraws one progress bar on a terminal', async () => {
    const installed = await openvox(['voices', 'install', GB], { tty: true });
    expect(installed.code).toBe(0);
    expect(installed.stderr.startsWith(`\r${GB} `)).toBe(true);
    expect(installed.stderr).toMatch(/\[#{24}\] 100%\n$/);
  });

  it('installs the recommended voice of a language, and names the languages it has none for', async () => {
    const german = await openvox(['voices', 'install', '--recommended', '--language', 'de', '--json']);
    expect(german.code).toBe(0);
    expect(german.json()).toEqual([
      expect.objectContaining({
        key: THORSTEN,
        status: 'installed',
        sidecar: expect.objectContaining({ name: 'Thorsten', language: 'de-DE' }),
      }),
    ]);
    expect(german.stderr).toBe('');
    const french = await openvox(['voices', 'install', '--recommended', '--language', 'fr']);
    expect(french.code).toBe(1);
    expect(french.stderr).toContain('no recommended voice for fr in this index');
    // Of all recommended voices this mirror serves thorsten only.
    const all = await openvox(['voices', 'install', '--recommended']);
    expect(all.stdout).toBe(`${THORSTEN} is already installed in ${dir}\n`);
  });

  it('installs a multi-speaker model and says which speakers the catalog offers; --speakers chooses them', async () => {
    const installed = await openvox(['voices', 'install', MULTI]);
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain(
      `note: ${MULTI} has 3 speakers; the catalog offers 3 of them: speaker_0, speaker_1, speaker_2. Choose others with --speakers a,b,c or in ${MULTI}.voice.json (docs/voices.md)\n`,
    );
    const chosen = await openvox(['voices', 'install', MULTI, '--speakers', 'speaker_2,speaker_1']);
    expect(chosen.code).toBe(0);
    expect(chosen.stdout).toContain('the catalog offers 2 of them: speaker_2, speaker_1.');
    const [model] = await findPiperModels(dir);
    expect(model.sidecar.speakers).toEqual([{ speaker: 'speaker_2' }, { speaker: 'speaker_1' }]);
    const unknown = await openvox(['voices', 'install', MULTI, '--speakers', 'p225']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      `${MULTI} has no speaker "p225": its 3 speakers are speaker_0, speaker_1, speaker_2`,
    );
    const two = await openvox(['voices', 'install', MULTI, GB, '--speakers', 'speaker_0']);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('--speakers goes with one voice key');
  });

  it('fails clearly on a corrupt download, installing nothing', async () => {
    mirror.fail(mirror.pathOf(GB, '.onnx'), { kind: 'corrupt' });
    const corrupt = await openvox(['voices', 'install', GB]);
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toMatch(/openvox: .*en_GB-testa-medium\.onnx: MD5 [0-9a-f]{32} differs from the index's/);
    expect(await readdir(dir)).toEqual([]);
  });

  it('wants keys or --recommended, and --language only with --recommended', async () => {
    for (const args of [[], [GB, '--recommended'], [GB, '--language', 'de']]) {
      const usage = await openvox(['voices', 'install', ...args]);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/error: (name voice keys or give --recommended|--language goes with --recommended)/);
    }
    const unknown = await openvox(['voices', 'install', 'xx_XX-nobody-medium']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('xx_XX-nobody-medium is not in the Piper voice index');
  });
});

describe('openvox voices remove', () => {
  it('deletes the voices’ files', async () => {
    await openvox(['voices', 'install', GB]);
    const removed = await openvox(['voices', 'remove', GB]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(
      `removed ${GB} from ${dir}: ${GB}.onnx, ${GB}.onnx.json, ${GB}.voice.json, ${GB}.MODEL_CARD\n`,
    );
    expect(await readdir(dir)).toEqual([]);
    const again = await openvox(['voices', 'remove', GB]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${GB} is not installed in ${dir}`);
  });
});

describe('openvox voices (the user’s list)', () => {
  it('still lists over the HTTP API when no subcommand is named', async () => {
    // Nothing listens on port 1: the error shows the API request was made, with the list's options accepted.
    const env = {
      OPENVOX_URL: 'http://127.0.0.1:1',
      OPENVOX_API_KEY: 'vk_test',
      OPENVOX_CONFIG: path.join(dir, 'none.json'),
    };
    for (const args of [
      ['voices', '--language', 'en', '--limit', '5'],
      ['voices', 'list', '--category', 'premade'],
    ]) {
      const listed = await openvox(args, { env });
      expect(listed.code).toBe(1);
      expect(listed.stderr).toMatch(/^openvox: cannot reach http:\/\/127\.0\.0\.1:1: /);
    }
  });
});
