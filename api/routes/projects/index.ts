import { Project } from '../../../db/models/Project';
import type { ApiDeps } from '../../deps';
import { jsonResponse, problemResponses } from '../../openapi';
import { NEWEST_FIRST, pageOf, presentPage } from '../../pagination';
import { defineRoute, type Route, inBothFamilies, familyPrefix } from '../../route';
import { createProject, deleteProject, findProject, projectsOf, updateProject } from './commands';
import { presentProject } from './presenter';
import {
  ProjectCreateBody,
  ProjectListQuery,
  ProjectOut,
  ProjectPage,
  ProjectParams,
  ProjectUpdateBody,
} from './schema';

const one = jsonResponse('The project', ProjectOut);

export function projectRoutes({ config, db }: ApiDeps): Route[] {
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
        ctx.body = presentPage(ctx, config.PUBLIC_URL, query, count, rows.map(presentProject));
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('projects/'),
      summary: 'Create a project',
      tags: ['Projects'],
      auth: true,
      body: ProjectCreateBody,
      responses: { 201: jsonResponse('Created', ProjectOut), ...problemResponses(400, 401, 409) },
      async handler(ctx, { account, body }, family) {
        const project = await createProject(db, account, body);
        ctx.status = 201;
        ctx.set('Location', `${familyPrefix(family)}/projects/${project.id}/`);
        ctx.body = presentProject(project);
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
        ctx.body = presentProject(await findProject(db, account, params.id));
      },
    }),
    defineRoute({
      method: 'patch',
      paths: inBothFamilies('projects/{id}/'),
      summary: 'Change the name or description of a project',
      tags: ['Projects'],
      auth: true,
      params: ProjectParams,
      body: ProjectUpdateBody,
      responses: { 200: one, ...problemResponses(400, 401, 404, 409) },
      async handler(ctx, { account, params, body }) {
        ctx.body = presentProject(await updateProject(db, account, params.id, body));
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
        await deleteProject(db, account, params.id);
        ctx.status = 204;
      },
    }),
  ];
}
