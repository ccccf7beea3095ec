import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PiperProcess } from '../../engines/piper/pool';
import { defaultModelsDir } from '../../lib/config';
import { eventually } from '../helpers/eventually';

/**
 * A Piper host leaves nothing in the temporary directory: ONNX Runtime's
 * telemetry writes `mat-debug-<pid>.log` (and `.ses`) in the host's TMPDIR
 * at its first session, which the pool makes a directory of the host's own,
 * removed when it exits.
 */

const JOE = path.join(process.env.MODELS_DIR ?? defaultModelsDir(), 'en_US-joe-medium.onnx');

it('leaves no mat-debug log and no directory of its own behind', async () => {
  const host = new PiperProcess(JOE);
  await host.ready;
  const pid = host.pid!;
  const environ = (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0');
  const hostTmp = environ.find((entry) => entry.startsWith('TMPDIR='))?.slice('TMPDIR='.length);
  host.kill();
  await eventually('the host exits', () => !host.alive);
  expect(existsSync(path.join(tmpdir(), `mat-debug-${pid}.log`))).toBe(false);
  expect(hostTmp).toMatch(/openvox-host-/);
  await eventually('its TMPDIR is removed', () => !existsSync(hostTmp!));
});
