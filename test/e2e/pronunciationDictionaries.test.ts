import { call, requestsBelow } from '../helpers/http';
import { createAccount, createProject, type TestAccount } from '../helpers/factories';
import { useAccount, useStack } from '../helpers/stack';
import { fetchAndMeasure, synthesizeAndWait } from '../helpers/synthesis';
import { Synthesis } from '../../db/models/Synthesis';

const PLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-GB">
  <lexeme><grapheme>Nguyen</grapheme><phoneme>ŋwiən</phoneme></lexeme>
  <lexeme><grapheme>Dr.</grapheme><grapheme>Doc</grapheme><alias>Doctor</alias></lexeme>
</lexicon>
`;

describe.each([['/api/v1'], ['/api']])('pronunciation dictionaries in the %s family', (family) => {
  const { deps, api } = useStack();
  const owner = useAccount(deps);
  const stranger = useAccount(deps);
  const req = requestsBelow(api, `${family}/pronunciation-dictionaries/`, owner);

  it('creates, reads, lists, updates and deletes a dictionary and its entries', async () => {
    const projectId = await createProject(deps, owner, `p-${family}`);
    const created = await req('POST', '', {
      name: ' Brands ',
      entries: [{ grapheme: 'OpenVox', alias: 'open voice box' }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Brands',
      language: 'en-US',
      project_id: null,
      entry_count: 1,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(created.headers.get('location')).toBe(`${family}/pronunciation-dictionaries/${created.body.id}/`);
    const id = created.body.id;
    expect((await req('GET', `${id}/`)).body).toEqual(created.body);
    expect((await req('GET', '')).body.results.map((d: { id: string }) => d.id)).toContain(id);

    const patched = await req('PATCH', `${id}/`, { language: 'en-GB', project_id: projectId });
    expect(patched.body).toMatchObject({ language: 'en-GB', project_id: projectId, name: 'Brands' });
    expect((await req('PATCH', `${id}/`, {})).body.code).toBe('validation_error');
    expect((await req('PATCH', `${id}/`, { project_id: '00000000-0000-4000-8000-000000000000' })).body.errors).toEqual({
      project_id: ['Unknown project.'],
    });

    const one = await req('POST', `${id}/entries/`, { grapheme: 'Nguyen', phoneme: 'ŋwiən', alphabet: 'ipa' });
    expect(one.status).toBe(201);
    expect(one.body).toEqual({
      results: [
        {
          id: expect.any(String),
          graphemes: ['Nguyen'],
          alias: null,
          phoneme: 'ŋwiən',
          alphabet: 'ipa',
          case_sensitive: false,
          created_at: expect.any(String),
        },
      ],
      entry_count: 2,
    });
    const batch = await req('POST', `${id}/entries/`, {
      entries: [
        { graphemes: ['Dr.', 'Doc'], alias: 'Doctor', case_sensitive: true },
        { grapheme: 'SQL', alias: 'sequel' },
      ],
    });
    expect(batch.body.entry_count).toBe(4);
    const entries = await req('GET', `${id}/entries/?page_size=10`);
    expect(entries.body.count).toBe(4);
    expect(entries.body.results.map((e: { graphemes: string[] }) => e.graphemes[0])).toEqual([
      'OpenVox',
      'Nguyen',
      'Dr.',
      'SQL',
    ]);

    expect((await req('DELETE', `${id}/entries/${one.body.results[0].id}/`)).status).toBe(204);
    expect((await req('DELETE', `${id}/entries/${one.body.results[0].id}/`)).status).toBe(404);
    expect((await req('GET', `${id}/`)).body.entry_count).toBe(3);

    expect((await req('DELETE', `${id}/`)).status).toBe(204);
    expect((await req('GET', `${id}/`)).status).toBe(404);
    expect((await req('GET', `${id}/entries/`)).status).toBe(404);
  });

  it("treats another account's dictionary as missing", async () => {
    const { body } = await req('POST', '', { name: 'Mine' });
    const entry = await req('POST', `${body.id}/entries/`, { grapheme: 'a', alias: 'b' });
    for (const [method, path, payload] of [
      ['GET', `${body.id}/`],
      ['PATCH', `${body.id}/`, { name: 'x' }],
      ['DELETE', `${body.id}/`],
      ['GET', `${body.id}/entries/`],
      ['POST', `${body.id}/entries/`, { grapheme: 'a', alias: 'b' }],
      ['DELETE', `${body.id}/entries/${entry.body.results[0].id}/`],
      ['POST', `${body.id}/import/`, { pls: PLS }],
      ['GET', `${body.id}/export/`],
    ] as const) {
      const reply = await req(method, path, payload, stranger);
      expect([method, path, reply.status, reply.body.code]).toEqual([method, path, 404, 'not_found']);
    }
    expect((await req('GET', `${body.id}/`)).body.entry_count).toBe(1);
  });

  it('validates entries: one grapheme form, a pronunciation, lengths and IPA', async () => {
    const { body } = await req('POST', '', { name: 'Checks' });
    const bad: [unknown, string][] = [
      [{ alias: 'x' }, 'grapheme'],
      [{ grapheme: 'a', graphemes: ['b'], alias: 'x' }, 'grapheme'],
      [{ grapheme: 'a' }, 'alias'],
      [{ grapheme: 'a'.repeat(101), alias: 'x' }, 'grapheme'],
      [{ grapheme: 'a', alias: 'x'.repeat(501) }, 'alias'],
      [{ grapheme: 'a', phoneme: 'h@loU' }, 'phoneme'],
      [{ grapheme: 'a', phoneme: 'ə', alphabet: 'x-sampa' }, 'alphabet'],
      [{ entries: [{ grapheme: 'a', alias: 'x' }], grapheme: 'b' }, 'entries'],
      [{ entries: [{ grapheme: 'a' }] }, 'entries.0.alias'],
    ];
    for (const [payload, field] of bad) {
      const reply = await req('POST', `${body.id}/entries/`, payload);
      expect([payload, reply.status, Object.keys(reply.body.errors ?? {})]).toEqual([
        payload,
        400,
        expect.arrayContaining([field]),
      ]);
    }
    expect((await req('GET', `${body.id}/`)).body.entry_count).toBe(0);
  });

  it('imports PLS (append or replace), exports it back, and names line and column of an error', async () => {
    const { body } = await req('POST', '', {
      name: 'PLS',
      entries: [{ grapheme: 'OpenVox', alias: 'open voice box' }],
    });
    const appended = await req('POST', `${body.id}/import/`, { pls: PLS });
    expect(appended.status).toBe(200);
    expect(appended.body.entry_count).toBe(3);
    const replaced = await req('POST', `${body.id}/import/?mode=replace`, { pls: PLS });
    expect(replaced.body.entry_count).toBe(2);

    const exported = await call(
      api.url,
      'GET',
      `${family}/pronunciation-dictionaries/${body.id}/export/`,
      undefined,
      owner.access,
    );
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^application\/pls\+xml/);
    expect(exported.text).toContain('<grapheme>Nguyen</grapheme>');
    expect(exported.text).toContain('xml:lang="en-US"');
    // Round trip: the export read into an empty dictionary gives the same entries.
    const copy = await req('POST', '', { name: 'Copy' });
    await req('POST', `${copy.body.id}/import/`, { pls: exported.text });
    const strip = (reply: { body: { results: Array<Record<string, unknown>> } }) =>
      reply.body.results.map(({ graphemes, alias, phoneme }) => ({ graphemes, alias, phoneme }));
    expect(strip(await req('GET', `${copy.body.id}/entries/`))).toEqual(strip(await req('GET', `${body.id}/entries/`)));

    const broken = await req('POST', `${body.id}/import/`, {
      pls: PLS.replace('<phoneme>ŋwiən</phoneme>', '<phoneme>h@l</phoneme>'),
    });
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('validation_error');
    expect(broken.body.errors.pls[0]).toMatch(/line 3, column \d+/);
    expect((await req('POST', `${body.id}/import/?mode=merge`, { pls: PLS })).body.errors).toHaveProperty('mode');
    expect((await req('GET', `${body.id}/`)).body.entry_count).toBe(2);
  });
});

describe('pronunciation dictionary limits', () => {
  const { deps, api } = useStack();

  it('holds at most 20 dictionaries per account and 10,000 entries per dictionary', async () => {
    const account = await createAccount(deps);
    const req = (method: string, path: string, body?: unknown) =>
      call(api.url, method, `/api/v1/pronunciation-dictionaries/${path}`, body, account.access);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await req('POST', '', { name: `d${i}` })).body.id);
    const over = await req('POST', '', { name: 'one more' });
    expect(over.status).toBe(409);
    expect(over.body.code).toBe('conflict');
    const lexemes = Array.from(
      { length: 9_999 },
      (_, i) => `<lexeme><grapheme>w${i}</grapheme><alias>x</alias></lexeme>`,
    ).join('');
    const pls = `<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">${lexemes}</lexicon>`;
    expect((await req('POST', `${ids[0]}/import/`, { pls })).body.entry_count).toBe(9_999);
    expect(
      (
        await req('POST', `${ids[0]}/entries/`, {
          entries: [
            { grapheme: 'a', alias: 'b' },
            { grapheme: 'c', alias: 'd' },
          ],
        })
      ).body.errors,
    ).toHaveProperty('entries');
    expect((await req('POST', `${ids[0]}/entries/`, { grapheme: 'a', alias: 'b' })).body.entry_count).toBe(10_000);
    expect((await req('POST', `${ids[0]}/entries/`, { grapheme: 'c', alias: 'd' })).status).toBe(400);
  }, 60_000);
});

describe('pronunciation dictionaries in reading and synthesis', () => {
  const { deps, api } = useStack({ worker: true });
  let owner: TestAccount;
  let dictionaryId: string;
  beforeAll(async () => {
    owner = await createAccount(deps);
    const created = await call(
      api.url,
      'POST',
      '/api/v1/pronunciation-dictionaries/',
      { name: 'Brands', entries: [{ grapheme: 'OpenVox', alias: 'open voice box' }] },
      owner.access,
    );
    dictionaryId = created.body.id;
  });
  const preview = (body: Record<string, unknown>, who: TestAccount = owner) =>
    call(api.url, 'POST', '/api/v1/tts/normalize/', body, who.access);

  it('changes the normalize preview: the account-wide dictionaries by default, a project’s with its project, none with []', async () => {
    const text = 'OpenVox costs $5.';
    const read = await preview({ text, voice_id: 'en-us-joe' });
    expect(read.status).toBe(200);
    expect(read.body.spoken).toBe('open voice box costs five dollars.');
    expect(read.body.applied).toBe(true);
    // Each word of the alias points at the grapheme it replaced.
    expect(read.body.words.slice(0, 3)).toEqual(
      ['open', 'voice', 'box'].map((word) => ({ word, source_start: 0, source_end: 7 })),
    );
    expect((await preview({ text, pronunciation_dictionary_ids: [] })).body.spoken).toBe('OpenVox costs five dollars.');
    expect((await preview({ text, text_normalization: 'off' })).body.spoken).toBe('open voice box costs $5.');

    const projectId = await createProject(deps, owner, 'Podcast');
    await call(
      api.url,
      'POST',
      '/api/v1/pronunciation-dictionaries/',
      { name: 'Podcast words', project_id: projectId, entries: [{ grapheme: 'costs', alias: 'is priced at' }] },
      owner.access,
    );
    expect((await preview({ text })).body.spoken).toBe('open voice box costs five dollars.');
    expect((await preview({ text, project_id: projectId })).body.spoken).toBe(
      'open voice box is priced at five dollars.',
    );

    const stranger = await createAccount(deps);
    const foreign = await preview({ text, pronunciation_dictionary_ids: [dictionaryId] }, stranger);
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors).toHaveProperty('pronunciation_dictionary_ids');
    const synth = await call(
      api.url,
      'POST',
      '/api/v1/tts/synthesize/',
      { text, voice_id: 'en-us-joe', pronunciation_dictionary_ids: [dictionaryId] },
      stranger.access,
    );
    expect(synth.status).toBe(400);
    expect(synth.body.errors).toEqual({
      pronunciation_dictionary_ids: [`Unknown pronunciation dictionary: ${dictionaryId}.`],
    });
    const malformed = await call(
      api.url,
      'POST',
      '/api/v1/tts/synthesize/',
      { text, voice_id: 'en-us-joe', pronunciation_dictionary_ids: ['nope'] },
      owner.access,
    );
    expect(malformed.body.errors).toHaveProperty('pronunciation_dictionary_ids');
  });

  const synthesize = async (voice: string, extra: Record<string, unknown>) => {
    const { id, done } = await synthesizeAndWait(
      api.url,
      owner.access,
      { text: 'OpenVox is here.', voice_id: voice, ...extra },
      { timeoutMs: 120_000 },
    );
    expect(done.status).toBe('completed');
    const row = await Synthesis.query(deps.db).findById(id).select('pronunciation_dictionary_ids');
    const audio = await fetchAndMeasure(api.url, `/api/v1/tts/history/${id}/audio/`, owner.access);
    const timestamps = await call(api.url, 'GET', `/api/v1/tts/history/${id}/timestamps/`, undefined, owner.access);
    return {
      seconds: audio.analysis.durationSeconds,
      ids: row!.pronunciation_dictionary_ids,
      words: timestamps.body.words as Array<{ word: string; char_start: number; char_end: number }>,
    };
  };

  it.each([['en-us-joe'], ['en-us-slt']])(
    'a pronunciation entry changes what %s says; its word timestamps stay on the sent text',
    async (voice) => {
      const plain = await synthesize(voice, { pronunciation_dictionary_ids: [] });
      const again = await synthesize(voice, { pronunciation_dictionary_ids: [] });
      // No field: the account-wide dictionary, stored explicitly on the synthesis.
      const aliased = await synthesize(voice, {});
      expect(plain.ids).toBeNull();
      expect(aliased.ids).toEqual([dictionaryId]);
      const noise = Math.abs(plain.seconds - again.seconds);
      const change = aliased.seconds - plain.seconds;
      // "open voice box" is two syllables longer than "OpenVox" read as written; Piper's render-to-render spread is far smaller.
      expect(change).toBeGreaterThan(Math.max(0.15, 3 * noise));
      expect(aliased.words[0]).toMatchObject({ word: 'OpenVox', char_start: 0, char_end: 7 });
      expect(aliased.words.map((word) => word.word)).toEqual(plain.words.map((word) => word.word));
    },
    240_000,
  );
});

describe('pronunciation dictionaries and account erasure', () => {
  const { deps } = useStack();

  it('go with the account row (cascade), entries with their dictionary; a deleted project leaves its dictionaries account-wide', async () => {
    const { rows } = await deps.db.raw(`
      select tc.table_name, kcu.column_name, rc.delete_rule
      from information_schema.referential_constraints rc
      join information_schema.table_constraints tc on tc.constraint_name = rc.constraint_name
      join information_schema.key_column_usage kcu on kcu.constraint_name = rc.constraint_name
      where tc.table_name in ('pronunciation_dictionaries', 'pronunciation_entries')
      order by tc.table_name, kcu.column_name`);
    expect(rows).toEqual([
      { table_name: 'pronunciation_dictionaries', column_name: 'account_id', delete_rule: 'CASCADE' },
      { table_name: 'pronunciation_dictionaries', column_name: 'project_id', delete_rule: 'SET NULL' },
      { table_name: 'pronunciation_entries', column_name: 'dictionary_id', delete_rule: 'CASCADE' },
    ]);
  });
});
