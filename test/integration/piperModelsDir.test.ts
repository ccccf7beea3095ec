import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { copyFile, mkdir, mkdtemp, open, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findPiperModels } from '../../engines/piper/models';
import { defaultModelsDir } from '../../lib/config';

/**
 * What the service reads of MODELS_DIR (the rescan, the catalog) when its
 * files are not what their names say: a FIFO or a directory where a config or
 * sidecar should be must not hang or break the scan of the others.
 */

const JOE = path.join(process.env.MODELS_DIR ?? defaultModelsDir(), 'en_US-joe-medium.onnx');
let dir: string;
const fifos: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'openvox-models-dir-'));
  for (const name of ['en_US-good-medium', 'en_US-fifo-medium', 'en_US-sidecarfifo-medium', 'en_US-dir-medium']) {
    await symlink(JOE, path.join(dir, `${name}.onnx`));
    if (name !== 'en_US-fifo-medium') await copyFile(`${JOE}.json`, path.join(dir, `${name}.onnx.json`));
  }
  fifos.push(path.join(dir, 'en_US-fifo-medium.onnx.json'), path.join(dir, 'en_US-sidecarfifo-medium.voice.json'));
  // Node has no mkfifo: the shell's (POSIX).
  execFileSync('sh', ['-c', 'mkfifo "$@"', 'mkfifo', ...fifos]);
  // A model that is a directory, with its config.
  await rm(path.join(dir, 'en_US-dir-medium.onnx'));
  await mkdir(path.join(dir, 'en_US-dir-medium.onnx'));
  await writeFile(path.join(dir, 'en_US-good-medium.voice.json'), JSON.stringify({ name: 'Good' }));
});

afterAll(async () => {
  // A reader stuck on a FIFO (the code before the fix) gets its end of file, so jest can exit.
  for (const fifo of fifos) {
    const writer = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => null);
    await writer?.close();
  }
  await rm(dir, { recursive: true, force: true });
});

it('skips a config that is a FIFO and a model that is a directory, and reads a FIFO sidecar as none, without blocking', async () => {
  const models = await findPiperModels(dir);
  expect(models.map((model) => model.name)).toEqual(['en_US-good-medium', 'en_US-sidecarfifo-medium']);
  expect(models[0].sidecar).toEqual({ name: 'Good' });
  expect(models[1].sidecar).toEqual({});
}, 10_000);
