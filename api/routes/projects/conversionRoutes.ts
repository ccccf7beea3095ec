import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ProjectChapter } from '../../../db/models/ProjectChapter';
import { ProjectSnapshot } from '../../../db/models/ProjectSnapshot';
import { cpuTaskQueue, requestCancel } from '../../../lib/temporal';
import { conversionReserveUpdate, conversionWorkflowId, type ConversionInput } from '../../../studio/conversion';
import { projectConversion } from '../../../workflows/projectConversion';
import type { ApiDeps } from '../../deps';
import { conflict, insufficientCredits, notFound, rangeNotSatisfiable, validationError, ApiError } from '../../errors';
import { jsonResponse, problemResponses } from '../../openapi';
import { NEWEST_FIRST, PageQuery, pageOf, pageSchema, presentPage } from '../../pagination';
import { defineRoute, familyPrefix, inBothFamilies, type Route } from '../../route';
import { findProject } from './commands';
import { blockSpec, BlockVoiceMissingError } from '../../../studio/blockSpec';
import { blocksInOrder, blockSpecContext, projectSettings } from '../../../studio/content';

const ConvertBody = z.strictObject({
  chapter_ids: z
    .array(z.uuid())
    .min(1)
    .max(1000)
    .optional()
    .meta({ description: 'The chapters to convert, in any order (absent: all of them)' }),
});
const SnapshotParams = z.object({
  id: z.uuid().meta({ description: 'The project' }),
  sid: z.uuid().meta({ description: 'The snapshot (a conversion)' }),
});
const ProjectIdParams = z.object({ id: z.uuid().meta({ description: 'The project' }) });
const AudioQuery = z.object({
  format: z.enum(['m4b', 'mp3', 'zip']).default('m4b').meta({
    description: 'M4B with chapters, one MP3 with ID3 chapters, or a zip of one MP3 per chapter and a playlist',
  }),
});
const CaptionsQuery = z.object({
  format: z.enum(['srt', 'vtt']).default('vtt').meta({ description: 'SubRip or WebVTT' }),
  chapter_id: z.uuid().meta({ description: 'The chapter whose captions to give' }),
});

const SnapshotOut = z
  .object({
    id: z.uuid().meta({ description: 'The snapshot' }),
    status: z
      .enum(['queued', 'converting', 'completed', 'failed', 'canceled'])
      .meta({ description: 'Where the conversion is' }),
    progress: z.number().meta({ description: 'Blocks done of the blocks to convert, 0-1 (1 when completed)' }),
    chapters: z.array(z.record(z.string(), z.unknown())).meta({
      description:
        'The chapter index: `{chapter_id, title, index, start_ms, duration_ms, qc}` per chapter, in order (filled as chapters finish)',
    }),
    duration_ms: z.number().nullable().meta({ description: 'The book’s length, once completed' }),
    characters_rendered: z.number().meta({ description: 'Characters of the blocks rendered (not reused)' }),
    credits_charged: z.number().meta({ description: 'Credits charged: the rendered blocks’ characters, once each' }),
    blocks_rendered: z.number().meta({ description: 'Blocks rendered by this conversion' }),
    blocks_reused: z.number().meta({ description: 'Blocks whose current audio was reused (not charged)' }),
    created_at: z.string().meta({ description: 'When it was asked (ISO 8601)' }),
    completed_at: z.string().nullable().meta({ description: 'When it ended (ISO 8601), or null' }),
    error: z
      .object({
        code: z.string().meta({ description: 'A stable code' }),
        message: z.string().meta({ description: 'What went wrong' }),
      })
      .nullable()
      .meta({ description: 'Why it failed, or null' }),
  })
  .meta({ id: 'ProjectSnapshot' });

const presentSnapshot = (row: ProjectSnapshot) => ({
  id: row.id,
  status: row.status,
  progress: row.progress,
  chapters: row.chapters,
  duration_ms: row.duration_ms,
  characters_rendered: row.characters_rendered,
  credits_charged: row.credits_charged,
  blocks_rendered: row.blocks_rendered,
  blocks_reused: row.blocks_reused,
  created_at: new Date(row.created_at).toISOString(),
  completed_at: row.completed_at ? new Date(row.completed_at).toISOString() : null,
  error: row.error,
});

const notReady = () => new ApiError(409, 'not_ready', 'Not ready', 'The snapshot has not completed.');

const FILE_TYPES: Record<string, string> = {
  m4b: 'audio/mp4',
  mp3: 'audio/mpeg',
  zip: 'application/zip',
  srt: 'application/x-subrip',
  vtt: 'text/vtt',
};

/** Sends a stored file, with a single byte Range when asked. */
async function sendFile(ctx: Context, { storage }: ApiDeps, key: string, format: string, fileName: string) {
  const size = await storage.size(key);
  if (size === null) throw notFound('No such file.');
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Content-Disposition', `attachment; filename="${fileName}.${format}"`);
  ctx.set('Cache-Control', 'private, max-age=3600');
  ctx.type = FILE_TYPES[format];
  const match = /^bytes=(\d*)-(\d*)$/.exec(ctx.get('Range') || '');
  if (match && (match[1] || match[2])) {
    const start = match[1] ? Number(match[1]) : Math.max(0, size - Number(match[2]));
    const end = match[1] && match[2] ? Math.min(Number(match[2]), size - 1) : size - 1;
    if (start >= size || start > end) throw rangeNotSatisfiable(size);
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${start}-${end}/${size}`);
    ctx.length = end - start + 1;
    ctx.body = await storage.get(key, { start, end });
    return;
  }
  ctx.status = 200;
  ctx.length = size;
  ctx.body = await storage.get(key);
}

/** Studio conversions: convert a project into an audiobook snapshot, follow, cancel and download it. */
export function conversionRoutes(deps: ApiDeps): Route[] {
  const { config, db, temporal } = deps;
  const findSnapshot = async (account: { id: string }, projectId: string, snapshotId: string) => {
    const row = await ProjectSnapshot.query(db).findOne({
      id: snapshotId,
      project_id: projectId,
      account_id: account.id,
    });
    if (!row) throw notFound('No such snapshot.');
    return row;
  };
  const one = jsonResponse('The snapshot', SnapshotOut);
  return [
    defineRoute({
      method: 'post',
      paths: inBothFamilies('projects/{id}/convert/'),
      summary: 'Convert the project (or some chapters) into an audiobook snapshot',
      tags: ['Projects'],
      auth: true,
      params: ProjectIdParams,
      body: ConvertBody,
      responses: { 202: one, ...problemResponses(400, 401, 402, 404, 409) },
      async handler(ctx, { account, params, body }, family) {
        const project = await findProject(db, account, params.id);
        // Nothing to convert is a 400 at once, not a workflow started for nothing.
        const wanted = body.chapter_ids ? [...new Set(body.chapter_ids)] : null;
        const chapters = ProjectChapter.query(db).where({ project_id: project.id });
        if (wanted) chapters.whereIn('id', wanted);
        const found = await chapters.resultSize();
        if (wanted && found < wanted.length) throw validationError({ chapter_ids: ['Unknown chapter.'] });
        const blocks = found === 0 ? [] : await blocksInOrder(db, project.id, wanted ?? undefined);
        if (blocks.length === 0)
          throw validationError({
            chapter_ids: ['Nothing to convert: the chapters hold no text (import a document first).'],
          });
        // A block no voice reads is a 400 now, not a conversion that fails later.
        const settings = projectSettings(project);
        const context = await blockSpecContext(db, project, blocks);
        try {
          for (const block of blocks) blockSpec(settings, block, context);
        } catch (error) {
          if (error instanceof BlockVoiceMissingError) throw validationError({ default_voice_id: [error.message] });
          throw error;
        }
        const snapshotId = randomUUID();
        const input: ConversionInput = {
          snapshotId,
          accountId: account.id,
          projectId: project.id,
          chapterIds: body.chapter_ids ?? null,
          cpuTaskQueue: cpuTaskQueue(config),
          maxParallelBlocks: config.STUDIO_MAX_PARALLEL_BLOCKS,
        };
        const start = new WithStartWorkflowOperation(projectConversion, {
          workflowId: conversionWorkflowId(snapshotId),
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          args: [input],
          searchAttributes: { Account: [account.id] },
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        });
        let outcome: 'reserved' | 'insufficient' | 'conflict';
        let estimate = 0;
        try {
          const { reservation } = await temporal.connection.withDeadline(
            Date.now() + config.SUBMIT_TIMEOUT_SECONDS * 1000,
            () =>
              temporal.workflow.executeUpdateWithStart(conversionReserveUpdate, {
                startWorkflowOperation: start,
                updateId: 'reserve',
              }),
          );
          outcome = reservation.outcome;
          if (reservation.outcome !== 'conflict') estimate = reservation.estimate;
        } catch (error) {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          outcome = (await ProjectSnapshot.query(db).findById(snapshotId)) ? 'reserved' : 'insufficient';
        }
        if (outcome === 'conflict') throw conflict('Another conversion of this project is running.');
        if (outcome === 'insufficient')
          throw insufficientCredits(`This conversion costs ${estimate} credits; the available balance is lower.`);
        ctx.status = 202;
        ctx.set('Location', `${familyPrefix(family)}/projects/${project.id}/snapshots/${snapshotId}/`);
        ctx.body = presentSnapshot(await ProjectSnapshot.query(db).findById(snapshotId).throwIfNotFound());
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('projects/{id}/snapshots/'),
      summary: "The project's snapshots, newest first",
      tags: ['Projects'],
      auth: true,
      params: ProjectIdParams,
      query: PageQuery,
      responses: {
        200: jsonResponse('A page of snapshots', pageSchema(SnapshotOut)),
        ...problemResponses(400, 401, 404),
      },
      async handler(ctx, { account, params, query }) {
        const project = await findProject(db, account, params.id);
        const base = () => ProjectSnapshot.query(db).where({ project_id: project.id, account_id: account.id });
        const [count, rows] = await pageOf(base().orderBy(NEWEST_FIRST), query, base());
        ctx.body = presentPage(ctx, config.PUBLIC_URL, query, count, rows.map(presentSnapshot));
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('projects/{id}/snapshots/{sid}/'),
      summary: 'One snapshot',
      tags: ['Projects'],
      auth: true,
      params: SnapshotParams,
      responses: { 200: one, ...problemResponses(401, 404) },
      async handler(ctx, { account, params }) {
        ctx.body = presentSnapshot(await findSnapshot(account, params.id, params.sid));
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('projects/{id}/snapshots/{sid}/cancel/'),
      summary: 'Cancel a running conversion (what its blocks did not take is released)',
      tags: ['Projects'],
      auth: true,
      params: SnapshotParams,
      responses: { 202: one, ...problemResponses(401, 404) },
      async handler(ctx, { account, params }) {
        const row = await findSnapshot(account, params.id, params.sid);
        if (row.status === 'queued' || row.status === 'converting')
          await requestCancel(temporal.workflow.getHandle(conversionWorkflowId(row.id)));
        ctx.status = 202;
        ctx.body = presentSnapshot(row);
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('projects/{id}/snapshots/{sid}/audio/'),
      summary: "A completed snapshot's audiobook: M4B with chapters, MP3 or a zip of chapters (Range supported)",
      tags: ['Projects'],
      auth: true,
      params: SnapshotParams,
      query: AudioQuery,
      responses: {
        200: { description: 'The audio' },
        206: { description: 'Part of it' },
        ...problemResponses(401, 404, 409, 416),
      },
      async handler(ctx, { account, params, query }) {
        const row = await findSnapshot(account, params.id, params.sid);
        const key = row.outputs[query.format];
        if (row.status !== 'completed' || typeof key !== 'string') throw notReady();
        await sendFile(ctx, deps, key, query.format, `snapshot-${row.id}`);
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('projects/{id}/snapshots/{sid}/captions/'),
      summary: "A chapter's captions of a snapshot (SRT or WebVTT)",
      tags: ['Projects'],
      auth: true,
      params: SnapshotParams,
      query: CaptionsQuery,
      responses: { 200: { description: 'The captions' }, ...problemResponses(401, 404, 409) },
      async handler(ctx, { account, params, query }) {
        const row = await findSnapshot(account, params.id, params.sid);
        const captions = row.outputs.captions as Record<string, Record<string, string>> | undefined;
        const key = captions?.[query.chapter_id]?.[query.format];
        if (!key) {
          if (row.status !== 'completed') throw notReady();
          throw notFound('No such chapter in this snapshot.');
        }
        await sendFile(ctx, deps, key, query.format, `chapter-${query.chapter_id}`);
      },
    }),
  ];
}
