import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { Account } from '../db/models/Account';
import { BlockAudio } from '../db/models/BlockAudio';
import { Project, type ProjectMetadata } from '../db/models/Project';
import { ProjectBlock } from '../db/models/ProjectBlock';
import { ProjectChapter } from '../db/models/ProjectChapter';
import { PronunciationDictionary } from '../db/models/PronunciationDictionary';
import { PronunciationEntry } from '../db/models/PronunciationEntry';
import { Voice } from '../db/models/Voice';
import { blockSpec, dictionariesContentHash, type BlockSpecContext, type ProjectSettings } from './blockSpec';
import type { ImportedBlock, ImportedDocument } from './document';

/**
 * A Studio project's content: chapters of blocks, written from an imported
 * document or one chapter or block at a time, each command in one
 * transaction (nothing half-written on any error) and within the plan's
 * limits. And what a conversion reads: the blocks in order, with the hash
 * their audio is kept under and whether that audio exists.
 */

const codePoints = (text: string) => [...text].length;

/** A plan's bound on a project (`subscription_plans.max_*`) was reached; the API answers 403 plan_limit_reached. */
export class ContentLimitError extends Error {
  override name = 'ContentLimitError';
}

interface PlanLimits {
  max_projects: number;
  max_project_characters: number;
  max_chapters: number;
}

/** The Studio limits of the account's plan. */
export async function studioLimits(db: Knex, accountId: string): Promise<PlanLimits> {
  const row = (await db('accounts')
    .join('subscription_plans', 'subscription_plans.id', 'accounts.subscription_tier')
    .where('accounts.id', accountId)
    .first(
      'subscription_plans.max_projects',
      'subscription_plans.max_project_characters',
      'subscription_plans.max_chapters',
    )) as PlanLimits | undefined;
  return row ?? { max_projects: 0, max_project_characters: 0, max_chapters: 0 };
}

/**
 * Runs `create` (which inserts one project) unless the account already has
 * its plan's `max_projects`; the account's row is locked so two creations
 * cannot both take the last slot.
 */
export async function withinProjectLimit<T>(
  db: Knex,
  accountId: string,
  create: (trx: Knex.Transaction) => Promise<T>,
): Promise<T> {
  return db.transaction(async (trx) => {
    await Account.lock(trx, accountId);
    const limits = await studioLimits(trx, accountId);
    const count = await Project.query(trx).where({ account_id: accountId }).resultSize();
    if (count >= limits.max_projects)
      throw new ContentLimitError(`Your plan allows ${limits.max_projects} projects; delete one to create another.`);
    return create(trx);
  });
}

/** Chapters and characters of each project. */
export async function projectTotals(
  db: Knex,
  projectIds: readonly string[],
): Promise<Map<string, { chapters: number; characters: number }>> {
  const totals = new Map(projectIds.map((id) => [id, { chapters: 0, characters: 0 }]));
  if (projectIds.length === 0) return totals;
  const chapters = (await db('project_chapters')
    .whereIn('project_id', [...projectIds])
    .groupBy('project_id')
    .select('project_id', db.raw('count(*)::int as count'))) as { project_id: string; count: number }[];
  for (const row of chapters) totals.get(row.project_id)!.chapters = row.count;
  const characters = (await db('project_blocks')
    .join('project_chapters', 'project_chapters.id', 'project_blocks.chapter_id')
    .whereIn('project_chapters.project_id', [...projectIds])
    .groupBy('project_chapters.project_id')
    .select('project_chapters.project_id', db.raw('sum(project_blocks.characters)::int as characters'))) as {
    project_id: string;
    characters: number;
  }[];
  for (const row of characters) totals.get(row.project_id)!.characters = row.characters;
  return totals;
}

/** Locks the project's row (content writes to one project run one at a time) and checks the plan's bounds after `write`. */
async function checkedWrite<T>(
  trx: Knex.Transaction,
  project: { id: string; account_id: string },
  write: () => Promise<T>,
): Promise<T> {
  await Project.query(trx).findById(project.id).forUpdate().select('id');
  const result = await write();
  const limits = await studioLimits(trx, project.account_id);
  const totals = (await projectTotals(trx, [project.id])).get(project.id)!;
  if (totals.chapters > limits.max_chapters)
    throw new ContentLimitError(
      `Your plan allows ${limits.max_chapters} chapters a project; this would make ${totals.chapters}.`,
    );
  if (totals.characters > limits.max_project_characters)
    throw new ContentLimitError(
      `Your plan allows ${limits.max_project_characters} characters a project; this would make ${totals.characters}.`,
    );
  return result;
}

const blockRow = (chapterId: string, index: number, block: ImportedBlock) => ({
  id: randomUUID(),
  chapter_id: chapterId,
  index,
  kind: block.kind,
  text: block.text,
  voice_id: null,
  segments: block.segments && block.segments.length > 0 ? block.segments : null,
  characters: codePoints(block.text),
});

async function insertBlocks(trx: Knex.Transaction, rows: ReturnType<typeof blockRow>[]): Promise<void> {
  // Bounded batches: a book's blocks in a few statements, under PostgreSQL's parameter limit.
  for (let start = 0; start < rows.length; start += 1000) {
    const batch = rows.slice(start, start + 1000).map((row) => ({
      ...row,
      segments: row.segments === null ? null : JSON.stringify(row.segments),
    }));
    await trx('project_blocks').insert(batch);
  }
}

/**
 * Writes an imported document into the project: `replace` drops its
 * chapters first, `append` adds after the last. Chapters keep their order,
 * level and parent; metadata fields the document names replace the
 * project's (all of them on `replace`). One transaction; a plan bound
 * exceeded throws ContentLimitError and writes nothing. `beforeCommit`
 * runs last inside the transaction (storing the cover).
 */
export async function writeDocument(
  db: Knex,
  project: Pick<Project, 'id' | 'account_id' | 'metadata'>,
  document: ImportedDocument,
  mode: 'replace' | 'append',
  beforeCommit?: (trx: Knex.Transaction) => Promise<void>,
): Promise<void> {
  await db.transaction(async (trx) => {
    await checkedWrite(trx, project, async () => {
      if (mode === 'replace') await trx('project_chapters').where({ project_id: project.id }).delete();
      const last = (await trx('project_chapters').where({ project_id: project.id }).max('index as max').first()) as
        { max: number | null } | undefined;
      const first = last?.max === null || last?.max === undefined ? 0 : last.max + 1;
      const ids = document.chapters.map(() => randomUUID());
      const chapters = document.chapters.map((chapter, index) => ({
        id: ids[index],
        project_id: project.id,
        index: first + index,
        title: chapter.title,
        level: chapter.level,
        parent_id: chapter.parentIndex === null ? null : (ids[chapter.parentIndex] ?? null),
      }));
      for (let start = 0; start < chapters.length; start += 1000)
        await trx('project_chapters').insert(chapters.slice(start, start + 1000));
      await insertBlocks(
        trx,
        document.chapters.flatMap((chapter, index) =>
          chapter.blocks.map((block, blockIndex) => blockRow(ids[index], blockIndex, block)),
        ),
      );
      const named = Object.fromEntries(Object.entries(document.metadata).filter(([, value]) => value !== null));
      const metadata: ProjectMetadata =
        mode === 'replace' ? { ...document.metadata } : { ...project.metadata, ...named };
      await Project.query(trx)
        .patch({ metadata, updated_at: new Date() } as never)
        .where({ id: project.id });
    });
    if (beforeCommit) await beforeCommit(trx);
  });
}

/** Paragraphs of a text: split at blank lines, each trimmed, empty ones dropped. */
export const paragraphsOf = (text: string): string[] =>
  text
    .split(/\r?\n\s*\r?\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '');

/** Adds a chapter at the end of the project, its text split into paragraphs at blank lines. */
export async function createChapter(
  db: Knex,
  project: Pick<Project, 'id' | 'account_id'>,
  input: { title: string; text?: string },
): Promise<string> {
  const id = randomUUID();
  await db.transaction((trx) =>
    checkedWrite(trx, project, async () => {
      const last = (await trx('project_chapters').where({ project_id: project.id }).max('index as max').first()) as
        { max: number | null } | undefined;
      await trx('project_chapters').insert({
        id,
        project_id: project.id,
        index: last?.max === null || last?.max === undefined ? 0 : last.max + 1,
        title: input.title,
        level: 0,
        parent_id: null,
      });
      await insertBlocks(
        trx,
        paragraphsOf(input.text ?? '').map((text, index) => blockRow(id, index, { kind: 'paragraph', text })),
      );
    }),
  );
  return id;
}

/** Renames a chapter and/or moves it to `index` (0-based, clamped), renumbering the others. */
export async function updateChapter(
  db: Knex,
  project: Pick<Project, 'id'>,
  chapterId: string,
  changes: { title?: string; index?: number },
): Promise<void> {
  await db.transaction(async (trx) => {
    await Project.query(trx).findById(project.id).forUpdate().select('id');
    if (changes.title !== undefined)
      await trx('project_chapters').where({ id: chapterId }).update({ title: changes.title, updated_at: trx.fn.now() });
    if (changes.index !== undefined) {
      const ids = (await ProjectChapter.query(trx).modify('ofProject', project.id).select('id')).map((row) => row.id);
      const order = ids.filter((id) => id !== chapterId);
      order.splice(Math.min(Math.max(changes.index, 0), order.length), 0, chapterId);
      await renumber(trx, 'project_chapters', order);
    }
  });
}

/** Sets `index` 0..n-1 in the given order (only the rows whose index changes). */
async function renumber(trx: Knex.Transaction, table: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await trx.raw(
    `update ${table} set index = ordered.position - 1 from unnest(?::uuid[]) with ordinality as ordered(id, position)
     where ${table}.id = ordered.id and ${table}.index <> ordered.position - 1`,
    [ids],
  );
}

export async function deleteChapter(db: Knex, project: Pick<Project, 'id'>, chapterId: string): Promise<void> {
  await db.transaction(async (trx) => {
    await Project.query(trx).findById(project.id).forUpdate().select('id');
    await trx('project_chapters').where({ id: chapterId }).delete();
    const ids = (await ProjectChapter.query(trx).modify('ofProject', project.id).select('id')).map((row) => row.id);
    await renumber(trx, 'project_chapters', ids);
  });
}

/** Inserts a block after `afterBlockId` (null: first), renumbering the rest of the chapter; null when that block is not in the chapter. */
export async function insertBlock(
  db: Knex,
  project: Pick<Project, 'id' | 'account_id'>,
  chapterId: string,
  input: { text: string; kind: 'heading' | 'paragraph'; voice_id: string | null; afterBlockId: string | null },
): Promise<string | null> {
  const id = randomUUID();
  const inserted = await db.transaction((trx) =>
    checkedWrite(trx, project, async () => {
      const ids = (await ProjectBlock.query(trx).modify('ofChapter', chapterId).select('id')).map((row) => row.id);
      let position = 0;
      if (input.afterBlockId !== null) {
        const after = ids.indexOf(input.afterBlockId);
        if (after < 0) return false;
        position = after + 1;
      }
      await trx('project_blocks').insert({
        ...blockRow(chapterId, ids.length, { kind: input.kind, text: input.text }),
        id,
        voice_id: input.voice_id,
      });
      ids.splice(position, 0, id);
      await renumber(trx, 'project_blocks', ids);
      return true;
    }),
  );
  return inserted ? id : null;
}

/** Changes a block's text, voice or kind (a new text drops its script segments). */
export async function updateBlock(
  db: Knex,
  project: Pick<Project, 'id' | 'account_id'>,
  blockId: string,
  changes: { text?: string; voice_id?: string | null; kind?: 'heading' | 'paragraph' },
): Promise<void> {
  await db.transaction((trx) =>
    checkedWrite(trx, project, async () => {
      await trx('project_blocks')
        .where({ id: blockId })
        .update({
          ...(changes.text !== undefined && {
            text: changes.text,
            characters: codePoints(changes.text),
            segments: null,
          }),
          ...(changes.voice_id !== undefined && { voice_id: changes.voice_id }),
          ...(changes.kind !== undefined && { kind: changes.kind }),
          updated_at: trx.fn.now(),
        });
    }),
  );
}

export async function deleteBlock(db: Knex, project: Pick<Project, 'id'>, chapterId: string, blockId: string) {
  await db.transaction(async (trx) => {
    await Project.query(trx).findById(project.id).forUpdate().select('id');
    await trx('project_blocks').where({ id: blockId }).delete();
    const ids = (await ProjectBlock.query(trx).modify('ofChapter', chapterId).select('id')).map((row) => row.id);
    await renumber(trx, 'project_blocks', ids);
  });
}

/** A project's blocks in reading order (chapters by index, then blocks by index), of some chapters or all. */
export function blocksInOrder(db: Knex, projectId: string, chapterIds?: readonly string[]) {
  const query = ProjectBlock.query(db)
    .join('project_chapters', 'project_chapters.id', 'project_blocks.chapter_id')
    .where('project_chapters.project_id', projectId)
    .orderBy([{ column: 'project_chapters.index' }, { column: 'project_blocks.index' }])
    .select('project_blocks.*');
  if (chapterIds) query.whereIn('project_chapters.id', [...chapterIds]);
  return query;
}

/** The project's settings as blockSpec reads them. */
export const projectSettings = (project: Project): ProjectSettings => ({
  default_voice_id: project.default_voice_id,
  heading_voice_id: project.heading_voice_id,
  dialogue_voice_id: project.dialogue_voice_id,
  speakers: project.speakers ?? {},
  speed: project.speed,
  text_normalization: project.text_normalization,
  language: project.language,
});

/** The engine and model that render a voice: premade `engine:engine_voice`, a clone its base voice's and its own id. */
export function engineModelOfVoice(voice: Pick<Voice, 'id' | 'engine' | 'engine_voice' | 'profile'>): string {
  if (voice.engine !== null) return `${voice.engine}:${voice.engine_voice ?? voice.id}`;
  const base = voice.profile?.baseVoiceId;
  return `clone:${voice.id}${base ? `@${base}` : ''}`;
}

/** The dictionaries a project's blocks are read with, in the order they apply: the project's, then the account's, each oldest first. */
export const projectDictionaryIds = (db: Knex, project: Project): Promise<string[]> =>
  PronunciationDictionary.defaultIds(db, project.account_id, project.id);

/**
 * What blockSpec needs beside the project: the content hash of the
 * dictionaries a synthesis in the project applies by default (the
 * project's, then the account-wide ones, each oldest first) and each
 * voice's engine model (the voices the project and `blocks` name).
 */
export async function blockSpecContext(
  db: Knex,
  project: Project,
  blocks: readonly Pick<ProjectBlock, 'voice_id'>[],
): Promise<BlockSpecContext> {
  const ids = await projectDictionaryIds(db, project);
  const dictionariesHash = dictionariesContentHash(await PronunciationEntry.lexiconOf(db, ids));
  const voiceIds = new Set<string>(
    [
      project.default_voice_id,
      project.heading_voice_id,
      project.dialogue_voice_id,
      ...Object.values(project.speakers ?? {}),
      ...blocks.map((block) => block.voice_id),
    ].filter((id): id is string => typeof id === 'string'),
  );
  const voices = voiceIds.size
    ? await Voice.query(db)
        .whereIn('id', [...voiceIds])
        .select('id', 'engine', 'engine_voice', 'profile')
    : [];
  const models = new Map(voices.map((voice) => [voice.id, engineModelOfVoice(voice)]));
  return { dictionariesHash, engineModelOf: (voiceId) => models.get(voiceId) ?? `unknown:${voiceId}` };
}

/** The accounts (of `accountIds`) with any block audio: before any, no block of theirs is current. */
export async function accountsWithBlockAudio(db: Knex, accountIds: readonly string[]): Promise<Set<string>> {
  if (accountIds.length === 0) return new Set();
  const rows = (await db('block_audio')
    .whereIn('account_id', [...accountIds])
    .distinct('account_id')) as { account_id: string }[];
  return new Set(rows.map((row) => row.account_id));
}

/** Each block's blockSpec hash (what its audio is kept under); a block without a voice has none. */
export async function blockHashes(
  db: Knex,
  project: Project,
  blocks: readonly ProjectBlock[],
): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  if (blocks.length === 0) return hashes;
  const context = await blockSpecContext(db, project, blocks);
  const settings = projectSettings(project);
  for (const block of blocks) {
    try {
      hashes.set(block.id, blockSpec(settings, block, context).hash);
    } catch {
      // No voice reads it: it has no audio to keep.
    }
  }
  return hashes;
}

/** The hashes of every block of the account's projects as they are now: the block audio a conversion would reuse. */
export async function accountBlockHashes(db: Knex, accountId: string): Promise<Set<string>> {
  const all = new Set<string>();
  for (const project of await Project.query(db).where({ account_id: accountId })) {
    for (const hash of (await blockHashes(db, project, await blocksInOrder(db, project.id))).values()) all.add(hash);
  }
  return all;
}

/**
 * Whether each block's audio is current: a `block_audio` row of the
 * project's account holds its blockSpec hash. A block without a voice is
 * not current.
 */
export async function blockAudioCurrent(
  db: Knex,
  project: Project,
  blocks: readonly ProjectBlock[],
): Promise<Map<string, boolean>> {
  const hashes = await blockHashes(db, project, blocks);
  const stored = await BlockAudio.keysOf(db, project.account_id, [...hashes.values()]);
  return new Map(blocks.map((block) => [block.id, stored.has(hashes.get(block.id) ?? '')]));
}
