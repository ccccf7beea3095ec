import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { analyseAudio, probeFormat } from '../../audio/analysis';
import { ensureVoicePreviews } from '../../worker/voicePreviews';
import { call } from '../helpers/accounts';
import { createAccount, type TestAccount } from '../helpers/factories';
import { createTestDeps, type RunningApi, startApi, startTestWorker } from '../helpers/stack';

/**
 * Voice previews: the voice-preview workflows render a premade voice's
 * sample once; until then `preview_url` is null, after it the public URL
 * serves the MP3 with caching headers.
 */

const VOICES = ['en-us-joe', 'de-de-espeak-m'];

const deps = createTestDeps();
let api: RunningApi;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let owner: TestAccount;

beforeAll(async () => {
  [api, worker, owner] = await Promise.all([startApi(deps), startTestWorker(deps), createAccount(deps)]);
});
afterAll(async () => {
  await Promise.all([api.close(), worker.shutdown()]);
  await deps.close();
});

it('has no preview_url before the render, then serves each voice its sample publicly, rendered once', async () => {
  for (const voice of VOICES) {
    const before = await call(api.url, 'GET', `/api/v1/voices/${voice}/`, undefined, owner.access);
    expect(before.status).toBe(200);
    expect(before.body.preview_url).toBeNull();
    expect((await fetch(`${api.url}/api/v1/voices/${voice}/preview/`)).status).toBe(404);
  }

  const started = await ensureVoicePreviews(deps.temporal, deps.db, deps.config, VOICES);
  expect(started).toHaveLength(VOICES.length);
  // Asked again while they run or after: nothing new starts.
  expect(await ensureVoicePreviews(deps.temporal, deps.db, deps.config, VOICES)).toEqual([]);
  await Promise.all(started.map((workflowId) => deps.temporal.workflow.getHandle(workflowId).result()));
  expect(await ensureVoicePreviews(deps.temporal, deps.db, deps.config, VOICES)).toEqual([]);

  const dir = await mkdtemp(path.join(tmpdir(), 'openvox-preview-'));
  try {
    for (const voice of VOICES) {
      const v1 = await call(api.url, 'GET', `/api/v1/voices/${voice}/`, undefined, owner.access);
      expect(v1.body.preview_url).toBe(`/api/v1/voices/${voice}/preview/`);
      const unversioned = await call(
        api.url,
        'GET',
        `/api/voices/?category=premade&page_size=100`,
        undefined,
        owner.access,
      );
      expect(unversioned.body.results.find((entry: { id: string }) => entry.id === voice).preview_url).toBe(
        `/api/voices/${voice}/preview/`,
      );

      // No token: previews are public.
      const response = await fetch(`${api.url}${v1.body.preview_url}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('audio/mpeg');
      expect(response.headers.get('cache-control')).toBe('public, max-age=86400');
      const etag = response.headers.get('etag')!;
      expect(etag).toMatch(/^"[0-9a-f]{12}"$/);
      const file = path.join(dir, `${voice}.mp3`);
      await writeFile(file, Buffer.from(await response.arrayBuffer()));
      expect(await probeFormat(file)).toMatchObject({ container: 'mp3', codec: 'mp3' });
      const analysis = await analyseAudio(file);
      expect(analysis.durationSeconds).toBeGreaterThan(1);
      expect(analysis.durationSeconds).toBeLessThan(8);
      expect(analysis.activeRmsDb).toBeGreaterThan(-40);
      expect(
        (await fetch(`${api.url}/api/voices/${voice}/preview/`, { headers: { 'If-None-Match': etag } })).status,
      ).toBe(304);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  expect((await fetch(`${api.url}/api/v1/voices/no-such-voice/preview/`)).status).toBe(404);
}, 300_000);
