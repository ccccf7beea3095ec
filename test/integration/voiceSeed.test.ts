import { copyFile, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Voice } from '../../db/models/Voice';
import { type RefusedVoice, seedVoices } from '../../db/seeds/voices';
import { sharedEngines } from '../../engines/registry';
import { defaultModelsDir } from '../../lib/config';
import { useStack } from '../helpers/stack';

/**
 * The catalog's seed with operator voices the `voices` table cannot take
 * as they are: one bad voice in MODELS_DIR must keep out only itself (and be
 * reported), never the rest of the catalog, a rescan or `npm run migrate`.
 * A database of its own: the seed changes the catalog every test sees.
 */

const JOE = path.join(process.env.MODELS_DIR ?? defaultModelsDir(), 'en_US-joe-medium.onnx');
/** 123 characters: more than the `engine_voice` column's 100, which no cut can mend (it names the file). */
const LONG_NAME = `en_US-${'x'.repeat(110)}-medium`;

const { deps } = useStack({ api: false, database: 'seed' });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'openvox-seed-'));
  for (const name of ['en_GB-good-medium', 'en_GB-wordy-medium', LONG_NAME]) {
    await symlink(JOE, path.join(dir, `${name}.onnx`));
    await copyFile(`${JOE}.json`, path.join(dir, `${name}.onnx.json`));
  }
  // Longer than the `name` and `description` columns, with a terminal escape and a gender the catalog has not.
  await writeFile(
    path.join(dir, 'en_GB-wordy-medium.voice.json'),
    JSON.stringify({
      name: `Wordy\u001b[2J ${'n'.repeat(200)}`,
      description: 'd'.repeat(5000),
      gender: 'x'.repeat(40),
    }),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

it('seeds the voices the table takes, fitted to its columns, and reports (and hides) the one it refuses', async () => {
  const refused: RefusedVoice[] = [];
  const engines = sharedEngines({ enableNonFree: false, modelsDir: dir });
  const returned = await seedVoices(deps.db, {
    enableNonFree: false,
    modelsDir: dir,
    engines,
    onRefused: (voice) => refused.push(voice),
  });
  expect(refused).toEqual([
    {
      id: expect.stringMatching(/^en-us-x+$/),
      engineVoice: LONG_NAME,
      reason: expect.stringContaining('value too long'),
    },
  ]);
  expect(returned).toEqual(refused);

  const good = await Voice.query(deps.db).findById('en-gb-good-medium');
  expect(good).toMatchObject({ available: true, engine_voice: 'en_GB-good-medium', language: 'en-US' });
  const wordy = await Voice.query(deps.db).findById('en-gb-wordy-medium');
  expect(wordy).toMatchObject({ available: true, gender: 'unknown' });
  expect([...wordy!.name]).toHaveLength(100);
  // The escape character goes (as a blank); what followed it is plain text.
  expect(wordy!.name).toMatch(/^Wordy \[2J n+…$/);
  expect([...wordy!.description]).toHaveLength(500);
  expect(await Voice.query(deps.db).findById(refused[0].id)).toBeUndefined();
  // The built-in catalog is seeded all the same.
  expect(await Voice.query(deps.db).findById('en-us-slt')).toMatchObject({ available: true });
});
