import { defineSearchAttributeKey } from '@temporalio/common';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createAccount } from '../helpers/factories';
import { requestsBelow } from '../helpers/http';
import { eventually } from '../helpers/eventually';
import { useStack, useAccount } from '../helpers/stack';

/**
 * A Studio project converted into an audiobook with the whole stack (API,
 * worker, Temporal, PostgreSQL, MinIO, espeak-ng): the snapshot completes
 * with an M4B whose chapters are the project's; a second conversion after
 * one block changed renders and charges that block only.
 */

const run = promisify(execFile);
const MARKDOWN = '# One\n\nIt was night.\n\nThe rain fell.\n\n# Two\n\nMorning came.\n';

describe('Studio conversion', () => {
  const { deps, api } = useStack({ worker: true });
  const owner = useAccount(deps, { credits: 10_000 });
  const stranger = useAccount(deps);
  const req = requestsBelow(api, '/api/v1/projects/', owner);

  async function newProject(): Promise<string> {
    const created = await req('POST', '', { name: `Book ${randomUUID()}` });
    const id = created.body.id as string;
    expect((await req('PATCH', `${id}/`, { default_voice_id: 'en-us-espeak-m' })).status).toBe(200);
    expect((await req('POST', `${id}/content/`, { format: 'markdown', text: MARKDOWN })).status).toBe(200);
    return id;
  }

  const finished = async (projectId: string, snapshotId: string) => {
    let body: Record<string, unknown> = {};
    await eventually(
      'the conversion to end',
      async () => {
        body = (await req('GET', `${projectId}/snapshots/${snapshotId}/`)).body;
        return !['queued', 'converting'].includes(body.status as string);
      },
      240_000,
    );
    return body;
  };

  it('converts to an M4B with the chapters, then re-renders and charges only a changed block', async () => {
    const id = await newProject();
    const before = await deps.db('accounts').where({ id: owner.id }).first();
    const started = await req('POST', `${id}/convert/`, {});
    expect(started.status).toBe(202);
    expect(started.headers.get('location')).toBe(`/api/v1/projects/${id}/snapshots/${started.body.id}/`);
    expect(started.body).toMatchObject({ status: expect.stringMatching(/queued|converting/) });
    // Another conversion while this one runs: 409.
    expect((await req('POST', `${id}/convert/`, {})).status).toBe(409);
    expect((await req('GET', `${id}/snapshots/${started.body.id}/audio/?format=m4b`)).status).toBe(409);

    const done = await finished(id, started.body.id);
    expect(done).toMatchObject({ status: 'completed', progress: 1, blocks_reused: 0, error: null });
    // The project names it as its last conversion; each chapter says when it was converted.
    expect((await req('GET', `${id}/`)).body.last_conversion).toMatchObject({
      id: started.body.id,
      status: 'completed',
    });
    const statuses = (await req('GET', `${id}/chapters/`)).body.results as { status: string; converted_at: string }[];
    expect(statuses.map((chapter) => [chapter.status, chapter.converted_at])).toEqual([
      ['converted', done.completed_at],
      ['converted', done.completed_at],
    ]);
    // The Temporal UI finds it by project, with its progress.
    const described = await deps.temporal.workflow.getHandle(`project-conversion:${started.body.id}`).describe();
    expect(described.typedSearchAttributes.get(defineSearchAttributeKey('ProjectId', 'KEYWORD'))).toBe(id);
    expect(described.typedSearchAttributes.get(defineSearchAttributeKey('Progress', 'DOUBLE'))).toBe(1);
    const characters = done.characters_rendered as number;
    expect(done.credits_charged).toBe(characters);
    const after = await deps.db('accounts').where({ id: owner.id }).first();
    expect(Number(after.credit_balance)).toBe(Number(before.credit_balance) - characters);
    expect(Number(after.credits_reserved)).toBe(Number(before.credits_reserved));

    const audio = await fetch(`${api.url}/api/v1/projects/${id}/snapshots/${started.body.id}/audio/?format=m4b`, {
      headers: { Authorization: `Bearer ${owner.access}` },
    });
    expect(audio.status).toBe(200);
    const dir = await mkdtemp(path.join(tmpdir(), 'conversion-'));
    try {
      const file = path.join(dir, 'book.m4b');
      await writeFile(file, Buffer.from(await audio.arrayBuffer()));
      const { stdout } = await run('ffprobe', ['-v', 'error', '-show_chapters', '-of', 'json', file]);
      const titles = (JSON.parse(stdout) as { chapters: { tags?: { title?: string } }[] }).chapters.map(
        (chapter) => chapter.tags?.title,
      );
      expect(titles).toEqual(['One', 'Two']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }

    // A byte range of it, and a chapter's captions.
    const part = await fetch(`${api.url}/api/v1/projects/${id}/snapshots/${started.body.id}/audio/?format=mp3`, {
      headers: { Authorization: `Bearer ${owner.access}`, Range: 'bytes=0-99' },
    });
    expect(part.status).toBe(206);
    expect((await part.arrayBuffer()).byteLength).toBe(100);
    const firstChapter = (done.chapters as { chapter_id: string }[])[0].chapter_id;
    const vtt = await req('GET', `${id}/snapshots/${started.body.id}/captions/?format=vtt&chapter_id=${firstChapter}`);
    expect(vtt.status).toBe(200);
    expect(vtt.text).toMatch(/^WEBVTT/);

    // Another account sees nothing of it.
    const hidden = await req('GET', `${id}/snapshots/${started.body.id}/`, undefined, stranger);
    expect(hidden.status).toBe(404);

    // One block changed: only it is rendered and charged.
    const chapters = (await req('GET', `${id}/chapters/`)).body.results as { id: string }[];
    const blocks = (await req('GET', `${id}/chapters/${chapters[1].id}/blocks/`)).body.results as { id: string }[];
    const changed = 'Evening came.';
    expect(
      (
        await req('PATCH', `${id}/chapters/${chapters[1].id}/blocks/${blocks[blocks.length - 1].id}/`, {
          text: changed,
        })
      ).status,
    ).toBe(200);
    const again = await req('POST', `${id}/convert/`, {});
    expect(again.status).toBe(202);
    const second = await finished(id, again.body.id);
    expect(second).toMatchObject({
      status: 'completed',
      blocks_rendered: 1,
      credits_charged: [...changed].length,
      characters_rendered: [...changed].length,
    });
    const list = await req('GET', `${id}/snapshots/`);
    expect(list.body.results.map((snapshot: { id: string }) => snapshot.id)).toEqual([again.body.id, started.body.id]);
  }, 300_000);

  it('refuses nothing to convert, an unknown chapter and blocks no voice reads (400), starting nothing', async () => {
    const empty = (await req('POST', '', { name: `Empty ${randomUUID()}` })).body.id as string;
    const nothing = await req('POST', `${empty}/convert/`, {});
    expect([nothing.status, nothing.body.code, Object.keys(nothing.body.errors)]).toEqual([
      400,
      'validation_error',
      ['chapter_ids'],
    ]);
    expect((await req('POST', `${empty}/content/`, { format: 'markdown', text: MARKDOWN })).status).toBe(200);
    const voiceless = await req('POST', `${empty}/convert/`, {});
    expect([voiceless.status, Object.keys(voiceless.body.errors)]).toEqual([400, ['default_voice_id']]);
    const unknown = await req('POST', `${empty}/convert/`, { chapter_ids: [randomUUID()] });
    expect([unknown.status, unknown.body.errors]).toEqual([400, { chapter_ids: ['Unknown chapter.'] }]);
    expect(await deps.db('project_snapshots').where({ project_id: empty }).count({ n: '*' })).toEqual([{ n: '0' }]);
  });

  it('refuses a conversion the balance does not cover (402), reserving and recording nothing', async () => {
    const poor = await createAccount(deps, { credits: 3 });
    const poorReq = requestsBelow(api, '/api/v1/projects/', poor);
    const created = await poorReq('POST', '', { name: `Book ${randomUUID()}` });
    const id = created.body.id as string;
    await poorReq('PATCH', `${id}/`, { default_voice_id: 'en-us-espeak-m' });
    await poorReq('POST', `${id}/content/`, { format: 'markdown', text: MARKDOWN });
    const refused = await poorReq('POST', `${id}/convert/`, {});
    expect(refused.status).toBe(402);
    expect((await poorReq('GET', `${id}/snapshots/`)).body.results).toEqual([]);
    const account = await deps.db('accounts').where({ id: poor.id }).first();
    expect([Number(account.credit_balance), Number(account.credits_reserved)]).toEqual([3, 0]);
  });
});
