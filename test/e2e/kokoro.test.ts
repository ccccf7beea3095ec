import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { runCli } from '../../cli/program';
import { premadeVoices } from '../../engines/catalog';
import { sharedEngines } from '../../engines/registry';
import { resolveOpenAiVoice } from '../../api/routes/openai/voices';
import { defaultModelsDir } from '../../lib/config';
import { eventually } from '../helpers/eventually';
import { call, postSpeech } from '../helpers/http';
import { installKokoroModels, startKokoroMirror } from '../helpers/kokoroMirror';
import { useAccount, useStack } from '../helpers/stack';
import { fetchAndMeasure, synthesizeAndWait } from '../helpers/synthesis';

/**
 * Kokoro through the service, with the model scripts/install.sh assembled (MODELS_DIR/kokoro) and its
 * five shipped Japanese styles: those stay hidden (espeak-ng cannot read Japanese text); an English
 * voice is installed with `openvox voices install kokoro:<voice>` from a local mirror of the shipped
 * styles under English names, offered without a restart, ahead of Piper, and speaks through the
 * normal API and the OpenAI route.
 */

const SHARED = path.join(process.env.MODELS_DIR ?? defaultModelsDir(), 'kokoro');

const { deps, api } = useStack({
  worker: true,
  database: 'kokoro',
  // Every shipped style under its own name.
  models: async (dir) =>
    installKokoroModels(
      dir,
      Object.fromEntries((await readdir(path.join(SHARED, 'voices'))).map((file) => [file, file])),
    ),
  env: { VOICE_PREVIEWS: 'false' },
  watchModels: { pollMs: 1000 },
  startTimeoutMs: 60_000,
});
const modelsDir = deps.config.MODELS_DIR;
const owner = useAccount(deps, { credits: 10_000 });

describe('Kokoro voices', () => {
  it('ships the five Japanese styles as hidden catalog entries: espeak-ng cannot phonemize Japanese text', async () => {
    const kokoro = (await premadeVoices(modelsDir)).filter((voice) => voice.engine === 'kokoro');
    expect(kokoro.map((voice) => voice.id)).toEqual([
      'ja-jp-kokoro-alpha',
      'ja-jp-kokoro-gongitsune',
      'ja-jp-kokoro-nezumi',
      'ja-jp-kokoro-tebukuro',
      'ja-jp-kokoro-kumo',
    ]);
    expect(await sharedEngines({ modelsDir }).get('kokoro')!.voices()).toEqual([]);
    expect((await call(api.url, 'GET', '/api/v1/voices/ja-jp-kokoro-alpha/', undefined, owner.access)).status).toBe(
      404,
    );
  });

  it('installs an English voice from KOKORO_VOICES_URL while the service runs, ahead of Piper, and speaks through both APIs', async () => {
    const shipped = path.join(SHARED, 'voices');
    // The shipped styles under English names: af_alpha is jf_alpha's bytes.
    const mirror = await startKokoroMirror({
      af_alpha: await readFile(path.join(shipped, 'jf_alpha.npy')),
      am_kumo: await readFile(path.join(shipped, 'jm_kumo.npy')),
    });
    const errors: string[] = [];
    const openvox = (args: string[], url = mirror.npzUrl) =>
      runCli(args, {
        out: () => undefined,
        err: (text) => errors.push(text),
        env: { ...process.env, MODELS_DIR: modelsDir, KOKORO_VOICES_URL: url },
        tty: false,
      });
    try {
      // Not in the mirror, and not a Kokoro voice name: refused, nothing written.
      expect(await openvox(['voices', 'install', 'kokoro:af_nope'])).not.toBe(0);
      expect(await openvox(['voices', 'install', 'kokoro:../x'])).not.toBe(0);
      expect(errors.join('')).toMatch(/has no voice af_nope: it has af_alpha, am_kumo/);
      expect(await readdir(path.join(modelsDir, 'kokoro', 'voices'))).not.toContain('af_nope.npy');
      // A pinned checksum the file does not have: refused.
      const pinned = await runCli(['voices', 'install', 'kokoro:af_alpha'], {
        out: () => undefined,
        err: () => undefined,
        env: {
          ...process.env,
          MODELS_DIR: modelsDir,
          KOKORO_VOICES_URL: mirror.npzUrl,
          KOKORO_VOICES_SHA256: '0'.repeat(64),
        },
        tty: false,
      });
      expect(pinned).not.toBe(0);

      const voiceUrl = '/api/v1/voices/en-us-kokoro-alpha/';
      expect((await call(api.url, 'GET', voiceUrl, undefined, owner.access)).status).toBe(404);
      expect(await openvox(['voices', 'install', 'kokoro:af_alpha'])).toBe(0);
      // The per-voice layout too.
      expect(await openvox(['voices', 'install', 'kokoro:am_kumo'], mirror.dirUrl)).toBe(0);
      expect(mirror.requests).toContain('/voices/am_kumo.npy');
      await eventually(
        'the installed voice to be listed',
        async () => (await call(api.url, 'GET', voiceUrl, undefined, owner.access)).status === 200,
        60_000,
      );
      expect((await call(api.url, 'GET', voiceUrl, undefined, owner.access)).body).toMatchObject({
        engine: 'kokoro',
        quality: 'neural',
        language: 'en-US',
        gender: 'female',
        status: 'ready',
      });
      const english = await call(api.url, 'GET', '/api/v1/voices/?language=en&page_size=100', undefined, owner.access);
      const ids = english.body.results.map((voice: { id: string }) => voice.id);
      expect(ids.indexOf('en-us-kokoro-alpha')).toBeLessThan(ids.indexOf('en-us-joe'));
      // The OpenAI names: the first female one speaks with the one Kokoro voice (the others with other female voices).
      expect(await resolveOpenAiVoice(deps.db, 'alloy')).toBe('en-us-kokoro-alpha');

      const { done } = await synthesizeAndWait(
        api.url,
        owner.access,
        {
          text: 'Kokoro reads this sentence aloud. And then a second one.',
          voice_id: 'en-us-kokoro-alpha',
          output_format: 'wav',
        },
        { timeoutMs: 240_000 },
      );
      expect(done).toMatchObject({ status: 'completed', error: null });
      const audio = await fetchAndMeasure(api.url, done.audio_url, owner.access);
      expect(audio.analysis.durationSeconds).toBeGreaterThan(2);

      const speech = await postSpeech(api.url, owner.access, {
        model: 'tts-1',
        voice: 'nova',
        input: 'Hello from the OpenAI route.',
        response_format: 'wav',
      });
      expect(speech.status).toBe(200);
      expect((await speech.arrayBuffer()).byteLength).toBeGreaterThan(24_000);

      expect(await openvox(['voices', 'remove', 'kokoro:af_alpha'])).toBe(0);
      await eventually(
        'the removed voice to be withdrawn',
        async () => (await call(api.url, 'GET', voiceUrl, undefined, owner.access)).status === 404,
        60_000,
      );
    } finally {
      await mirror.close();
    }
  }, 600_000);
});
