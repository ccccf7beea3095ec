import type { Project } from '../../../db/models/Project';

/** A project as the API presents it (both families alike). */
export const presentProject = (project: Project) => ({
  id: project.id,
  name: project.name,
  description: project.description,
  synthesis_count: project.synthesis_count ?? 0,
  created_at: project.created_at.toISOString(),
  updated_at: project.updated_at.toISOString(),
});
