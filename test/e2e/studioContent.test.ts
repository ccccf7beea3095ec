import { randomUUID } from 'node:crypto';
import { Project } from '../../db/models/Project';
import { blockSpec } from '../../studio/blockSpec';
import { blockSpecContext, blocksInOrder, projectSettings } from '../../studio/content';
import { epub3 } from '../fixtures/studio/epub';
import { buildPdf } from '../fixtures/studio/pdf';
import { createAccount, createVoice } from '../helpers/factories';
import { expectProblem, readReply, requestsBelow, type Reply } from '../helpers/http';
import { useAccount, useStack } from '../helpers/stack';

const MARKDOWN = '# One\n\nIt was night.\n\nThe rain fell.\n\n# Two\n\nMorning came.\n';
const DRM = `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
  <enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
  <enc:CipherData><enc:CipherReference URI="OEBPS/text/book.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>`;

describe.each([['/api/v1'], ['/api']])('Studio content in the %s family', (family) => {
  const { deps, api } = useStack();
  const owner = useAccount(deps);
  const stranger = useAccount(deps);
  const req = requestsBelow(api, `${family}/projects/`, owner);
  beforeAll(async () => {
    await deps.db('accounts').where({ id: owner.id }).update({ subscription_tier: 'pro' });
  });

  const newProject = async () => (await req('POST', '', { name: `Book ${randomUUID()}` })).body.id as string;

  async function upload(projectId: string, bytes: Buffer, filename: string, mode?: string): Promise<Reply> {
    const form = new FormData();
    form.append('file', new Blob([bytes]), filename);
    if (mode) form.append('mode', mode);
    return readReply(
      await fetch(`${api.url}${family}/projects/${projectId}/content/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${owner.access}` },
        body: form,
      }),
    );
  }

  async function rows(projectId: string) {
    const chapters = await deps.db('project_chapters').where({ project_id: projectId }).count('* as n').first();
    const blocks = await deps
      .db('project_blocks')
      .join('project_chapters', 'project_chapters.id', 'project_blocks.chapter_id')
      .where('project_chapters.project_id', projectId)
      .count('* as n')
      .first();
    return { chapters: Number(chapters?.n), blocks: Number(blocks?.n) };
  }

  it('imports Markdown from JSON into chapters and blocks, and appends', async () => {
    const id = await newProject();
    const imported = await req('POST', `${id}/content/`, { format: 'markdown', text: MARKDOWN });
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ id, chapter_count: 2, has_cover: false, last_conversion: null });
    expect(imported.body.chapters.map((chapter: { title: string }) => chapter.title)).toEqual(['One', 'Two']);
    expect(imported.body.chapters.map((chapter: { index: number }) => chapter.index)).toEqual([0, 1]);
    const characters = imported.body.chapters.reduce((sum: number, c: { characters: number }) => sum + c.characters, 0);
    expect(imported.body.characters).toBe(characters);
    expect(imported.body.credits_needed).toBe(characters);

    const chapter = imported.body.chapters[0];
    const blocks = await req('GET', `${id}/chapters/${chapter.id}/blocks/`);
    const texts = blocks.body.results.map((block: { text: string }) => block.text);
    expect(texts).toEqual(expect.arrayContaining(['It was night.', 'The rain fell.']));
    expect(blocks.body.results[0]).toMatchObject({ index: 0, audio_current: false, segments: null });

    const appended = await req('POST', `${id}/content/`, { format: 'text', text: 'A last word.', mode: 'append' });
    expect(appended.status).toBe(200);
    expect(appended.body.chapters.length).toBe(3);
    expect(appended.body.chapters[2].index).toBe(2);
    const replaced = await req('POST', `${id}/content/`, { format: 'markdown', text: '# Only\n\nOne.' });
    expect(replaced.body.chapters.map((c: { title: string }) => c.title)).toEqual(['Only']);
    expect(await rows(id)).toEqual({ chapters: 1, blocks: expect.any(Number) });
  });

  it('imports an EPUB upload with its chapters in order, metadata and cover', async () => {
    const id = await newProject();
    const imported = await upload(id, epub3(), 'book.epub');
    expect(imported.status).toBe(200);
    expect(imported.body.has_cover).toBe(true);
    expect(imported.body.metadata).toMatchObject({ title: 'The Long Road', author: 'Jane Walker' });
    expect(imported.body.chapters.length).toBeGreaterThan(1);
    expect(imported.body.chapters.map((c: { index: number }) => c.index)).toEqual(
      imported.body.chapters.map((_: unknown, index: number) => index),
    );
    const titles = imported.body.chapters.map((c: { title: string }) => c.title);
    expect(titles).toContain('Chapter 3. The Hill');
    expect(titles.indexOf('Part Two')).toBeLessThan(titles.indexOf('Chapter 3. The Hill'));
    const list = await req('GET', `${id}/chapters/`);
    const hill = list.body.results.find((c: { title: string }) => c.title === 'Chapter 3. The Hill');
    const part = list.body.results.find((c: { title: string }) => c.title === 'Part Two');
    expect(hill).toMatchObject({ parent_id: part.id, level: 1, status: 'not_converted', progress: 0 });
    expect(await deps.storage.size(`projects/${id}/cover`)).toBeGreaterThan(0);
    expect((await req('DELETE', `${id}/`)).status).toBe(204);
    expect(await deps.storage.size(`projects/${id}/cover`)).toBeNull();
  });

  it('imports a PDF upload with the chapters of its outline, and refuses one with no text layer', async () => {
    const id = await newProject();
    const pdf = buildPdf({
      info: { title: 'The Lighthouse', author: 'Ann Writer' },
      pages: [
        { lines: ['The Lighthouse'] },
        { lines: ['Chapter 1: Arrival', 'The keeper came to the island on a grey morning.', '2'] },
        { lines: ['Chapter 2: Storm', 'The storm broke the lamp, and he mended it.', '3'] },
      ],
      outline: [
        { title: 'Chapter 1: Arrival', page: 1 },
        { title: 'Chapter 2: Storm', page: 2 },
      ],
    });
    const imported = await upload(id, pdf, 'book.pdf');
    expect(imported.status).toBe(200);
    expect(imported.body.metadata).toMatchObject({ title: 'The Lighthouse', author: 'Ann Writer' });
    expect(imported.body.chapters.map((c: { title: string }) => c.title)).toEqual([
      'Chapter 1: Arrival',
      'Chapter 2: Storm',
    ]);
    const before = await rows(id);
    const scanned = buildPdf({ pages: [{ image: true }, { image: true }] });
    expectProblem(await upload(id, scanned, 'scan.pdf'), 422, 'no_text_layer');
    expect(await rows(id)).toEqual(before);
  });

  it.each<[string, () => [Buffer, string], number, string]>([
    ['a DRM EPUB', () => [epub3({ 'META-INF/encryption.xml': DRM }), 'book.epub'], 422, 'document_protected'],
    [
      'text that is not UTF-8',
      () => [Buffer.from([0x41, 0xff, 0xfe, 0x42, 0x80, 0x0a]), 'a.txt'],
      422,
      'document_unreadable',
    ],
    [
      'an unsupported type',
      () => [Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), 'a.gif'],
      415,
      'unsupported_media_type',
    ],
  ])('refuses %s and changes nothing', async (_label, make, status, code) => {
    const id = await newProject();
    await req('POST', `${id}/content/`, { format: 'markdown', text: MARKDOWN });
    const before = await rows(id);
    const [bytes, name] = make();
    expectProblem(await upload(id, bytes, name), status, code);
    expectProblem(await upload(id, bytes, name, 'append'), status, code);
    expect(await rows(id)).toEqual(before);
  });

  it('refuses a body that is neither multipart nor JSON, and bad fields', async () => {
    const id = await newProject();
    const reply = await readReply(
      await fetch(`${api.url}${family}/projects/${id}/content/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${owner.access}`, 'Content-Type': 'text/plain' },
        body: 'hello',
      }),
    );
    expectProblem(reply, 415, 'unsupported_media_type');
    expectProblem(await req('POST', `${id}/content/`, { format: 'doc', text: 'x' }), 400, 'validation_error');
    expectProblem(
      await req('POST', `${id}/content/`, { format: 'text', text: 'x', mode: 'merge' }),
      400,
      'validation_error',
    );
    expect(await rows(id)).toEqual({ chapters: 0, blocks: 0 });
  });

  it("refuses past the plan's characters or chapters, writing nothing", async () => {
    const account = await createAccount(deps);
    const own = requestsBelow(api, `${family}/projects/`, account);
    const id = (await own('POST', '', { name: 'Big' })).body.id;
    const chapters = Array.from({ length: 51 }, (_, index) => `# C${index}\n\nText ${index}.`).join('\n\n');
    expectProblem(
      await own('POST', `${id}/content/`, { format: 'markdown', text: chapters }),
      403,
      'plan_limit_reached',
    );
    const long = `# A\n\n${'word '.repeat(20_500)}`;
    const tooLong = await own('POST', `${id}/content/`, { format: 'markdown', text: long });
    expect([403, 413]).toContain(tooLong.status);
    expect(await rows(id)).toEqual({ chapters: 0, blocks: 0 });
  });

  it("answers 404 for another account's project, chapter and block", async () => {
    const id = await newProject();
    const imported = await req('POST', `${id}/content/`, { format: 'markdown', text: MARKDOWN });
    const chapter = imported.body.chapters[0];
    const block = (await req('GET', `${id}/chapters/${chapter.id}/blocks/`)).body.results[0];
    const as = (method: string, path: string, body?: unknown) => req(method, path, body, stranger);
    expectProblem(await as('POST', `${id}/content/`, { format: 'text', text: 'x' }), 404, 'not_found');
    expectProblem(await as('GET', `${id}/chapters/`), 404);
    expectProblem(await as('GET', `${id}/chapters/${chapter.id}/`), 404);
    expectProblem(await as('PATCH', `${id}/chapters/${chapter.id}/`, { title: 'x' }), 404);
    expectProblem(await as('DELETE', `${id}/chapters/${chapter.id}/blocks/${block.id}/`), 404);
    expectProblem(await as('GET', `${id}/chapters/${chapter.id}/blocks/${block.id}/`), 404);
    // A chapter of another project of the same account is not this project's.
    const other = await newProject();
    expectProblem(await req('GET', `${other}/chapters/${chapter.id}/`), 404);
    expect(await rows(id)).toEqual({ chapters: 2, blocks: expect.any(Number) });
    expect((await req('GET', `${id}/chapters/${chapter.id}/`)).body.title).toBe('One');
  });

  it('round-trips the Studio settings through PATCH, checking the voices', async () => {
    const id = await newProject();
    const voice = await createVoice(deps, owner);
    const theirs = await createVoice(deps, stranger);
    const settings = {
      default_voice_id: voice,
      heading_voice_id: null,
      dialogue_voice_id: voice,
      language: 'en-GB',
      text_normalization: 'off',
      speed: 1.25,
      output_preset: 'standard',
      speakers: { ALICE: voice },
      metadata: { title: 'My Book', author: 'Me' },
    };
    const patched = await req('PATCH', `${id}/`, settings);
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      ...settings,
      metadata: { title: 'My Book', author: 'Me', narrator: null, isbn: null },
    });
    expect((await req('GET', `${id}/`)).body).toEqual(patched.body);
    expect((await req('PATCH', `${id}/`, { metadata: { narrator: 'Sam' } })).body.metadata).toMatchObject({
      title: 'My Book',
      narrator: 'Sam',
    });
    const bad = expectProblem(await req('PATCH', `${id}/`, { default_voice_id: theirs }), 400, 'validation_error');
    expect(bad.errors).toHaveProperty('default_voice_id');
    expectProblem(await req('PATCH', `${id}/`, { speed: 5 }), 400, 'validation_error');
    expectProblem(await req('PATCH', `${id}/`, { text_normalization: 'maybe' }), 400, 'validation_error');
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`S${index}`, voice]));
    expectProblem(await req('PATCH', `${id}/`, { speakers: many }), 400, 'validation_error');
    expect((await req('GET', `${id}/`)).body.default_voice_id).toBe(voice);
  });

  it('creates, reads, moves, edits and deletes chapters and blocks', async () => {
    const id = await newProject();
    const first = await req('POST', `${id}/chapters/`, {
      title: 'First',
      text: 'Para one.\n\nPara two.\n\n\nPara three.',
    });
    expect(first.status).toBe(201);
    expect(first.headers.get('location')).toBe(`${family}/projects/${id}/chapters/${first.body.id}/`);
    expect(first.body).toMatchObject({ index: 0, title: 'First', block_count: 3, characters: 29, level: 0 });
    expect(first.body).toMatchObject({ parent_id: null, credits_needed: 29, status: 'not_converted' });
    const second = (await req('POST', `${id}/chapters/`, { title: 'Second' })).body;
    expect(second).toMatchObject({ index: 1, block_count: 0 });

    const moved = await req('PATCH', `${id}/chapters/${second.id}/`, { index: 0, title: 'Zero' });
    expect(moved.body).toMatchObject({ index: 0, title: 'Zero' });
    const order = (await req('GET', `${id}/chapters/`)).body.results.map((c: { title: string }) => c.title);
    expect(order).toEqual(['Zero', 'First']);

    const base = `${id}/chapters/${first.body.id}/blocks/`;
    const blocks = (await req('GET', base)).body.results;
    const inserted = await req('POST', base, { text: 'Between.', after_block_id: blocks[0].id, kind: 'heading' });
    expect(inserted.status).toBe(201);
    expect(inserted.body).toMatchObject({ index: 1, kind: 'heading', text: 'Between.', characters: 8 });
    const atStart = await req('POST', base, { text: 'Start.', after_block_id: null });
    expect(atStart.body.index).toBe(0);
    const atEnd = await req('POST', base, { text: 'End.' });
    expect(atEnd.body.index).toBe(5);
    expect((await req('GET', base)).body.results.map((b: { text: string }) => b.text)).toEqual([
      'Start.',
      'Para one.',
      'Between.',
      'Para two.',
      'Para three.',
      'End.',
    ]);
    expectProblem(await req('POST', base, { text: 'x', after_block_id: randomUUID() }), 404);
    expectProblem(await req('POST', base, { text: '   ' }), 400, 'validation_error');

    const edited = await req('PATCH', `${base}${inserted.body.id}/`, { text: 'Édité.', kind: 'paragraph' });
    expect(edited.body).toMatchObject({ text: 'Édité.', kind: 'paragraph', characters: 6 });
    expect((await req('GET', `${base}${inserted.body.id}/`)).body).toEqual(edited.body);
    expect((await req('DELETE', `${base}${inserted.body.id}/`)).status).toBe(204);
    expectProblem(await req('GET', `${base}${inserted.body.id}/`), 404);
    expect((await req('GET', base)).body.results.map((b: { index: number }) => b.index)).toEqual([0, 1, 2, 3, 4]);

    const project = (await req('GET', `${id}/`)).body;
    expect(project).toMatchObject({ chapter_count: 2, characters: 6 + 29 + 4 });
    expect(project.credits_needed).toBe(project.characters);

    expect((await req('DELETE', `${id}/chapters/${second.id}/`)).status).toBe(204);
    expect((await req('GET', `${id}/chapters/${first.body.id}/`)).body.index).toBe(0);
    expect(await rows(id)).toEqual({ chapters: 1, blocks: 5 });
  });

  it('counts a block with stored audio for its hash as current, until a setting changes', async () => {
    const id = await newProject();
    const voice = await createVoice(deps, owner);
    await req('PATCH', `${id}/`, { default_voice_id: voice });
    const chapter = (await req('POST', `${id}/chapters/`, { title: 'C', text: 'One.\n\nTwo two.' })).body;
    const project = await Project.query(deps.db).findById(id);
    const blocks = await blocksInOrder(deps.db, id);
    expect(blocks.map((block) => block.text)).toEqual(['One.', 'Two two.']);
    const spec = blockSpec(projectSettings(project!), blocks[0], await blockSpecContext(deps.db, project!, blocks));
    await deps.db('block_audio').insert({
      account_id: owner.id,
      content_hash: spec.hash,
      audio_key: 'test/audio',
      duration_ms: 500,
      characters: 4,
    });
    expect((await req('GET', `${id}/`)).body).toMatchObject({ characters: 12, credits_needed: 8 });
    expect((await req('GET', `${id}/chapters/${chapter.id}/`)).body).toMatchObject({
      status: 'stale',
      credits_needed: 8,
      progress: 0.5,
    });
    const listed = (await req('GET', `${id}/chapters/${chapter.id}/blocks/`)).body.results;
    expect(listed.map((block: { audio_current: boolean }) => block.audio_current)).toEqual([true, false]);
    await req('PATCH', `${id}/`, { speed: 1.1 });
    expect((await req('GET', `${id}/`)).body.credits_needed).toBe(12);
  });
});
