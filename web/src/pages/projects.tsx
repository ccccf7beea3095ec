import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { InlineForm } from '../components/forms';
import { EntryCard, EntryList } from '../components/lists';
import { formatDate } from '../format';
import { usePagedLoad, useSubmit } from '../hooks';
import { Link } from '../router';
import { ConfirmButton, ErrorMessage, Field, PageTitle, Pager, Status } from '../ui';
import type { Project } from '../types';

const PAGE_SIZE = 20;

function Rename({ project, onDone }: { project: Project; onDone: () => void }) {
  const [name, setName] = useState(project.name);
  const save = useSubmit(async () => {
    await api('PATCH', `projects/${project.id}/`, { body: { name } });
    onDone();
  });
  return (
    <form onSubmit={save.onSubmit} class="inline-form">
      <Field label={`New name for ${project.name}`} value={name} onValue={setName} maxLength={100} required autoFocus />
      <button type="submit" class="primary">
        Save
      </button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
      <ErrorMessage error={save.error} />
    </form>
  );
}

export function Projects() {
  const projects = usePagedLoad<Project>('projects/', PAGE_SIZE);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [renaming, setRenaming] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  const create = useSubmit(async () => {
    // A new attempt: what the last one said no longer applies.
    setMessage(null);
    await api('POST', 'projects/', { body: { name, description } });
    setMessage(`Project “${name}” created.`);
    setName('');
    setDescription('');
    projects.reload();
  });
  const remove = async (project: Project) => {
    create.clear();
    await api('DELETE', `projects/${project.id}/`);
    setMessage(`Project “${project.name}” deleted; its syntheses stay in your history.`);
    projects.reload();
  };

  return (
    <>
      <PageTitle>Projects</PageTitle>
      <p>Group syntheses by project: choose one in the playground, then filter your history by it.</p>
      <InlineForm submit={create} label="Create project">
        <Field
          label="Project name"
          value={name}
          onValue={setName}
          maxLength={100}
          required
          aria-invalid={create.error instanceof ApiError && create.error.problem.errors?.name ? true : undefined}
        />
        <Field label="Description (optional)" value={description} onValue={setDescription} maxLength={1000} />
      </InlineForm>
      {message && <Status>{message}</Status>}
      <ErrorMessage error={projects.error} />
      {projects.data && projects.data.count === 0 && <p>No projects yet.</p>}
      <EntryList records={projects.data?.results}>
        {(project) =>
          renaming === project.id ? (
            <Rename
              project={project}
              onDone={() => {
                setRenaming(null);
                projects.reload();
              }}
            />
          ) : (
            <EntryCard
              title={project.name}
              meta={`${project.synthesis_count} syntheses · created ${formatDate(project.created_at)}`}
              actions={
                <>
                  <Link
                    class="button"
                    href={`/app/studio?project=${project.id}`}
                    aria-label={`Open ${project.name} in Studio`}
                  >
                    Studio
                  </Link>
                  <Link
                    class="button"
                    href={`/app/history?project_id=${project.id}`}
                    aria-label={`Syntheses of ${project.name}`}
                  >
                    Syntheses
                  </Link>
                  <button type="button" aria-label={`Rename ${project.name}`} onClick={() => setRenaming(project.id)}>
                    Rename
                  </button>
                  <ConfirmButton
                    label="Delete"
                    subject={project.name}
                    question={`Delete the project “${project.name}”? Its syntheses stay in your history.`}
                    confirmLabel="Delete project"
                    onConfirm={() => remove(project)}
                  />
                </>
              }
            >
              {project.description && <p>{project.description}</p>}
            </EntryCard>
          )
        }
      </EntryList>
      <Pager {...projects.pager} />
    </>
  );
}
