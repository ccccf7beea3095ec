import { randomUUID } from 'node:crypto';
import { call, expectProblem, postSpeech, requestsBelow } from '../helpers/http';
import { createAccount, createVoice } from '../helpers/factories';
import { useAccount, useStack } from '../helpers/stack';
import { waitForSynthesis } from '../helpers/synthesis';

/**
 * What a new user met in their first hour, through the API (the whole stack):
 * OpenAI's voice names are different voices of their own gender, a refused
 * request says the balance and what it needed, and an account's default voice
 * speaks where a voice may be left out, stays put when voices are installed
 * and gives way, saying so, when it can no longer speak.
 */

interface OpenAiEntry {
  id: string;
  gender: string;
  category: string;
  voice_id: string;
  neural: boolean;
  install?: { key: string; voice_id: string; command: string } | null;
}

const SERVICE_DEFAULT = 'en-us-joe';

describe('The first hour through the API', () => {
  // A database of its own: the tests below install and remove catalog voices, and any worker process started by
  // another suite on the shared database reseeds the catalog when MODELS_DIR changes, hiding a voice installed by hand.
  const { deps, api } = useStack({ worker: true, database: 'first_hour' });
  const owner = useAccount(deps, { credits: 20_000 });
  const profile = requestsBelow(api, '/api/v1/auth/profile/', owner);

  /** Speaks `input` through /v1/audio/speech as `token`: the audio and the history entry's voice. */
  async function speak(token: string, body: Record<string, unknown>) {
    const response = await postSpeech(api.url, token, { model: 'tts-1', response_format: 'wav', ...body });
    expect(response.status).toBe(200);
    const audio = Buffer.from(await response.arrayBuffer());
    const id = response.headers.get('x-synthesis-id')!;
    await waitForSynthesis(api.url, `/api/v1/tts/history/${id}/status/`, token);
    const entry = await call(api.url, 'GET', `/api/v1/tts/history/${id}/`, undefined, token);
    return { audio, voiceId: entry.body.voice_id as string };
  }

  describe('OpenAI voice names', () => {
    it('are different voices of their documented gender; the ones on classic voices say what to install to make them neural', async () => {
      const listed = await call(api.url, 'GET', '/v1/audio/voices', undefined, owner.access);
      expect(listed.status).toBe(200);
      const data = listed.body.data as OpenAiEntry[];
      const names = new Map(data.filter((entry) => entry.category === 'openai').map((entry) => [entry.id, entry]));
      const voices = new Map(data.filter((entry) => entry.category !== 'openai').map((entry) => [entry.id, entry]));
      expect(names.size).toBe(13);
      expect(names.get('nova')!.gender).toBe('female');
      expect(names.get('shimmer')!.gender).toBe('female');
      expect(names.get('onyx')!.gender).toBe('male');
      expect(names.get('alloy')!.voice_id).not.toBe(names.get('nova')!.voice_id);
      expect(names.get('alloy')!.voice_id).not.toBe(names.get('echo')!.voice_id);
      for (const entry of names.values()) {
        const voice = voices.get(entry.voice_id)!;
        // Each name speaks with a voice of its own gender, and says truly whether it is neural.
        expect([entry.id, voice.gender]).toEqual([entry.id, entry.gender]);
        expect([entry.id, entry.neural]).toEqual([entry.id, voice.neural]);
        if (entry.neural) expect(entry.install).toBeNull();
        else expect(entry.install!.command).toBe(`openvox voices install ${entry.install!.key}`);
      }
      // This server has one neural English voice (joe, male): the female names speak classic voices, and spread.
      const female = [...names.values()].filter((entry) => entry.gender === 'female');
      expect(female.every((entry) => !entry.neural)).toBe(true);
      expect(new Set(female.map((entry) => entry.voice_id)).size).toBeGreaterThan(1);
      expect(names.get('nova')!.install).toMatchObject({ key: 'kokoro:af_bella', voice_id: 'en-us-kokoro-bella' });
    });

    it('make alloy and nova speak with different voices: the history names each, and the audio differs', async () => {
      const listed = (await call(api.url, 'GET', '/v1/audio/voices', undefined, owner.access)).body
        .data as OpenAiEntry[];
      const mapped = (name: string) => listed.find((entry) => entry.id === name)!.voice_id;
      const input = 'Two characters, two voices.';
      const alloy = await speak(owner.access, { voice: 'alloy', input });
      const nova = await speak(owner.access, { voice: 'nova', input });
      expect(alloy.voiceId).toBe(mapped('alloy'));
      expect(nova.voiceId).toBe(mapped('nova'));
      expect(alloy.voiceId).not.toBe(nova.voiceId);
      expect(alloy.audio.equals(nova.audio)).toBe(false);
    }, 120_000);
  });

  describe('402 insufficient_credits', () => {
    it('says the balance and what the synthesis needed, on synthesize and (in OpenAI’s shape) on /v1/audio/speech', async () => {
      const poor = await createAccount(deps, { credits: 5 });
      const text = 'This sentence costs more than five credits.';
      const refused = expectProblem(
        await call(api.url, 'POST', '/api/v1/tts/synthesize/', { text, voice_id: 'en-us-slt' }, poor.access),
        402,
        'insufficient_credits',
      );
      expect(refused).toMatchObject({ balance: 5, required: text.length });
      expect(refused.detail).toContain(`${text.length} credits`);
      const unversioned = await call(
        api.url,
        'POST',
        '/api/tts/synthesize/',
        { text, voice_id: 'en-us-slt' },
        poor.access,
      );
      expect(expectProblem(unversioned, 402, 'insufficient_credits')).toMatchObject({
        balance: 5,
        required: text.length,
      });

      const speech = await postSpeech(api.url, poor.access, { model: 'tts-1', voice: 'alloy', input: text });
      expect(speech.status).toBe(429);
      expect(((await speech.json()) as { error: object }).error).toMatchObject({
        code: 'insufficient_quota',
        balance: 5,
        required: text.length,
      });
    });

    it('says them on a Studio conversion and a block’s audio', async () => {
      const reader = await createAccount(deps, { credits: 3 });
      const projects = requestsBelow(api, '/api/v1/projects/', reader);
      const id = (await projects('POST', '', { name: `Book ${randomUUID()}` })).body.id as string;
      expect((await projects('PATCH', `${id}/`, { default_voice_id: 'en-us-espeak-m' })).status).toBe(200);
      const words = randomUUID().slice(0, 8);
      const text = `# One\n\nIt was night in ${words}.\n\n# Two\n\nMorning came to ${words}.\n`;
      expect((await projects('POST', `${id}/content/`, { format: 'markdown', text })).status).toBe(200);
      const needed = (await projects('GET', `${id}/`)).body.credits_needed as number;
      expect(needed).toBeGreaterThan(3);

      const convert = expectProblem(await projects('POST', `${id}/convert/`, {}), 402, 'insufficient_credits');
      expect(convert).toMatchObject({ balance: 3, required: needed });

      const chapters = (await projects('GET', `${id}/chapters/`)).body.results as { id: string }[];
      const blocks = (await projects('GET', `${id}/chapters/${chapters[0].id}/blocks/`)).body.results as {
        id: string;
        text: string;
      }[];
      const block = blocks[blocks.length - 1];
      const audio = await projects('GET', `${id}/chapters/${chapters[0].id}/blocks/${block.id}/audio/`);
      expect(expectProblem(audio, 402, 'insufficient_credits')).toMatchObject({
        balance: 3,
        required: expect.any(Number),
      });
      expect(audio.body.required).toBeGreaterThan(3);
    });

    it('documents both fields on the OpenAPI problem schema', async () => {
      const document = (await call(api.url, 'GET', '/api/openapi.json')).body;
      const problem = document.components.schemas.Problem;
      expect(Object.keys(problem.properties)).toEqual(expect.arrayContaining(['balance', 'required']));
      expect(problem.required ?? []).not.toContain('balance');
    });
  });

  describe('an account’s default voice', () => {
    const ownVoice = `en-us-firsthour-${randomUUID().slice(0, 8)}`;
    const addCatalogVoice = (id: string, sortOrder: number) =>
      deps.db('voices').insert({
        id,
        category: 'premade',
        name: `First hour ${id.slice(-8)}`,
        language: 'en-US',
        gender: 'female',
        engine: 'festival',
        engine_voice: 'cmu_us_slt_arctic_hts',
        quality: 'neural',
        sort_order: sortOrder,
      });
    afterAll(async () => {
      await deps.db('voices').where('id', 'like', 'en-us-firsthour-%').delete();
    });

    it('is the service default until one is chosen, and installing a voice does not change it', async () => {
      const before = (await profile('GET', '')).body;
      expect(before).toMatchObject({
        default_voice_id: null,
        default_voice: { id: SERVICE_DEFAULT, source: 'service', notice: null },
      });
      // An operator installs a voice that sorts before every other one.
      await addCatalogVoice(ownVoice, -1000);
      expect((await profile('GET', '')).body.default_voice).toEqual(before.default_voice);
      // And /v1/audio/speech without a voice speaks with it.
      expect((await speak(owner.access, { input: 'No voice named.' })).voiceId).toBe(SERVICE_DEFAULT);
    }, 120_000);

    it('round-trips through PATCH profile, speaks where no voice is named, and null clears it', async () => {
      const set = await profile('PATCH', '', { default_voice_id: 'en-us-slt' });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({
        default_voice_id: 'en-us-slt',
        default_voice: { id: 'en-us-slt', source: 'account', notice: null },
      });
      expect((await profile('GET', '')).body.default_voice_id).toBe('en-us-slt');
      expect((await speak(owner.access, { input: 'My own default voice.' })).voiceId).toBe('en-us-slt');
      // A named voice still wins.
      expect((await speak(owner.access, { voice: 'en-us-flite-slt', input: 'Named.' })).voiceId).toBe(
        'en-us-flite-slt',
      );

      const cleared = await profile('PATCH', '', { default_voice_id: null });
      expect(cleared.body).toMatchObject({ default_voice_id: null, default_voice: { id: SERVICE_DEFAULT } });
    }, 180_000);

    it('must be a voice the account may use', async () => {
      const stranger = await createAccount(deps);
      const theirs = await createVoice(deps, stranger);
      const processing = await createVoice(deps, owner, { status: 'processing' });
      for (const voice of ['nobody', theirs, '']) {
        const refused = expectProblem(await profile('PATCH', '', { default_voice_id: voice }), 400, 'validation_error');
        expect(Object.keys(refused.errors)).toEqual(['default_voice_id']);
      }
      // Another account's clone gets the same answer as no voice at all.
      const unknown = (await profile('PATCH', '', { default_voice_id: 'nobody' })).body.errors;
      expect((await profile('PATCH', '', { default_voice_id: theirs })).body.errors).toEqual(unknown);
      expectProblem(await profile('PATCH', '', { default_voice_id: processing }), 400, 'validation_error');
      expectProblem(await profile('PATCH', '', { default_voice_id: 42 }), 400, 'validation_error');
      expect((await profile('GET', '')).body.default_voice_id).toBeNull();
    });

    it('gives way to the service default, saying why, when its clone is revoked or its voice removed', async () => {
      const clone = await createVoice(deps, owner, { name: 'My narrator' });
      expect((await profile('PATCH', '', { default_voice_id: clone })).body.default_voice).toMatchObject({
        id: clone,
        source: 'account',
      });
      const revoked = await call(api.url, 'POST', `/api/v1/voices/${clone}/revoke-consent/`, undefined, owner.access);
      expect(revoked.status).toBe(200);
      const after = (await profile('GET', '')).body;
      expect(after.default_voice_id).toBe(clone);
      expect(after.default_voice).toMatchObject({ id: SERVICE_DEFAULT, source: 'service' });
      expect(after.default_voice.notice).toMatch(/My narrator.*consent revoked.*en-us-joe/);
      expect((await speak(owner.access, { input: 'The clone is gone.' })).voiceId).toBe(SERVICE_DEFAULT);

      // An operator's voice chosen, then uninstalled.
      expect((await profile('PATCH', '', { default_voice_id: ownVoice })).status).toBe(200);
      await deps.db('voices').where({ id: ownVoice }).update({ available: false });
      const removed = (await profile('GET', '')).body.default_voice;
      expect(removed).toMatchObject({ id: SERVICE_DEFAULT, source: 'service' });
      expect(removed.notice).toMatch(/not installed on this server/);
      // Installed again: it speaks again, with nothing to do.
      await deps.db('voices').where({ id: ownVoice }).update({ available: true });
      expect((await profile('GET', '')).body.default_voice).toMatchObject({ id: ownVoice, source: 'account' });
    }, 120_000);
  });
});
