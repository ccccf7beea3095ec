import { randomUUID } from 'node:crypto';
import { raw } from 'objection';
import type { Account } from '../../../db/models/Account';
import { Project } from '../../../db/models/Project';
import { ProjectBlock } from '../../../db/models/ProjectBlock';
import { ProjectChapter } from '../../../db/models/ProjectChapter';
import { Voice } from '../../../db/models/Voice';
import {
  ContentLimitError,
  accountsWithBlockAudio,
  blockAudioCurrent,
  blocksInOrder,
  projectTotals,
  withinProjectLimit,
} from '../../../studio/content';
import { conflict, notFound, planLimitReached, validationError } from '../../errors';
import { violatedUniqueConstraint } from '../../failures';
import type { Db } from '../../../db/knex';
import { type ChapterConversion, type ChapterSummary, presentProject, type StudioSummary } from './presenter';
import { ProjectSnapshot } from '../../../db/models/ProjectSnapshot';
import type { StudioSettings } from './schema';

/** projects (account_id, name), named by knex in db/migrations/003_projects.ts. */
const UNIQUE_NAME = 'projects_account_id_name_unique';
const nameTaken = () =>
  conflict('name: You already have a project with this name.', {
    name: ['You already have a project with this name.'],
  });

async function uniqueName<T>(write: () => PromiseLike<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (violatedUniqueConstraint(error) === UNIQUE_NAME) throw nameTaken();
    throw error;
  }
}

/** The caller's projects, each with the number of its syntheses still in history. */
export function projectsOf(db: Db, account: Account) {
  return Project.query(db)
    .modify('ownedBy', account)
    .select(
      'projects.*',
      raw(
        '(select count(*) from syntheses where syntheses.project_id = projects.id and syntheses.deleted_at is null)::int as synthesis_count',
      ),
    );
}

/** Another account's project is indistinguishable from a missing one. */
export async function findProject(db: Db, account: Account, id: string): Promise<Project> {
  const project = await projectsOf(db, account).findOne({ id });
  if (!project) throw notFound('No such project.');
  return project;
}

export function createProject(
  db: Db,
  account: Account,
  props: { name: string; description: string },
): Promise<Project> {
  return withinPlan(db, account, (trx) =>
    uniqueName(() => Project.query(trx).insertAndFetch({ id: randomUUID(), account_id: account.id, ...props })),
  );
}

export async function updateProject(
  db: Db,
  account: Account,
  id: string,
  changes: { name?: string; description?: string } & StudioSettings,
): Promise<Project> {
  const project = await findProject(db, account, id);
  const { name, description, ...settings } = changes;
  const studio = await studioChanges(db, account, project, settings);
  await uniqueName(() =>
    Project.query(db)
      .patch({
        ...(name !== undefined && { name }),
        ...(description !== undefined && { description }),
        ...studio,
        updated_at: new Date(),
      })
      .where({ id: project.id }),
  );
  return findProject(db, account, id);
}

export async function deleteProject(db: Db, account: Account, id: string): Promise<void> {
  const deleted = await Project.query(db).modify('ownedBy', account).delete().where({ id });
  if (!deleted) throw notFound('No such project.');
}

// Studio: settings, summaries, chapters and blocks (the content commands are studio/content.ts).

/** Runs a project-creating write within the plan's `max_projects` (403 plan_limit_reached). */
export async function withinPlan<T>(db: Db, account: Account, write: (trx: Db) => Promise<T>): Promise<T> {
  try {
    return await withinProjectLimit(db, account.id, write);
  } catch (error) {
    throw asApiError(error);
  }
}

/** A studio/content.ts error as the API's: a plan bound -> 403 plan_limit_reached. */
export function asApiError(error: unknown): unknown {
  if (error instanceof ContentLimitError) return planLimitReached(error.message);
  return error;
}

/** 400 naming each field whose voice the caller may not use (visible voices only: premade on offer, own clones). */
export async function checkVoices(db: Db, account: Account, fields: Record<string, string[]>): Promise<void> {
  const ids = [...new Set(Object.values(fields).flat())];
  if (ids.length === 0) return;
  const found = await Voice.query(db).modify('visibleTo', account).whereIn('id', ids).select('id');
  const known = new Set(found.map((row) => row.id));
  const errors: Record<string, string[]> = {};
  for (const [field, voiceIds] of Object.entries(fields)) {
    const unknown = voiceIds.find((id) => !known.has(id));
    if (unknown !== undefined) errors[field] = [`Unknown voice: ${unknown}.`];
  }
  if (Object.keys(errors).length) throw validationError(errors);
}

/** Checks and writes the Studio settings of a PATCH (metadata fields merge into the stored ones). */
export async function studioChanges(db: Db, account: Account, project: Project, settings: StudioSettings) {
  const voiceFields: Record<string, string[]> = {};
  for (const field of ['default_voice_id', 'heading_voice_id', 'dialogue_voice_id'] as const) {
    const value = settings[field];
    if (typeof value === 'string') voiceFields[field] = [value];
  }
  if (settings.speakers) {
    if (Object.keys(settings.speakers).length > 50) throw validationError({ speakers: ['At most 50 speakers.'] });
    voiceFields.speakers = Object.values(settings.speakers);
  }
  await checkVoices(db, account, voiceFields);
  const { metadata, ...rest } = settings;
  return {
    ...Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
    ...(metadata && { metadata: { ...project.metadata, ...metadata } }),
  } as Partial<Project>;
}

/** Each project's chapters, characters and credits needed (characters of its blocks without current audio). */
export async function studioSummaries(db: Db, projects: Project[]): Promise<Map<string, StudioSummary>> {
  const totals = await projectTotals(
    db,
    projects.map((project) => project.id),
  );
  const summaries = new Map<string, StudioSummary>();
  const accounts = [...new Set(projects.map((project) => project.account_id))];
  const hasAudio = await accountsWithBlockAudio(db, accounts);
  const latest = await ProjectSnapshot.latestOf(
    db,
    projects.map((project) => project.id),
  );
  for (const project of projects) {
    const total = totals.get(project.id)!;
    let credits = total.characters;
    // Before any audio of the account, nothing is current: no block needs hashing.
    if (hasAudio.has(project.account_id) && total.characters > 0) {
      const blocks = await blocksInOrder(db, project.id);
      const current = await blockAudioCurrent(db, project, blocks);
      credits = blocks.reduce((sum, block) => sum + (current.get(block.id) ? 0 : block.characters), 0);
    }
    summaries.set(project.id, {
      chapter_count: total.chapters,
      characters: total.characters,
      credits_needed: credits,
      last_conversion: latest.get(project.id) ?? null,
    });
  }
  return summaries;
}

export async function presentedProject(db: Db, project: Project) {
  return presentProject(project, (await studioSummaries(db, [project])).get(project.id)!);
}

/** Another account's (or another project's) chapter is indistinguishable from a missing one. */
export async function findChapter(db: Db, project: Project, chapterId: string): Promise<ProjectChapter> {
  const chapter = await ProjectChapter.query(db).findOne({ id: chapterId, project_id: project.id });
  if (!chapter) throw notFound('No such chapter.');
  return chapter;
}

export async function findBlock(db: Db, chapter: ProjectChapter, blockId: string): Promise<ProjectBlock> {
  const block = await ProjectBlock.query(db).findOne({ id: blockId, chapter_id: chapter.id });
  if (!block) throw notFound('No such block.');
  return block;
}

/** Each chapter's characters, blocks, and blocks with current audio. */
export async function chapterSummaries(
  db: Db,
  project: Project,
  chapters: ProjectChapter[],
): Promise<Map<string, ChapterSummary>> {
  if (chapters.length === 0) return new Map();
  const conversions = chapterConversions(await ProjectSnapshot.newestOf(db, project.id), chapters);
  const summaries = new Map<string, ChapterSummary>(
    chapters.map((chapter) => [
      chapter.id,
      { characters: 0, block_count: 0, credits_needed: 0, current_blocks: 0, conversion: conversions.get(chapter.id)! },
    ]),
  );
  const blocks = await ProjectBlock.query(db).whereIn(
    'chapter_id',
    chapters.map((chapter) => chapter.id),
  );
  const current = await blockAudioCurrent(db, project, blocks);
  for (const block of blocks) {
    const summary = summaries.get(block.chapter_id)!;
    summary.characters += block.characters;
    summary.block_count += 1;
    if (current.get(block.id)) summary.current_blocks += 1;
    else summary.credits_needed += block.characters;
  }
  return summaries;
}

/** What the project's snapshots (newest first) say of each chapter: being converted, failed, when last converted. */
export function chapterConversions(
  snapshots: ProjectSnapshot[],
  chapters: ProjectChapter[],
): Map<string, ChapterConversion> {
  return new Map(
    chapters.map((chapter) => {
      const including = snapshots.filter((snapshot) => snapshot.chapter_ids?.includes(chapter.id));
      const assembled = (snapshot: ProjectSnapshot) =>
        snapshot.chapters.some((entry) => entry.chapter_id === chapter.id);
      const running = including.some(
        (snapshot) => (snapshot.status === 'queued' || snapshot.status === 'converting') && !assembled(snapshot),
      );
      const ended = including.find((snapshot) => snapshot.status !== 'queued' && snapshot.status !== 'converting');
      const completed = including.find((snapshot) => snapshot.status === 'completed' && assembled(snapshot));
      return [
        chapter.id,
        { running, failed: ended?.status === 'failed', convertedAt: completed?.completed_at ?? null },
      ];
    }),
  );
}
