import { call } from '../helpers/http';
import { createAccount, type TestAccount } from '../helpers/factories';
import { makeSample, uploadSample } from '../helpers/samples';
import { useStack } from '../helpers/stack';
import { fetchAndMeasure, waitForSynthesis } from '../helpers/synthesis';

// Hang guards, not timing checks: a clone takes ~5-10 s on a quiet machine and minutes on a machine shared with other test runs.
async function waitForVoice(baseUrl: string, path: string, token: string, timeoutMs = 600_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await call(baseUrl, 'GET', path, undefined, token);
    if (body.status !== 'processing') return body;
    if (Date.now() > deadline) throw new Error('voice still processing');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe.each([
  ['/api/v1', '/api/v1/voices/upload/', 'wav'],
  ['/api', '/api/voices/clone/', 'mp3'],
] as const)('cloning in the %s family', (family, uploadPath, format) => {
  const { deps, api } = useStack({ worker: true });
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await createAccount(deps);
  });

  it(`clones a consented ${format} sample, synthesizes with the clone, and deletes it with its objects`, async () => {
    const bytes = await makeSample(format, 'en-us+m3', 30);
    const accepted = await uploadSample(
      api.url,
      uploadPath,
      owner.access,
      { name: 'My voice', consent: 'true', language: 'en-US' },
      { bytes, name: `../../etc/passwd.${format}` },
    );
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({
      name: 'My voice',
      category: 'cloned',
      language: 'en-US',
      status: 'processing',
      error: null,
      similarity: null,
    });
    const voiceId = accepted.body.id;
    expect(accepted.headers.get('location')).toBe(`${family}/voices/${voiceId}/`);

    const consent = await deps.db('consent_records').where({ voice_id: voiceId }).first();
    expect(consent).toMatchObject({ account_id: owner.id, file_bytes: String(bytes.length) });
    expect(consent.client_ip).toBeTruthy();

    const ready = await waitForVoice(api.url, `${family}/voices/${voiceId}/`, owner.access);
    expect(ready.status).toBe('ready');
    expect(ready.similarity).toBeGreaterThan(0);
    expect(ready.similarity).toBeLessThanOrEqual(1);

    const mine = await call(api.url, 'GET', `${family}/voices/?category=cloned`, undefined, owner.access);
    expect(mine.body.results.map((voice: { id: string }) => voice.id)).toEqual([voiceId]);

    const synthesis = await call(
      api.url,
      'POST',
      `${family}/tts/synthesize/`,
      { text: 'Hello from my cloned voice.', voice_id: voiceId },
      owner.access,
    );
    expect(synthesis.status).toBe(202);
    const done = await waitForSynthesis(api.url, synthesis.body.status_url, owner.access);
    expect(done.status).toBe('completed');
    const audio = await fetchAndMeasure(api.url, done.audio_url, owner.access);
    expect(audio.analysis.durationSeconds).toBeGreaterThan(0.8);
    expect(audio.analysis.silenceRatio).toBeLessThan(0.7);

    expect((await call(api.url, 'DELETE', `${family}/voices/${voiceId}/`, undefined, owner.access)).status).toBe(204);
    expect((await call(api.url, 'GET', `${family}/voices/${voiceId}/`, undefined, owner.access)).status).toBe(404);
    expect(await deps.storage.size(`samples/${owner.id}/${voiceId}/original`)).toBeNull();
    expect(await deps.storage.size(`samples/${owner.id}/${voiceId}/normalized.wav`)).toBeNull();
    // The consent record outlives the voice; history keeps the synthesis.
    expect(await deps.db('consent_records').where({ voice_id: voiceId }).first()).toBeDefined();
    expect(
      (await call(api.url, 'GET', `${family}/tts/history/`, undefined, owner.access)).body.results[0].voice_id,
    ).toBe(voiceId);
    // Premade voices cannot be deleted.
    const premade = await call(api.url, 'DELETE', `${family}/voices/en-us-slt/`, undefined, owner.access);
    expect(premade.status).toBe(403);
    expect(premade.body.code).toBe('permission_denied');
  }, 900_000);
});
