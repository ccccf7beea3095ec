import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import { ProjectChapter } from '../../../db/models/ProjectChapter';
import { ProjectSnapshot } from '../../../db/models/ProjectSnapshot';
import { cpuTaskQueue, requestCancel } from '../../../lib/temporal';
import {
  blockRenderReserveUpdate,
  blockRenderWorkflowId,
  type BlockRenderInput,
  conversionReserveUpdate,
  conversionWorkflowId,
  type ConversionInput,
} from '../../../studio/conversion';
import { blockAudioRender, projectConversion } from '../../../workflows/projectConversion';
import { BlockAudio } from '../../../db/models/BlockAudio';
import type { Project } from '../../../db/models/Project';
import type { ApiDeps } from '../../deps';
import { conflict, notFound, validationError, ApiError } from '../../errors';
import { creditShortfall } from '../../credits';
import { jsonResponse, problemResponses } from '../../openapi';
import { NEWEST_FIRST, PageQuery, pageOf, pageSchema, presentPage } from '../../pagination';
import { defineRoute, familyPrefix, inBothFamilies, type Route } from '../../route';
import { findBlock, findChapter, findProject } from './commands';
import { presentSnapshot } from './presenter';
import {
  AudioQuery,
  BlockParams,
  BlockRenderOut,
  CaptionsQuery,
  ConvertBody,
  ProjectParams,
  SnapshotOut,
  SnapshotParams,
} from './schema';
import { sendStored } from '../../storedFile';
import { streamEvents } from '../../eventStream';
import { snapshotEnded } from '../../../studio/resources';
import { blockSpec, type BlockRow, BlockVoiceMissingError } from '../../../studio/blockSpec';
import { blocksInOrder, blockSpecContext, projectSettings } from '../../../studio/content';

const notReady = () => new ApiError(409, 'not_ready', 'Not ready', 'The snapshot has not completed.');

const FILE_TYPES: Record<string, string> = {
  m4b: 'audio/mp4',
  mp3: 'audio/mpeg',
  zip: 'application/zip',
  srt: 'application/x-subrip',
  vtt: 'text/vtt',
};

const sendFile = (ctx: Context, { storage }: ApiDeps, key: string, format: string, name: string) =>
  sendStored(ctx, storage, key, { contentType: FILE_TYPES[format], fileName: `${name}.${format}`, attachment: true });

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
  /** The blocks' render specs, or 400 when one has no voice to read it. */
  const specsOrRefuse = async (project: Project, blocks: BlockRow[]) => {
    const settings = projectSettings(project);
    const context = await blockSpecContext(db, project, blocks);
    try {
      return blocks.map((block) => blockSpec(settings, block, context));
    } catch (error) {
      if (error instanceof BlockVoiceMissingError) throw validationError({ default_voice_id: [error.message] });
      throw error;
    }
  };
  return [
    defineRoute({
      method: 'post',
      paths: inBothFamilies('projects/{id}/convert/'),
      summary: 'Convert the project (or some chapters) into an audiobook snapshot',
      tags: ['Projects'],
      auth: true,
      params: ProjectParams,
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
        await specsOrRefuse(project, blocks);
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
          searchAttributes: { Account: [account.id], ProjectId: [project.id], Progress: [0] },
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
        if (outcome === 'insufficient') throw await creditShortfall(db, account.id, 'This conversion', estimate);
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
      params: ProjectParams,
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
    defineRoute({
      method: 'get',
      paths: inBothFamilies('projects/{id}/snapshots/{sid}/events/'),
      summary: "A conversion's progress as Server-Sent Events",
      tags: ['Projects'],
      auth: true,
      params: SnapshotParams,
      responses: {
        200: {
          description:
            'Server-Sent Events: a `status` event (the snapshot) now and at every change, until the conversion has ended; then the stream closes.',
          content: { 'text/event-stream': {} },
        } as never,
        ...problemResponses(401, 404, 429),
      },
      async handler(ctx, { account, params }) {
        await findSnapshot(account, params.id, params.sid);
        await streamEvents(ctx, deps, account.id, params.sid, {
          read: () => findSnapshot(account, params.id, params.sid),
          present: presentSnapshot,
          ended: snapshotEnded,
        });
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('projects/{id}/chapters/{cid}/blocks/{bid}/audio/'),
      summary: "A block's current audio (WAV; Range supported), rendered on demand when not current",
      tags: ['Projects'],
      auth: true,
      params: BlockParams,
      responses: {
        200: { description: 'The block’s audio', content: { 'audio/wav': {} } },
        202: jsonResponse('Rendering: ask again at Location', BlockRenderOut),
        206: { description: 'Part of it' },
        ...problemResponses(400, 401, 402, 404, 416),
      },
      async handler(ctx, { account, params }) {
        const project = await findProject(db, account, params.id);
        const chapter = await findChapter(db, project, params.cid);
        const block = await findBlock(db, chapter, params.bid);
        const [spec] = await specsOrRefuse(
          project,
          await blocksInOrder(db, project.id, [chapter.id]).where('project_blocks.id', block.id),
        );
        const send = (key: string) =>
          sendStored(ctx, deps.storage, key, { contentType: 'audio/wav', fileName: `block-${block.id}.wav` });
        const current = async () => (await BlockAudio.keysOf(db, account.id, [spec.hash])).get(spec.hash);
        const stored = await current();
        if (stored) return send(stored);
        const input: BlockRenderInput = {
          renderId: randomUUID(),
          accountId: account.id,
          projectId: project.id,
          blockId: block.id,
          hash: spec.hash,
          cpuTaskQueue: cpuTaskQueue(config),
        };
        // One render per hash at a time: a second request while it runs joins it (and its reservation).
        const start = new WithStartWorkflowOperation(blockAudioRender, {
          workflowId: blockRenderWorkflowId(account.id, spec.hash),
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          args: [input],
          searchAttributes: { Account: [account.id], ProjectId: [project.id] },
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        });
        const reservation = await temporal.connection.withDeadline(
          Date.now() + config.SUBMIT_TIMEOUT_SECONDS * 1000,
          () =>
            temporal.workflow.executeUpdateWithStart(blockRenderReserveUpdate, {
              startWorkflowOperation: start,
              updateId: 'reserve',
            }),
        );
        if (reservation.outcome === 'insufficient')
          throw await creditShortfall(db, account.id, 'Rendering this block', reservation.characters);
        const renderedMeanwhile = reservation.outcome === 'current' ? await current() : undefined;
        if (renderedMeanwhile) return send(renderedMeanwhile);
        ctx.status = 202;
        ctx.set('Location', ctx.path);
        ctx.set('Retry-After', '1');
        ctx.body = {
          status: 'rendering',
          characters: reservation.outcome === 'reserved' ? reservation.characters : spec.characters,
        };
      },
    }),
  ];
}
