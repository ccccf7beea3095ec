import { copyFile, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { migrate } from '../../db/migrate';
import { premadeVoices } from '../../engines/catalog';
import { defaultModelsDir } from '../../lib/config';
import { call } from '../helpers/http';
import { useAccount, useStack } from '../helpers/stack';
import { fetchAndMeasure, synthesizeAndWait } from '../helpers/synthesis';
import { eventually } from '../helpers/eventually';
import { runCli } from '../../cli/program';
import { startPiperMirror } from '../helpers/piperMirror';

/**
 * An operator adds Piper voices by putting them in MODELS_DIR: here the joe
 * model under two more names in a directory of its own (one with a sidecar,
 * one without), served by an API and worker on a database of their own so
 * the other tests' catalog stays as it is.
 */

const JOE = path.join(process.env.MODELS_DIR ?? defaultModelsDir(), 'en_US-joe-medium.onnx');

/** The built-in joe, plus "narrator" (with a sidecar) and a British "en_GB-joe-medium" (config only). */
async function addVoices(dir: string): Promise<void> {
  for (const name of ['en_US-joe-medium', 'narrator', 'en_GB-joe-medium']) {
    await symlink(JOE, path.join(dir, `${name}.onnx`));
    await copyFile(`${JOE}.json`, path.join(dir, `${name}.onnx.json`));
  }
  const gbConfig = JSON.parse(await readFile(`${JOE}.json`, 'utf8'));
  gbConfig.language.code = 'en_GB';
  await writeFile(path.join(dir, 'en_GB-joe-medium.onnx.json'), JSON.stringify(gbConfig));
  await writeFile(
    path.join(dir, 'narrator.voice.json'),
    JSON.stringify({
      id: 'en-us-narrator',
      name: 'Narrator',
      gender: 'male',
      description: 'The house narrator voice, trained in-house for audiobooks and long reads.',
      licence: 'In-house model, all rights reserved.',
    }),
  );
  // Not a voice: a model without its config.
  await symlink(JOE, path.join(dir, 'orphan.onnx'));
}

// The worker process's watch of MODELS_DIR runs too, as in a worker process.
const { deps, api } = useStack({
  worker: true,
  database: 'models',
  models: addVoices,
  watchModels: {},
  startTimeoutMs: 60_000,
});
const modelsDir = deps.config.MODELS_DIR;
const owner = useAccount(deps, { credits: 10_000 });

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
    expect(byId.get('en-gb-joe-medium')).toMatchObject({
      name: 'en_GB-joe-medium',
      language: 'en-GB',
      gender: 'unknown',
      engine: 'piper',
      quality: 'neural',
    });
    expect((byId.get('en-gb-joe-medium') as { licence: string }).licence).toMatch(/model card/);
  });

  it('synthesizes with an added voice', async () => {
    const { done } = await synthesizeAndWait(api.url, owner.access, {
      text: 'The narrator reads this sentence aloud.',
      voice_id: 'en-us-narrator',
      output_format: 'mp3',
    });
    expect(done).toMatchObject({ status: 'completed', error: null });
    const audio = await fetchAndMeasure(api.url, done.audio_url, owner.access);
    expect(audio.analysis.durationSeconds).toBeGreaterThan(1);
    expect(audio.analysis.f0MedianHz).toBeGreaterThan(60);
  }, 60_000);

  it('offers a voice installed with `openvox voices install` while the service runs, and withdraws a removed one, keeping its history playable', async () => {
    // The official index's layout on 127.0.0.1: joe's bytes under the key of a British voice.
    const mirror = await startPiperMirror([{ code: 'en_GB', name: 'alba', quality: 'medium' }]);
    const openvox = (args: string[]) =>
      runCli(args, {
        out: () => undefined,
        err: () => undefined,
        env: { ...process.env, MODELS_DIR: modelsDir, PIPER_VOICES_URL: mirror.url },
        tty: false,
      });
    try {
      const voiceUrl = '/api/v1/voices/en-gb-alba-medium/';
      expect((await call(api.url, 'GET', voiceUrl, undefined, owner.access)).status).toBe(404);
      const installed = Date.now();
      expect(await openvox(['voices', 'install', 'en_GB-alba-medium'])).toBe(0);
      await eventually(
        'the installed voice to be listed',
        async () => (await call(api.url, 'GET', voiceUrl, undefined, owner.access)).status === 200,
        60_000,
      );
      const listedAfterMs = Date.now() - installed;
      const listed = await call(api.url, 'GET', voiceUrl, undefined, owner.access);
      // Its name and licence from the index's sidecar, its gender from the table of known Piper voices.
      expect(listed.body).toMatchObject({
        id: 'en-gb-alba-medium',
        language: 'en-GB',
        gender: 'female',
        engine: 'piper',
        quality: 'neural',
        status: 'ready',
      });
      expect(listedAfterMs).toBeLessThan(60_000);
      // Its preview is rendered too, by the preview workflow the watch started.
      await eventually(
        'its preview',
        async () => (await call(api.url, 'GET', voiceUrl, undefined, owner.access)).body.preview_url !== null,
        60_000,
      );

      const { done } = await synthesizeAndWait(api.url, owner.access, {
        text: 'A voice installed a moment ago.',
        voice_id: 'en-gb-alba-medium',
        output_format: 'wav',
      });
      expect(done).toMatchObject({ status: 'completed', error: null });

      expect(await openvox(['voices', 'remove', 'en_GB-alba-medium'])).toBe(0);
      await eventually(
        'the removed voice to be withdrawn',
        async () => (await call(api.url, 'GET', voiceUrl, undefined, owner.access)).status === 404,
        60_000,
      );
      const refused = await call(
        api.url,
        'POST',
        '/api/v1/tts/synthesize/',
        { text: 'Gone.', voice_id: 'en-gb-alba-medium' },
        owner.access,
      );
      expect(refused.status).toBe(400);
      // What it said before stays in history, playable.
      const audio = await fetchAndMeasure(api.url, done.audio_url, owner.access);
      expect(audio.analysis.durationSeconds).toBeGreaterThan(1);
    } finally {
      await mirror.close();
    }
  }, 180_000);

  it('hides a voice whose model is gone at the next start', async () => {
    await rm(path.join(modelsDir, 'narrator.onnx'));
    await migrate(deps.db, { ...deps.config, MODELS_DIR: modelsDir });
    const gone = await call(api.url, 'GET', '/api/v1/voices/en-us-narrator/', undefined, owner.access);
    expect(gone.status).toBe(404);
  });
});
