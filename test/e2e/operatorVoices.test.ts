import { copyFile, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../../db/migrate';
import { premadeVoices } from '../../engines/catalog';
import { defaultModelsDir } from '../../lib/config';
import { dropDatabase, recreateDatabase } from '../../scripts/stack';
import { call } from '../helpers/http';
import { createAccount, type TestAccount } from '../helpers/factories';
import { createTestDeps, type RunningApi, startApi, startTestWorker } from '../helpers/stack';
import { fetchAndMeasure, waitForSynthesis } from '../helpers/synthesis';
import { eventually } from '../helpers/eventually';
import { sharedEngines } from '../../engines/registry';
import { type ModelsWatch, watchModels } from '../../worker/modelsWatch';

/**
 * An operator adds Piper voices by putting them in MODELS_DIR: here the joe
 * model under two more names in a directory of its own (one with a sidecar,
 * one without), served by an API and worker on a database of their own so
 * the other tests' catalog stays as it is.
 */

const JOE = path.join(process.env.MODELS_DIR ?? defaultModelsDir(), 'en_US-joe-medium.onnx');

let modelsDir: string;
let databaseUrl: string;
let deps: ReturnType<typeof createTestDeps>;
let api: RunningApi;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let owner: TestAccount;
let modelsWatch: ModelsWatch;

beforeAll(async () => {
  modelsDir = await mkdtemp(path.join(os.tmpdir(), 'openvox-models-'));
  // The built-in joe, plus "narrator" (with a sidecar) and a British "en_GB-joe-medium" (config only).
  for (const name of ['en_US-joe-medium', 'narrator', 'en_GB-joe-medium']) {
    await symlink(JOE, path.join(modelsDir, `${name}.onnx`));
    await copyFile(`${JOE}.json`, path.join(modelsDir, `${name}.onnx.json`));
  }
  const gbConfig = JSON.parse(await readFile(`${JOE}.json`, 'utf8'));
  gbConfig.language.code = 'en_GB';
  await writeFile(path.join(modelsDir, 'en_GB-joe-medium.onnx.json'), JSON.stringify(gbConfig));
  await writeFile(
    path.join(modelsDir, 'narrator.voice.json'),
    JSON.stringify({
      id: 'en-us-narrator',
      name: 'Narrator',
      gender: 'male',
      description: 'The house narrator voice, trained in-house for audiobooks and long reads.',
      licence: 'In-house model, all rights reserved.',
    }),
  );
  // Not a voice: a model without its config.
  await symlink(JOE, path.join(modelsDir, 'orphan.onnx'));

  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `${url.pathname}_models`;
  databaseUrl = url.toString();
  await recreateDatabase(databaseUrl);
  deps = createTestDeps({ DATABASE_URL: databaseUrl, MODELS_DIR: modelsDir });
  await migrate(deps.db, deps.config);
  [api, worker, owner] = await Promise.all([startApi(deps), startTestWorker(deps), createAccount(deps, { credits: 10_000 })]);
  // As the worker process does: the same engines its activities render with.
  const engines = sharedEngines({ enableNonFree: deps.config.ENABLE_NONFREE_ENGINES, modelsDir });
  modelsWatch = await watchModels({ db: deps.db, engines, config: deps.config, temporal: deps.temporal, logger: deps.logger });
}, 60_000);

afterAll(async () => {
  modelsWatch?.close();
  await Promise.all([api?.close(), worker?.shutdown()]);
  await deps?.close();
  if (databaseUrl) await dropDatabase(databaseUrl);
  await rm(modelsDir, { recursive: true, force: true });
});

describe('Piper voices in MODELS_DIR', () => {
  it('lists them with the neural voices, before every classic voice, ids from the sidecar or the file name', async () => {
    const ids = (await premadeVoices(modelsDir)).map((voice) => voice.id);
    expect(ids.slice(0, 4)).toEqual(['en-us-joe', 'en-us-narrator', 'en-gb-joe-medium', 'en-us-slt']);
    expect(ids).not.toContain('orphan');
    expect(ids.filter((id) => id.includes('joe'))).toEqual(['en-us-joe', 'en-gb-joe-medium']);
  });

  it('lists them as premade voices with their sidecar facts or sensible defaults', async () => {
    const list = await call(api.url, 'GET', '/api/v1/voices/?language=en&page_size=100', undefined, owner.access);
    expect(list.status).toBe(200);
    const byId = new Map(list.body.results.map((voice: { id: string }) => [voice.id, voice]));
    expect(byId.get('en-us-narrator')).toMatchObject({
      name: 'Narrator',
      category: 'premade',
      language: 'en-US',
      gender: 'male',
      status: 'ready',
      engine: 'piper',
      quality: 'neural',
      licence: 'In-house model, all rights reserved.',
      description: 'The house narrator voice, trained in-house for audiobooks and long reads.',
    });
    expect(byId.get('en-gb-joe-medium')).toMatchObject({ name: 'en_GB-joe-medium', language: 'en-GB', gender: 'unknown', engine: 'piper', quality: 'neural' });
    expect((byId.get('en-gb-joe-medium') as { licence: string }).licence).toMatch(/model card/);
  });

  it('synthesizes with an added voice', async () => {
    const accepted = await call(api.url, 'POST', '/api/v1/tts/synthesize/', { text: 'The narrator reads this sentence aloud.', voice_id: 'en-us-narrator', output_format: 'mp3' }, owner.access);
    expect(accepted.status).toBe(202);
    const done = await waitForSynthesis(api.url, `/api/v1/tts/history/${accepted.body.id}/status/`, owner.access);
    expect(done).toMatchObject({ status: 'completed', error: null });
    const audio = await fetchAndMeasure(api.url, done.audio_url, owner.access);
    expect(audio.analysis.durationSeconds).toBeGreaterThan(1);
    expect(audio.analysis.f0MedianHz).toBeGreaterThan(60);
  }, 60_000);

  it('offers a voice installed while the service runs within seconds, and withdraws a removed one, keeping its history playable', async () => {
    const voiceUrl = '/api/v1/voices/en-us-amy-medium/';
    expect((await call(api.url, 'GET', voiceUrl, undefined, owner.access)).status).toBe(404);
    // As the installer does: config first, the model renamed into place last.
    await copyFile(`${JOE}.json`, path.join(modelsDir, 'en_US-amy-medium.onnx.json'));
    await symlink(JOE, path.join(modelsDir, 'en_US-amy-medium.onnx.partial'));
    await rename(path.join(modelsDir, 'en_US-amy-medium.onnx.partial'), path.join(modelsDir, 'en_US-amy-medium.onnx'));
    const added = Date.now();
    await eventually('the installed voice to be listed', async () => (await call(api.url, 'GET', voiceUrl, undefined, owner.access)).status === 200, 60_000);
    const listedAfterMs = Date.now() - added;
    const listed = await call(api.url, 'GET', voiceUrl, undefined, owner.access);
    // Its gender comes from the table of known Piper voices (no sidecar here).
    expect(listed.body).toMatchObject({ id: 'en-us-amy-medium', language: 'en-US', gender: 'female', engine: 'piper', quality: 'neural', status: 'ready' });
    expect(listedAfterMs).toBeLessThan(60_000);

    const accepted = await call(api.url, 'POST', '/api/v1/tts/synthesize/', { text: 'A voice installed a moment ago.', voice_id: 'en-us-amy-medium', output_format: 'wav' }, owner.access);
    expect(accepted.status).toBe(202);
    const done = await waitForSynthesis(api.url, `/api/v1/tts/history/${accepted.body.id}/status/`, owner.access);
    expect(done).toMatchObject({ status: 'completed', error: null });

    await rm(path.join(modelsDir, 'en_US-amy-medium.onnx'));
    await eventually('the removed voice to be withdrawn', async () => (await call(api.url, 'GET', voiceUrl, undefined, owner.access)).status === 404, 60_000);
    const refused = await call(api.url, 'POST', '/api/v1/tts/synthesize/', { text: 'Gone.', voice_id: 'en-us-amy-medium' }, owner.access);
    expect([400, 404]).toContain(refused.status);
    // What it said before stays in history, playable.
    const audio = await fetchAndMeasure(api.url, done.audio_url, owner.access);
    expect(audio.analysis.durationSeconds).toBeGreaterThan(1);
  }, 120_000);

  it('hides a voice whose model is gone at the next start', async () => {
    await rm(path.join(modelsDir, 'narrator.onnx'));
    await migrate(deps.db, { ...deps.config, MODELS_DIR: modelsDir });
    const gone = await call(api.url, 'GET', '/api/v1/voices/en-us-narrator/', undefined, owner.access);
    expect(gone.status).toBe(404);
  });
});
