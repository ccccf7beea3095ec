import { call, requestsBelow } from '../helpers/http';
import { createAccount } from '../helpers/factories';
import { fetchOpenApiDocument, useAccount, useStack } from '../helpers/stack';

describe.each([['/api/v1'], ['/api']])('projects in the %s family', (family) => {
  const { deps, api } = useStack();
  const owner = useAccount(deps);
  const stranger = useAccount(deps);
  const req = requestsBelow(api, `${family}/projects/`, owner);
  // The free plan allows 3 projects (db/seeds/plans.ts); these tests make more.
  beforeAll(async () => {
    await deps.db('accounts').where({ id: owner.id }).update({ subscription_tier: 'pro' });
  });

  it('creates, reads, lists newest first, updates and deletes a project', async () => {
    const created = await req('POST', '', { name: 'Audiobook', description: 'Chapter one' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Audiobook',
      description: 'Chapter one',
      synthesis_count: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      default_voice_id: null,
      heading_voice_id: null,
      dialogue_voice_id: null,
      language: 'en-US',
      text_normalization: 'auto',
      speed: 1,
      output_preset: 'audiobook',
      metadata: {
        title: null,
        author: null,
        narrator: null,
        language: null,
        description: null,
        publisher: null,
        year: null,
        isbn: null,
      },
      speakers: {},
      chapter_count: 0,
      characters: 0,
      credits_needed: 0,
      has_cover: false,
      last_conversion: null,
    });
    expect(created.headers.get('location')).toBe(`${family}/projects/${created.body.id}/`);

    expect((await req('GET', `${created.body.id}/`)).body).toEqual(created.body);
    expect((await req('GET', `${created.body.id}`)).status).toBe(200);

    const second = await req('POST', '', { name: 'Podcast' });
    expect(second.body.description).toBe('');
    const list = await req('GET', '?page_size=100');
    const names = list.body.results.map((project: { name: string }) => project.name);
    expect(names.indexOf('Podcast')).toBeLessThan(names.indexOf('Audiobook'));

    const renamed = await req('PATCH', `${created.body.id}/`, { name: 'Audiobook v2' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Audiobook v2', description: 'Chapter one' });
    expect(Date.parse(renamed.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at));
    expect((await req('PATCH', `${created.body.id}/`, { description: '' })).body.description).toBe('');

    expect((await req('DELETE', `${created.body.id}/`)).status).toBe(204);
    expect((await req('GET', `${created.body.id}/`)).status).toBe(404);
    expect((await req('DELETE', `${created.body.id}/`)).status).toBe(404);
  });

  it("refuses a project past the plan's max_projects with 403 plan_limit_reached", async () => {
    const account = await createAccount(deps);
    for (const name of ['one', 'two', 'three']) expect((await req('POST', '', { name }, account)).status).toBe(201);
    const over = await req('POST', '', { name: 'four' }, account);
    expect(over.status).toBe(403);
    expect(over.body.code).toBe('plan_limit_reached');
    expect((await req('GET', '', undefined, account)).body.count).toBe(3);
  });

  it('paginates with count and next/previous links', async () => {
    const account = await createAccount(deps);
    for (const name of ['a', 'b', 'c']) await req('POST', '', { name }, account);
    const page1 = await req('GET', '?page_size=2', undefined, account);
    expect(page1.body).toMatchObject({ count: 3, previous: null });
    expect(page1.body.results.map((p: { name: string }) => p.name)).toEqual(['c', 'b']);
    expect(page1.body.next).toContain(`${family}/projects/?page_size=2&page=2`);
    const page2 = await req('GET', '?page_size=2&page=2', undefined, account);
    expect(page2.body.results.map((p: { name: string }) => p.name)).toEqual(['a']);
    expect((await req('GET', '?page=5', undefined, account)).body.results).toEqual([]);
    for (const bad of ['page_size=0', 'page_size=101', 'page_size=-1', 'page_size=abc', 'page=0']) {
      expect((await req('GET', `?${bad}`, undefined, account)).body.code).toBe('validation_error');
    }
  });

  it("answers 404 for another account's project on every verb, and leaves it unchanged", async () => {
    const mine = (await req('POST', '', { name: 'Private', description: 'secret' })).body;
    for (const [method, body] of [['GET'], ['PATCH', { name: 'Hijacked' }], ['DELETE']] as const) {
      const response = await req(method, `${mine.id}/`, body, stranger);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
    expect(
      (await req('GET', '?page_size=100', undefined, stranger)).body.results.map((p: { id: string }) => p.id),
    ).not.toContain(mine.id);
    expect((await req('GET', `${mine.id}/`)).body).toMatchObject({ name: 'Private', description: 'secret' });
  });

  it('rejects a name the caller already uses with 409 conflict, also under concurrent creates', async () => {
    await req('POST', '', { name: 'Duplicate' });
    const again = await req('POST', '', { name: '  Duplicate ' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('conflict');
    expect(again.body.errors).toHaveProperty('name');
    // Another account may use the same name.
    expect((await req('POST', '', { name: 'Duplicate' }, stranger)).status).toBe(201);

    const racers = await Promise.all(Array.from({ length: 8 }, () => req('POST', '', { name: 'Raced' })));
    expect(racers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);

    const other = (await req('POST', '', { name: 'Other' })).body;
    const clash = await req('PATCH', `${other.id}/`, { name: 'Duplicate' });
    expect(clash.status).toBe(409);
    expect((await req('GET', `${other.id}/`)).body.name).toBe('Other');
  });

  it.each([
    ['an empty name', { name: '' }, 'name'],
    ['a whitespace-only name', { name: ' \t\n ' }, 'name'],
    ['a 101-character name', { name: 'x'.repeat(101) }, 'name'],
    ['a NUL in the name', { name: 'a\u0000b' }, 'name'],
    ['a description over 1000 characters', { name: 'Long', description: 'd'.repeat(1001) }, 'description'],
    ['an unknown field', { name: 'Extra', owner: 'someone' }, 'owner'],
    ['a missing name', { description: 'no name' }, 'name'],
    ['a non-string name', { name: 42 }, 'name'],
  ])('rejects %s with 400 validation_error and creates nothing', async (_, body, field) => {
    const before = await deps.db('projects').where({ account_id: owner.id }).count();
    const response = await req('POST', '', body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_error');
    expect(response.body.errors).toHaveProperty(field);
    expect(await deps.db('projects').where({ account_id: owner.id }).count()).toEqual(before);
  });

  it('accepts unicode names of up to 100 characters, counted as code points', async () => {
    const name = `🎙️声${'é'.repeat(96)}`;
    const created = await req('POST', '', { name });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe(name.normalize('NFC'));
    // 100 astral characters are 200 UTF-16 units but 100 characters.
    expect((await req('POST', '', { name: '😀'.repeat(100) })).status).toBe(201);
    expect((await req('POST', '', { name: '😀'.repeat(101) })).status).toBe(400);
  });

  it('rejects a PATCH with no field, and bad values in a PATCH', async () => {
    const project = (await req('POST', '', { name: 'Patchable' })).body;
    const empty = await req('PATCH', `${project.id}/`, {});
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('validation_error');
    expect((await req('PATCH', `${project.id}/`, { name: ' ' })).status).toBe(400);
    expect((await req('PATCH', `${project.id}/`, { id: 'x' })).status).toBe(400);
    expect((await req('GET', `${project.id}/`)).body.name).toBe('Patchable');
  });

  it.each(['not-a-uuid', '123', "1'%20OR%20'1'='1", '00000000-0000-0000-0000-000000000000'])(
    'answers 404, never 500, for the id %s',
    async (id) => {
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const response = await req(method, `${id}/`, method === 'PATCH' ? { name: 'x' } : undefined);
        expect(response.status).toBe(404);
      }
    },
  );

  it('requires authentication', async () => {
    const response = await call(api.url, 'GET', `${family}/projects/`);
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('not_authenticated');
  });
});

describe('projects in the OpenAPI document', () => {
  it('lists every projects path of both families', async () => {
    const document = await fetchOpenApiDocument();
    for (const family of ['/api/v1', '/api']) {
      expect(Object.keys(document.paths[`${family}/projects/`])).toEqual(expect.arrayContaining(['get', 'post']));
      expect(Object.keys(document.paths[`${family}/projects/{id}/`])).toEqual(
        expect.arrayContaining(['get', 'patch', 'delete']),
      );
    }
  });
});
