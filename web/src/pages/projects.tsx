import { useState } from 'preact/hooks';
import { api, ApiError, get, type Page } from '../api';
import { formatDate } from '../format';
import { Link } from '../router';
import { ConfirmButton, ErrorMessage, Field, PageTitle, Pager, Status, useLoad } from '../ui';
import type { Project } from '../types';

const PAGE_SIZE = 20;

function Rename({ project, onDone }: { project: Project; onDone: () => void }) {
  const [name, setName] = useState(project.name);
  const [error, setError] = useState<unknown>(null);
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      await api('PATCH', `projects/${project.id}/`, { body: { name } });
      onDone();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <form onSubmit={save} class="inline-form">
      <Field
        label={`New name for ${project.name}`}
        value={name}
        onInput={(event) => setName(event.currentTarget.value)}
        maxLength={100}
        required
        autoFocus
      />
      <button type="submit" class="primary">
        Save
      </button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
      <ErrorMessage error={error} />
    </form>
  );
}

export function Projects() {
  const [page, setPage] = useState(1);
  const projects = useLoad(
    (signal) => get<Page<Project>>(`projects/?page=${page}&page_size=${PAGE_SIZE}`, signal),
    [page],
  );
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  const create = async (event: Event) => {
    event.preventDefault();
    // A new attempt: what the last one said no longer applies.
    setError(null);
    setMessage(null);
    try {
      await api('POST', 'projects/', { body: { name, description } });
      setMessage(`Project “${name}” created.`);
      setName('');
      setDescription('');
      projects.reload();
    } catch (failure) {
      setError(failure);
    }
  };
  const remove = async (project: Project) => {
    setError(null);
    await api('DELETE', `projects/${project.id}/`);
    setMessage(`Project “${project.name}” deleted; its syntheses stay in your history.`);
    projects.reload();
  };

  return (
    <>
      <PageTitle>Projects</PageTitle>
      <p>Group syntheses by project: choose one in the playground, then filter your history by it.</p>
      <form onSubmit={create} class="inline-form">
        <Field
          label="Project name"
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
          maxLength={100}
          required
          aria-invalid={error instanceof ApiError && error.problem.errors?.name ? true : undefined}
        />
        <Field
          label="Description (optional)"
          value={description}
          onInput={(event) => setDescription(event.currentTarget.value)}
          maxLength={1000}
        />
        <button type="submit" class="primary">
          Create project
        </button>
      </form>
      <ErrorMessage error={error} />
      {message && <Status>{message}</Status>}
      <ErrorMessage error={projects.error} />
      {projects.data && projects.data.count === 0 && <p>No projects yet.</p>}
      <ul class="entries">
        {projects.data?.results.map((project) => (
          <li key={project.id} class="entry">
            {renaming === project.id ? (
              <Rename
                project={project}
                onDone={() => {
                  setRenaming(null);
                  projects.reload();
                }}
              />
            ) : (
              <>
                <h2 class="entry-title">{project.name}</h2>
                {project.description && <p>{project.description}</p>}
                <p class="meta">
                  {project.synthesis_count} syntheses · created {formatDate(project.created_at)}
                </p>
                <div class="actions">
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
                    accessibleLabel={`Delete ${project.name}`}
                    question={`Delete the project “${project.name}”? Its syntheses stay in your history.`}
                    confirmLabel="Delete project"
                    onConfirm={() => remove(project)}
                  />
                </div>
              </>
            )}
          </li>
        ))}
      </ul>
      {projects.data && <Pager page={page} count={projects.data.count} pageSize={PAGE_SIZE} onPage={setPage} />}
    </>
  );
}
