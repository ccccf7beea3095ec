import { Project } from '../../../db/models/Project';
import type { ApiDeps } from '../../deps';
import { jsonResponse, problemResponses } from '../../openapi';
import { NEWEST_FIRST, pageOf, presentPage } from '../../pagination';
import { defineRoute, type Route, inBothFamilies, familyPrefix } from '../../route';
import { ProjectBlock } from '../../../db/models/ProjectBlock';
import { ProjectChapter } from '../../../db/models/ProjectChapter';
import {
  createChapter,
  deleteBlock,
  deleteChapter,
  insertBlock,
  updateBlock,
  updateChapter,
  blockAudioCurrent,
} from '../../../studio/content';
import { notFound } from '../../errors';
import {
  asApiError,
  chapterSummaries,
  checkVoices,
  createProject,
  deleteProject,
  findBlock,
  findChapter,
  findProject,
  presentedProject,
  projectsOf,
  studioSummaries,
  updateProject,
} from './commands';
import { importContent } from './content';
import { presentBlock, presentChapter, presentChapterSummary, presentProject } from './presenter';
import {
  BlockCreateBody,
  BlockOut,
  BlockPage,
  BlockParams,
  BlockUpdateBody,
  ChapterCreateBody,
  ChapterOut,
  ChapterPage,
  ChapterParams,
  ChapterUpdateBody,
  ContentForm,
  ContentOut,
  ProjectCreateBody,
  ProjectListQuery,
  ProjectOut,
  ProjectPage,
  ProjectParams,
  ProjectUpdateBody,
} from './schema';

const one = jsonResponse('The project', ProjectOut);

export function projectRoutes({ config, db, storage }: ApiDeps): Route[] {
  return [
    defineRoute({
      method: 'get',
      paths: inBothFamilies('projects/'),
      summary: "The caller's projects, newest first",
      tags: ['Projects'],
      auth: true,
      query: ProjectListQuery,
      responses: { 200: jsonResponse('A page of projects', ProjectPage), ...problemResponses(400, 401) },
      async handler(ctx, { account, query }) {
        const [count, rows] = await pageOf(
          projectsOf(db, account).orderBy(NEWEST_FIRST),
          query,
          Project.query(db).modify('ownedBy', account),
        );
        const summaries = await studioSummaries(db, rows);
        ctx.body = presentPage(
          ctx,
          config.PUBLIC_URL,
          query,
          count,
          rows.map((row) => presentProject(row, summaries.get(row.id)!)),
        );
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('projects/'),
      summary: 'Create a project',
      tags: ['Projects'],
      auth: true,
      body: ProjectCreateBody,
      responses: { 201: jsonResponse('Created', ProjectOut), ...problemResponses(400, 401, 403, 409) },
      async handler(ctx, { account, body }, family) {
        const project = await createProject(db, account, body);
        ctx.status = 201;
        ctx.set('Location', `${familyPrefix(family)}/projects/${project.id}/`);
        ctx.body = await presentedProject(db, await findProject(db, account, project.id));
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('projects/{id}/'),
      summary: 'One project',
      tags: ['Projects'],
      auth: true,
      params: ProjectParams,
      responses: { 200: one, ...problemResponses(401, 404) },
      async handler(ctx, { account, params }) {
        ctx.body = await presentedProject(db, await findProject(db, account, params.id));
      },
    }),
    defineRoute({
      method: 'patch',
      paths: inBothFamilies('projects/{id}/'),
      summary: 'Change the name, description or Studio settings of a project',
      tags: ['Projects'],
      auth: true,
      params: ProjectParams,
      body: ProjectUpdateBody,
      responses: { 200: one, ...problemResponses(400, 401, 404, 409) },
      async handler(ctx, { account, params, body }) {
        ctx.body = await presentedProject(db, await updateProject(db, account, params.id, body));
      },
    }),
    defineRoute({
      method: 'delete',
      paths: inBothFamilies('projects/{id}/'),
      summary: 'Delete a project (its syntheses stay, without a project)',
      tags: ['Projects'],
      auth: true,
      params: ProjectParams,
      responses: { 204: { description: 'Deleted' }, ...problemResponses(401, 404) },
      async handler(ctx, { account, params }) {
        const project = await findProject(db, account, params.id);
        await deleteProject(db, account, params.id);
        // The cover goes with the project (a failed removal leaves an object no row names).
        if (project.cover_key) await storage.remove(project.cover_key).catch(() => undefined);
        ctx.status = 204;
      },
    }),
    ...studioRoutes({ config, db, storage }),
  ];
}

const chapterOne = jsonResponse('The chapter', ChapterOut);
const blockOne = jsonResponse('The block', BlockOut);

/** Studio: a project's content (import), chapters and blocks (API.md § Studio). */
function studioRoutes({ config, db, storage }: Pick<ApiDeps, 'config' | 'db' | 'storage'>): Route[] {
  const chapterOut = async (project: Parameters<typeof chapterSummaries>[1], chapter: ProjectChapter) =>
    presentChapter(chapter, (await chapterSummaries(db, project, [chapter])).get(chapter.id)!);
  const blockOut = async (project: Parameters<typeof chapterSummaries>[1], block: ProjectBlock) =>
    presentBlock(block, project, (await blockAudioCurrent(db, project, [block])).get(block.id) ?? false);
  return [
    defineRoute({
      method: 'post',
      paths: inBothFamilies('projects/{id}/content/'),
      summary: 'Import a document (EPUB, PDF, Markdown, text, HTML) into the project',
      tags: ['Projects'],
      auth: true,
      params: ProjectParams,
      form: ContentForm,
      responses: {
        200: jsonResponse('The project and its chapters', ContentOut),
        ...problemResponses(400, 401, 403, 404, 413, 415, 422),
      },
      async handler(ctx, { account, params }) {
        const project = await findProject(db, account, params.id);
        await importContent(ctx, { db, storage }, project);
        const updated = await findProject(db, account, params.id);
        const chapters = await ProjectChapter.query(db).modify('ofProject', project.id);
        const summaries = await chapterSummaries(db, updated, chapters);
        ctx.body = {
          ...(await presentedProject(db, updated)),
          chapters: chapters.map((chapter) => presentChapterSummary(chapter, summaries.get(chapter.id)!)),
        };
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('projects/{id}/chapters/'),
      summary: "The project's chapters, in order",
      tags: ['Projects'],
      auth: true,
      params: ProjectParams,
      query: ProjectListQuery,
      responses: { 200: jsonResponse('A page of chapters', ChapterPage), ...problemResponses(400, 401, 404) },
      async handler(ctx, { account, params, query }) {
        const project = await findProject(db, account, params.id);
        const [count, rows] = await pageOf(ProjectChapter.query(db).modify('ofProject', project.id), query);
        const summaries = await chapterSummaries(db, project, rows);
        ctx.body = presentPage(
          ctx,
          config.PUBLIC_URL,
          query,
          count,
          rows.map((row) => presentChapter(row, summaries.get(row.id)!)),
        );
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('projects/{id}/chapters/'),
      summary: 'Add a chapter at the end (its text split into paragraphs at blank lines)',
      tags: ['Projects'],
      auth: true,
      params: ProjectParams,
      body: ChapterCreateBody,
      responses: { 201: jsonResponse('Created', ChapterOut), ...problemResponses(400, 401, 403, 404) },
      async handler(ctx, { account, params, body }, family) {
        const project = await findProject(db, account, params.id);
        const id = await createChapter(db, project, body).catch((error: unknown) => {
          throw asApiError(error);
        });
        ctx.status = 201;
        ctx.set('Location', `${familyPrefix(family)}/projects/${project.id}/chapters/${id}/`);
        ctx.body = await chapterOut(project, await findChapter(db, project, id));
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('projects/{id}/chapters/{cid}/'),
      summary: 'One chapter',
      tags: ['Projects'],
      auth: true,
      params: ChapterParams,
      responses: { 200: chapterOne, ...problemResponses(401, 404) },
      async handler(ctx, { account, params }) {
        const project = await findProject(db, account, params.id);
        ctx.body = await chapterOut(project, await findChapter(db, project, params.cid));
      },
    }),
    defineRoute({
      method: 'patch',
      paths: inBothFamilies('projects/{id}/chapters/{cid}/'),
      summary: 'Rename a chapter or move it (index)',
      tags: ['Projects'],
      auth: true,
      params: ChapterParams,
      body: ChapterUpdateBody,
      responses: { 200: chapterOne, ...problemResponses(400, 401, 404) },
      async handler(ctx, { account, params, body }) {
        const project = await findProject(db, account, params.id);
        const chapter = await findChapter(db, project, params.cid);
        await updateChapter(db, project, chapter.id, body);
        ctx.body = await chapterOut(project, await findChapter(db, project, chapter.id));
      },
    }),
    defineRoute({
      method: 'delete',
      paths: inBothFamilies('projects/{id}/chapters/{cid}/'),
      summary: 'Delete a chapter and its blocks',
      tags: ['Projects'],
      auth: true,
      params: ChapterParams,
      responses: { 204: { description: 'Deleted' }, ...problemResponses(401, 404) },
      async handler(ctx, { account, params }) {
        const project = await findProject(db, account, params.id);
        const chapter = await findChapter(db, project, params.cid);
        await deleteChapter(db, project, chapter.id);
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('projects/{id}/chapters/{cid}/blocks/'),
      summary: "The chapter's blocks, in order",
      tags: ['Projects'],
      auth: true,
      params: ChapterParams,
      query: ProjectListQuery,
      responses: { 200: jsonResponse('A page of blocks', BlockPage), ...problemResponses(400, 401, 404) },
      async handler(ctx, { account, params, query }) {
        const project = await findProject(db, account, params.id);
        const chapter = await findChapter(db, project, params.cid);
        const [count, rows] = await pageOf(ProjectBlock.query(db).modify('ofChapter', chapter.id), query);
        const current = await blockAudioCurrent(db, project, rows);
        ctx.body = presentPage(
          ctx,
          config.PUBLIC_URL,
          query,
          count,
          rows.map((row) => presentBlock(row, project, current.get(row.id) ?? false)),
        );
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('projects/{id}/chapters/{cid}/blocks/'),
      summary: 'Insert a block (after after_block_id, else at the end)',
      tags: ['Projects'],
      auth: true,
      params: ChapterParams,
      body: BlockCreateBody,
      responses: { 201: jsonResponse('Created', BlockOut), ...problemResponses(400, 401, 403, 404) },
      async handler(ctx, { account, params, body }, family) {
        const project = await findProject(db, account, params.id);
        const chapter = await findChapter(db, project, params.cid);
        if (body.voice_id) await checkVoices(db, account, { voice_id: [body.voice_id] });
        let afterBlockId: string | null;
        if (body.after_block_id === undefined) {
          const last = await ProjectBlock.query(db)
            .where({ chapter_id: chapter.id })
            .orderBy('index', 'desc')
            .select('id')
            .first();
          afterBlockId = last?.id ?? null;
        } else afterBlockId = body.after_block_id;
        const id = await insertBlock(db, project, chapter.id, {
          text: body.text,
          kind: body.kind,
          voice_id: body.voice_id ?? null,
          afterBlockId,
        }).catch((error: unknown) => {
          throw asApiError(error);
        });
        if (id === null) throw notFound('No such block (after_block_id) in this chapter.');
        ctx.status = 201;
        ctx.set('Location', `${familyPrefix(family)}/projects/${project.id}/chapters/${chapter.id}/blocks/${id}/`);
        ctx.body = await blockOut(project, await findBlock(db, chapter, id));
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('projects/{id}/chapters/{cid}/blocks/{bid}/'),
      summary: 'One block',
      tags: ['Projects'],
      auth: true,
      params: BlockParams,
      responses: { 200: blockOne, ...problemResponses(401, 404) },
      async handler(ctx, { account, params }) {
        const project = await findProject(db, account, params.id);
        const chapter = await findChapter(db, project, params.cid);
        ctx.body = await blockOut(project, await findBlock(db, chapter, params.bid));
      },
    }),
    defineRoute({
      method: 'patch',
      paths: inBothFamilies('projects/{id}/chapters/{cid}/blocks/{bid}/'),
      summary: "Change a block's text, kind or voice",
      tags: ['Projects'],
      auth: true,
      params: BlockParams,
      body: BlockUpdateBody,
      responses: { 200: blockOne, ...problemResponses(400, 401, 403, 404) },
      async handler(ctx, { account, params, body }) {
        const project = await findProject(db, account, params.id);
        const chapter = await findChapter(db, project, params.cid);
        const block = await findBlock(db, chapter, params.bid);
        if (body.voice_id) await checkVoices(db, account, { voice_id: [body.voice_id] });
        await updateBlock(db, project, block.id, body).catch((error: unknown) => {
          throw asApiError(error);
        });
        ctx.body = await blockOut(project, await findBlock(db, chapter, block.id));
      },
    }),
    defineRoute({
      method: 'delete',
      paths: inBothFamilies('projects/{id}/chapters/{cid}/blocks/{bid}/'),
      summary: 'Delete a block',
      tags: ['Projects'],
      auth: true,
      params: BlockParams,
      responses: { 204: { description: 'Deleted' }, ...problemResponses(401, 404) },
      async handler(ctx, { account, params }) {
        const project = await findProject(db, account, params.id);
        const chapter = await findChapter(db, project, params.cid);
        const block = await findBlock(db, chapter, params.bid);
        await deleteBlock(db, project, chapter.id, block.id);
        ctx.status = 204;
      },
    }),
  ];
}
