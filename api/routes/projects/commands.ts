import { randomUUID } from 'node:crypto';
import { raw } from 'objection';
import type { Account } from '../../../db/models/Account';
import { Project } from '../../../db/models/Project';
import { conflict, notFound } from '../../errors';
import { violatedUniqueConstraint } from '../../failures';
import type { Db } from '../../../db/knex';

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
  return uniqueName(() => Project.query(db).insertAndFetch({ id: randomUUID(), account_id: account.id, ...props }));
}

export async function updateProject(
  db: Db,
  account: Account,
  id: string,
  changes: { name?: string; description?: string },
): Promise<Project> {
  const project = await findProject(db, account, id);
  await uniqueName(() =>
    Project.query(db)
      .patch({ ...changes, updated_at: new Date() })
      .where({ id: project.id }),
  );
  return findProject(db, account, id);
}

export async function deleteProject(db: Db, account: Account, id: string): Promise<void> {
  const deleted = await Project.query(db).modify('ownedBy', account).delete().where({ id });
  if (!deleted) throw notFound('No such project.');
}
