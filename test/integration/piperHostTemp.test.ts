import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PiperProcess } from '../../engines/piper/pool';
import { defaultModelsDir } from '../../lib/config';
import { eventually } from '../helpers/eventually';

/**
 * A Piper host leaves nothing in the temporary directory: ONNX Runtime's
 * telemetry creates an empty `mat-debug-<pid>.log` in TMPDIR at the host's
 * first session, which the host removes once its session is loaded
 * (engines/onnxHost.ts).
 */

const JOE = path.join(process.env.MODELS_DIR ?? defaultModelsDir(), 'en_US-joe-medium.onnx');

it('leaves no mat-debug log behind', async () => {
  const host = new PiperProcess(JOE);
  await host.ready;
  const pid = host.pid!;
  const log = path.join(tmpdir(), `mat-debug-${pid}.log`);
  expect(existsSync(log)).toBe(false);
  host.kill();
  await eventually('the host exits', () => !host.alive);
  expect(existsSync(log)).toBe(false);
});
