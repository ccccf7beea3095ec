import { randomUUID } from 'node:crypto';
import { PREMADE_VOICES, RECOMMENDED_VOICE_ID } from '../../engines/catalog';
import { call } from '../helpers/http';
import { createAccount, createSynthesis, createVoice, type TestAccount } from '../helpers/factories';
// The voice as the API answers it: the dashboard's type is its one description.
import type { Voice } from '../../web/src/types';
import { fetchOpenApiDocument, useStack } from '../helpers/stack';

const VOICE_KEYS = [
  'category',
  'closest_premade',
  'created_at',
  'description',
  'engine',
  'error',
  'gender',
  'id',
  'language',
  'licence',
  'name',
  'preview_url',
  'quality',
  'similarity',
  'status',
  'word_timestamps',
];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const catalogById = new Map(PREMADE_VOICES.map((entry) => [entry.id, entry]));
const NON_FREE = PREMADE_VOICES.filter((entry) => entry.license === 'non-free');
const ids = (voices: Voice[]) => voices.map((voice) => voice.id);

describe.each([['/api/v1'], ['/api']])('voices in the %s family', (family) => {
  const { deps, api, onClose } = useStack();
  /** Owns two clones (one processing, newest; one ready, older). */
  let alice: TestAccount;
  /** Owns one clone. */
  let bob: TestAccount;
  /** Owns nothing. */
  let fresh: TestAccount;
  /** Owns one failed clone. */
  let carol: TestAccount;
  const now = Date.now();
  const aliceNewer = { id: randomUUID(), created_at: new Date(now - 60_000) };
  const aliceOlder = { id: randomUUID(), created_at: new Date(now - 3_600_000) };
  const bobClone = { id: randomUUID(), created_at: new Date(now - 30_000) };
  const carolFailed = { id: randomUUID(), created_at: new Date(now - 10_000) };
  const failure = { code: 'audio_too_short', message: 'The sample is 1.2 s long; at least 3 s are needed.' };
  const insertedIds = [aliceNewer.id, aliceOlder.id, bobClone.id, carolFailed.id];

  beforeAll(async () => {
    [alice, bob, fresh, carol] = await Promise.all([
      createAccount(deps),
      createAccount(deps),
      createAccount(deps),
      createAccount(deps),
    ]);
    const clone = (account: TestAccount, fields: Record<string, unknown>) =>
      createVoice(deps, account, {
        description: 'A cloned test voice',
        error: null,
        ...fields,
        updated_at: fields.created_at,
      });
    // The newer clone is inserted first, so insertion order cannot pass for "newest first".
    await clone(alice, {
      ...aliceNewer,
      name: 'Alice newer (processing)',
      language: 'fr-FR',
      status: 'processing',
      similarity: null,
    });
    await clone(alice, {
      ...aliceOlder,
      name: 'Alice older (ready)',
      language: 'en-US',
      status: 'ready',
      similarity: 0.87,
    });
    await clone(bob, {
      ...bobClone,
      name: 'Bob clone',
      language: 'en-GB',
      gender: 'male',
      status: 'ready',
      similarity: 0.5,
    });
    await clone(carol, {
      ...carolFailed,
      name: 'Carol failed',
      language: 'en-US',
      status: 'failed',
      similarity: null,
      error: JSON.stringify(failure),
    });
  });
  onClose(async () => {
    await deps.db('voices').whereIn('id', insertedIds).delete();
  });

  const get = (path: string, who: TestAccount | null = fresh) => call(api.url, 'GET', path, undefined, who?.access);
  const voices = (path: string, who: TestAccount | null = fresh) => get(`${family}/voices/${path}`, who);

  /** Every voice of a list, paging with page_size=100 and checking the envelope on the way. */
  async function listAll(query: string, who: TestAccount = fresh, base = `${family}/voices/`): Promise<Voice[]> {
    const all: Voice[] = [];
    let count: number | undefined;
    for (let page = 1; ; page += 1) {
      const response = await get(`${base}?${query}${query ? '&' : ''}page_size=100&page=${page}`, who);
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['count', 'next', 'previous', 'results']);
      if (count === undefined) count = response.body.count;
      expect(response.body.count).toBe(count);
      all.push(...response.body.results);
      if (response.body.next === null) break;
      expect(response.body.results).toHaveLength(100);
      expect(page).toBeLessThan(50);
    }
    expect(all).toHaveLength(count!);
    return all;
  }

  /** The available premade voices in the table, in catalog (sort) order. */
  const availablePremadeIds = async () =>
    (await deps.db('voices').where({ category: 'premade', available: true }).orderBy('sort_order').select('id')).map(
      (row: { id: string }) => row.id,
    );

  describe('the list', () => {
    it('runs with non-free engines off (the test default)', () => {
      expect(deps.config.ENABLE_NONFREE_ENGINES).toBe(false);
      expect(NON_FREE.length).toBeGreaterThan(0);
    });

    it('returns >= 40 full premade voice objects over >= 20 languages, free engines only, matching the catalog', async () => {
      const list = await listAll('');
      expect(list.length).toBeGreaterThanOrEqual(40);
      expect(new Set(list.map((voice) => voice.language)).size).toBeGreaterThanOrEqual(20);
      for (const voice of list) {
        expect(Object.keys(voice).sort()).toEqual(VOICE_KEYS);
        expect(voice).toMatchObject({ category: 'premade', status: 'ready', error: null, similarity: null });
        expect(voice.created_at).toMatch(ISO_UTC);
        const entry = catalogById.get(voice.id);
        expect(entry).toBeDefined();
        expect(entry!.license).toBe('free');
        expect(entry!.engine).not.toMatch(/^(pico|rhvoice)$/);
        expect(voice).toMatchObject({
          name: entry!.name,
          language: entry!.language,
          gender: entry!.gender,
          description: entry!.description,
        });
        expect(voice).toMatchObject({ engine: entry!.engine, quality: entry!.quality, licence: entry!.licence });
      }
      expect(list.find((voice) => voice.id === 'en-us-joe')).toMatchObject({
        engine: 'piper',
        quality: 'neural',
        licence: expect.stringMatching(/CC0.*lessac/),
      });
      expect(list.find((voice) => voice.id === 'en-us-slt')).toMatchObject({
        engine: 'festival',
        quality: 'classic',
        word_timestamps: true,
      });
      // Only engines that report timing give word timestamps: eSpeak NG does not.
      expect(list.find((voice) => voice.engine === 'espeak-ng')).toMatchObject({ word_timestamps: false });
      expect(list.filter((voice) => voice.engine === 'piper').every((voice) => voice.word_timestamps === true)).toBe(
        true,
      );
      expect(new Set(ids(list)).size).toBe(list.length);
      // Exactly what the seed marked available, nothing hidden, nothing missing.
      expect(ids(list)).toEqual(await availablePremadeIds());
    });

    it(`starts with ${RECOMMENDED_VOICE_ID}, the recommended English voice, and GET returns the same object`, async () => {
      const first = await voices('?page_size=1');
      expect(first.status).toBe(200);
      expect(first.body.results).toHaveLength(1);
      expect(first.body.results[0].id).toBe('en-us-joe');
      expect(first.body.results[0]).toMatchObject({
        category: 'premade',
        language: 'en-US',
        status: 'ready',
        quality: 'neural',
      });
      for (const path of ['en-us-joe/', 'en-us-joe']) {
        const one = await voices(path);
        expect(one.status).toBe(200);
        expect(one.body).toEqual(first.body.results[0]);
      }
    });

    it('keeps catalog order, so the best voice of each language comes first', async () => {
      const list = await listAll('');
      const listed = new Set(ids(list));
      expect(ids(list)).toEqual(PREMADE_VOICES.filter((entry) => listed.has(entry.id)).map((entry) => entry.id));
      // The first listed voice of each language is that language's first available catalog voice.
      const firstByLanguage = new Map<string, string>();
      for (const voice of list) if (!firstByLanguage.has(voice.language)) firstByLanguage.set(voice.language, voice.id);
      for (const [language, id] of firstByLanguage) {
        expect(PREMADE_VOICES.find((entry) => entry.language === language && listed.has(entry.id))!.id).toBe(id);
      }
      expect(firstByLanguage.get('en-US')).toBe('en-us-joe');
      // en-us-slt, the voice that always exists, comes right after it.
      expect(ids(list).slice(0, 2)).toEqual(['en-us-joe', 'en-us-slt']);
    });

    it('pages through the same sequence with a small page size, with count/next/previous links', async () => {
      const all = await listAll('');
      const total = all.length;
      const size = 7;
      const lastPage = Math.ceil(total / size);
      const seen: Voice[] = [];
      for (let page = 1; page <= lastPage; page += 1) {
        const response = await voices(`?page_size=${size}&page=${page}`);
        expect(response.status).toBe(200);
        expect(response.body.count).toBe(total);
        seen.push(...response.body.results);
        if (page < lastPage) {
          const next = new URL(response.body.next);
          expect(`${next.origin}${next.pathname}`).toBe(`${deps.config.PUBLIC_URL}${family}/voices/`);
          expect(next.searchParams.get('page')).toBe(String(page + 1));
          expect(next.searchParams.get('page_size')).toBe(String(size));
        } else {
          expect(response.body.next).toBeNull();
        }
        if (page === 1) {
          expect(response.body.previous).toBeNull();
        } else {
          const previous = new URL(response.body.previous);
          expect(`${previous.origin}${previous.pathname}`).toBe(`${deps.config.PUBLIC_URL}${family}/voices/`);
          expect(previous.searchParams.get('page')).toBe(String(page - 1));
        }
      }
      expect(ids(seen)).toEqual(ids(all));
    });

    it('keeps the filters in the next link', async () => {
      const response = await voices('?language=en&category=premade&page_size=2');
      const next = new URL(response.body.next);
      expect(next.searchParams.get('language')).toBe('en');
      expect(next.searchParams.get('category')).toBe('premade');
      expect(next.searchParams.get('page')).toBe('2');
    });

    it('answers a page past the end with 200 and no results', async () => {
      const total = (await voices('?page_size=1')).body.count;
      const past = await voices(`?page_size=100&page=${Math.ceil(total / 100) + 3}`);
      expect(past.status).toBe(200);
      expect(past.body.results).toEqual([]);
      expect(past.body.count).toBe(total);
      expect(past.body.next).toBeNull();
      // previous points back into the list: its last page.
      expect(new URL(past.body.previous).searchParams.get('page')).toBe(String(Math.ceil(total / 100)));
    });

    it('is also served without the trailing slash', async () => {
      const bare = await get(`${family}/voices?page_size=3`);
      expect(bare.status).toBe(200);
      expect(ids(bare.body.results)).toEqual(ids((await voices('?page_size=3')).body.results));
    });

    it.each(['page_size=0', 'page_size=101', 'page_size=-1', 'page_size=abc', 'page_size=1.5', 'page=0', 'page=abc'])(
      'rejects %s with 400 validation_error',
      async (bad) => {
        const response = await voices(`?${bad}`);
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('validation_error');
        expect(response.body.errors).toHaveProperty(bad.split('=')[0]);
      },
    );
  });

  describe('?language=', () => {
    it('with a bare primary subtag (en) matches every region, in catalog order', async () => {
      const all = await listAll('');
      const en = await listAll('language=en');
      const languages = new Set(en.map((voice) => voice.language));
      expect(languages).toEqual(new Set(['en-US', 'en-GB']));
      expect(ids(en)).toEqual(ids(all.filter((voice) => /^en(-|$)/i.test(voice.language))));
      // es matches es-ES and the numeric region es-419.
      expect(new Set((await listAll('language=es')).map((voice) => voice.language))).toEqual(
        new Set(['es-ES', 'es-419']),
      );
    });

    it('is case-insensitive, and a full tag (EN-us) matches only that region', async () => {
      const all = await listAll('');
      const enUs = await listAll('language=EN-us');
      expect(enUs.length).toBeGreaterThan(0);
      expect(enUs.every((voice) => voice.language === 'en-US')).toBe(true);
      expect(ids(enUs)).toEqual(ids(all.filter((voice) => voice.language === 'en-US')));
      expect(ids(await listAll('language=EN'))).toEqual(ids(await listAll('language=en')));
      expect(ids(await listAll('language=es-419'))).toEqual(ids(all.filter((voice) => voice.language === 'es-419')));
    });

    it('does not match a language that merely shares a prefix', async () => {
      // `en-u` is a region subtag of its own, not a prefix of en-US.
      const enU = await voices('?language=en-u');
      expect(enU.status).toBe(200);
      expect(enU.body.results).toEqual([]);
    });

    it.each(['xx', 'zz-ZZ', 'en-ZZ'])(
      'answers an unknown language (%s) with 200 and empty results',
      async (language) => {
        const response = await voices(`?language=${language}`);
        expect(response.status).toBe(200);
        expect(response.body).toEqual({ count: 0, next: null, previous: null, results: [] });
      },
    );

    it.each(['en_US!', '123', 'e', '%25', 'en--US'])(
      'rejects a malformed language (%s) with 400 validation_error on language',
      async (language) => {
        const response = await voices(`?language=${encodeURIComponent(language)}`);
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('validation_error');
        expect(response.body.errors).toHaveProperty('language');
      },
    );

    it("applies to the caller's clones too", async () => {
      const fr = await listAll('language=fr', alice);
      expect(fr[0].id).toBe(aliceNewer.id);
      expect(fr.slice(1).every((voice) => voice.category === 'premade' && voice.language === 'fr-FR')).toBe(true);
      const en = await listAll('language=en-US', alice);
      expect(en[0].id).toBe(aliceOlder.id);
      expect(ids(en)).not.toContain(aliceNewer.id);
    });
  });

  describe('?category=', () => {
    it("premade returns only premade voices, without the caller's clones", async () => {
      const premade = await listAll('category=premade', alice);
      expect(premade.every((voice) => voice.category === 'premade')).toBe(true);
      expect(ids(premade)).toEqual(await availablePremadeIds());
    });

    it('cloned is empty for a new account, and so is /api/voices/my/', async () => {
      expect(await listAll('category=cloned', fresh)).toEqual([]);
      expect(await listAll('', fresh, '/api/voices/my/')).toEqual([]);
      const my = await get('/api/voices/my', fresh);
      expect(my.status).toBe(200);
      expect(my.body).toEqual({ count: 0, next: null, previous: null, results: [] });
    });

    it("cloned and /api/voices/my/ return only the caller's clones, every status, newest first", async () => {
      const cloned = await listAll('category=cloned', alice);
      expect(ids(cloned)).toEqual([aliceNewer.id, aliceOlder.id]);
      expect(cloned[0]).toEqual({
        id: aliceNewer.id,
        name: 'Alice newer (processing)',
        category: 'cloned',
        language: 'fr-FR',
        gender: 'female',
        description: 'A cloned test voice',
        status: 'processing',
        error: null,
        similarity: null,
        closest_premade: null,
        engine: null,
        quality: null,
        // Processing: no engine yet, so no word timestamps.
        word_timestamps: false,
        licence: null,
        preview_url: null,
        created_at: aliceNewer.created_at.toISOString(),
      });
      expect(cloned[1]).toMatchObject({
        id: aliceOlder.id,
        status: 'ready',
        error: null,
        created_at: aliceOlder.created_at.toISOString(),
      });
      expect(cloned[1].similarity).toBeCloseTo(0.87, 5);
      expect(await listAll('', alice, '/api/voices/my/')).toEqual(cloned);
    });

    it('rejects an unknown category with 400 validation_error', async () => {
      for (const bad of ['bogus', 'PREMADE', '']) {
        const response = await voices(`?category=${bad}`);
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('validation_error');
        expect(response.body.errors).toHaveProperty('category');
      }
    });

    if (family === '/api/v1') {
      it('has no /api/v1/voices/my/ (unversioned only): "my" is just an unknown voice id', async () => {
        const response = await voices('my/', alice);
        expect(response.status).toBe(404);
        expect(response.body.code).toBe('not_found');
      });
    }
  });

  describe('?used=', () => {
    it("true lists only the voices of the caller's own live history, clones first; false or absent lists all", async () => {
      const user = await createAccount(deps);
      await createSynthesis(deps, user, { voice_id: 'en-us-slt' });
      await createSynthesis(deps, user, { voice_id: 'en-us-slt', status: 'failed' });
      // A deleted entry is out of the history, and another account's history is not the caller's.
      await createSynthesis(deps, user, { voice_id: 'de-de-espeak-m', deleted_at: new Date() });
      await createSynthesis(deps, bob, { voice_id: 'en-us-joe' });
      expect(ids(await listAll('used=true', user))).toEqual(['en-us-slt']);
      expect(ids(await listAll('used=true', fresh))).toEqual([]);
      expect(ids(await listAll('used=true&category=premade', user))).toEqual(['en-us-slt']);
      expect(ids(await listAll('used=false', user))).toEqual(ids(await listAll('', user)));

      await createSynthesis(deps, alice, { voice_id: aliceOlder.id });
      const aliceUsed = ids(await listAll('used=true', alice));
      expect(aliceUsed[0]).toBe(aliceOlder.id);
      expect(aliceUsed).not.toContain(aliceNewer.id);
    });

    it('rejects anything but true or false with 400 validation_error', async () => {
      for (const bad of ['yes', '1', '']) {
        const response = await voices(`?used=${bad}`);
        expect(response.status).toBe(400);
        expect(response.body.errors).toHaveProperty('used');
      }
    });
  });

  describe('cloned voices', () => {
    it("come first in the owner's list, newest first, then the premade voices", async () => {
      const list = await listAll('', alice);
      const premade = await availablePremadeIds();
      expect(ids(list)).toEqual([aliceNewer.id, aliceOlder.id, ...premade]);
      expect((await voices('?page_size=1', alice)).body.count).toBe(premade.length + 2);
      // Page 1 of size 1 is the newest clone; the recommended voice follows the clones.
      expect((await voices('?page_size=1&page=3', alice)).body.results[0].id).toBe('en-us-joe');
    });

    it('show a failed clone with its error, in the list and by id', async () => {
      const expected = { id: carolFailed.id, category: 'cloned', status: 'failed', error: failure, similarity: null };
      expect(await listAll('', carol, '/api/voices/my/')).toEqual([expect.objectContaining(expected)]);
      expect((await listAll('', carol))[0]).toMatchObject(expected);
      expect((await voices(`${carolFailed.id}/`, carol)).body).toMatchObject(expected);
    });

    it('can be fetched by id by their owner', async () => {
      const one = await voices(`${aliceOlder.id}/`, alice);
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ id: aliceOlder.id, category: 'cloned', status: 'ready', language: 'en-US' });
    });

    it('are never seen by another account', async () => {
      const bobList = await listAll('', bob);
      expect(ids(bobList)).toEqual([bobClone.id, ...(await availablePremadeIds())]);
      expect(ids(await listAll('category=cloned', bob))).toEqual([bobClone.id]);
      expect(ids(await listAll('', bob, '/api/voices/my/'))).toEqual([bobClone.id]);
      expect(ids(await listAll('language=fr', bob))).not.toContain(aliceNewer.id);
      for (const id of [aliceNewer.id, aliceOlder.id]) {
        const response = await voices(`${id}/`, bob);
        expect(response.status).toBe(404);
        expect(response.body.code).toBe('not_found');
      }
      expect((await voices(`${bobClone.id}/`, alice)).status).toBe(404);
      expect(ids(await listAll('', fresh))).not.toEqual(expect.arrayContaining([bobClone.id]));
    });
  });

  describe('non-free voices', () => {
    it('are not listed with non-free engines off, not even with a language filter', async () => {
      const listed = new Set(ids(await listAll('')));
      for (const entry of NON_FREE) {
        expect(['pico', 'rhvoice']).toContain(entry.engine);
        expect(listed.has(entry.id)).toBe(false);
      }
      for (const language of ['en', 'de', 'fr', 'it', 'es']) {
        const languageIds = ids(await listAll(`language=${language}`));
        expect(languageIds.filter((id) => catalogById.get(id)?.license !== 'free')).toEqual([]);
      }
    });

    it('exist in the voices table with available=false and cannot be fetched', async () => {
      const rows = await deps
        .db('voices')
        .whereIn(
          'id',
          NON_FREE.map((entry) => entry.id),
        )
        .select('id', 'available', 'license', 'engine');
      expect(rows.map((row: { id: string }) => row.id).sort()).toEqual(NON_FREE.map((entry) => entry.id).sort());
      for (const row of rows) expect(row).toMatchObject({ available: false, license: 'non-free' });
      const hidden = await voices(`${NON_FREE[0].id}/`);
      expect(hidden.status).toBe(404);
      expect(hidden.body.code).toBe('not_found');
    });
  });

  describe('GET by id', () => {
    it.each([
      ['an unknown id', 'xx-unknown-voice'],
      ['an unknown uuid', '00000000-0000-0000-0000-000000000000'],
      ['an unknown 64-character id', 'a'.repeat(64)],
      ['a 65-character id', 'a'.repeat(65)],
      ['a path-traversal id', encodeURIComponent('../etc')],
      ['an id with SQL', encodeURIComponent("en-us-slt' OR '1'='1")],
    ])('answers 404 not_found for %s', async (_, id) => {
      const response = await voices(`${id}/`);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    });

    it('answers 404 for a traversal path the client did not encode', async () => {
      const response = await voices('../etc/');
      expect(response.status).toBe(404);
    });
  });

  describe('authentication', () => {
    it.each([[''], ['en-us-slt/'], ['?category=cloned']])('is required for %s', async (path) => {
      const response = await voices(path, null);
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('not_authenticated');
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });

    it('is required for /api/voices/my/', async () => {
      const response = await get('/api/voices/my/', null);
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('not_authenticated');
    });
  });
});

describe('voices in the OpenAPI document', () => {
  it('lists every voices read path of both families', async () => {
    const { paths } = await fetchOpenApiDocument();
    for (const path of [
      '/api/v1/voices/',
      '/api/voices/',
      '/api/voices/my/',
      '/api/v1/voices/{id}/',
      '/api/voices/{id}/',
    ]) {
      expect(paths[path]).toBeDefined();
      expect(Object.keys(paths[path])).toContain('get');
    }
    expect(paths['/api/v1/voices/my/']).toBeUndefined();
    const params = (paths['/api/v1/voices/'].get.parameters ?? []).map((parameter: { name: string }) => parameter.name);
    expect(params).toEqual(expect.arrayContaining(['page', 'page_size', 'category', 'language']));
  });
});
