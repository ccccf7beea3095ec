import { useState } from 'preact/hooks';
import { api, get, getAll, type Page } from '../api';
import { InlineForm } from '../components/forms';
import { EntryCard, EntryList, RecordTable } from '../components/lists';
import { formatNumber } from '../format';
import { useLoad, usePagedLoad, useSubmit } from '../hooks';
import { Link, navigate, useLocation } from '../router';
import { ConvertPanel, SnapshotList, useConversion } from '../studio/conversion';
import { ChapterEditor, VoicesPanel } from '../studio/editor';
import { ImportDocument } from '../studio/importer';
import { ErrorMessage, Field, PageTitle, Pager } from '../ui';
import type { Chapter, ChapterStatus, Snapshot, StudioProject, Voice } from '../types';

const PAGE_SIZE = 20;
const credits = (count: number) => `${formatNumber(count)} ${count === 1 ? 'credit' : 'credits'}`;
const projectUrl = (id: string, chapter?: string) =>
  `/app/studio?project=${encodeURIComponent(id)}${chapter ? `&chapter=${encodeURIComponent(chapter)}` : ''}`;

const STATUS_WORDS: Record<ChapterStatus, string> = {
  not_converted: 'not converted',
  converting: 'converting',
  converted: 'converted',
  stale: 'changed since',
  failed: 'failed',
};

function ChapterTable({
  project,
  chapters,
  converting,
}: {
  project: StudioProject;
  chapters: Chapter[] | undefined;
  converting: boolean;
}) {
  return (
    <RecordTable
      records={chapters}
      columns={[
        {
          title: 'Chapter',
          cell: (chapter) => (
            <span class={chapter.level > 0 ? 'nested' : undefined}>
              {chapter.index + 1}. {chapter.title}
            </span>
          ),
        },
        {
          title: 'Status',
          cell: (chapter) => {
            const moving = chapter.status === 'converting' || (converting && chapter.progress < 1);
            return (
              <>
                <span class={`badge ${chapter.status}`}>{STATUS_WORDS[chapter.status]}</span>
                {moving && (
                  <progress
                    max={1}
                    value={chapter.progress}
                    aria-label={`${chapter.title}: ${Math.round(chapter.progress * 100)} % rendered`}
                  />
                )}
              </>
            );
          },
        },
        { title: 'Characters', cell: (chapter) => formatNumber(chapter.characters), class: 'number' },
        { title: 'Credits needed', cell: (chapter) => formatNumber(chapter.credits_needed), class: 'number' },
      ]}
      actions={(chapter) => (
        <Link class="button" href={projectUrl(project.id, chapter.id)} aria-label={`Edit ${chapter.title}`}>
          Edit
        </Link>
      )}
    />
  );
}

/** One project in Studio: import, chapters, a chapter's blocks, voices, conversion and the audiobooks made. */
function StudioProjectPage({ id, chapterId }: { id: string; chapterId: string | null }) {
  const project = useLoad((signal) => get<StudioProject>(`projects/${id}/`, signal), [id]);
  const chapters = useLoad((signal) => getAll<Chapter>(`projects/${id}/chapters/`, signal), [id]);
  const snapshots = useLoad((signal) => get<Page<Snapshot>>(`projects/${id}/snapshots/?page_size=20`, signal), [id]);
  const voices = useLoad((signal) => getAll<Voice>('voices/', signal), []);
  const refresh = () => {
    project.reload();
    chapters.reload();
  };
  const conversion = useConversion(snapshots.data?.results, {
    onChange: refresh,
    onEnd: () => {
      refresh();
      snapshots.reload();
    },
  });
  const data = project.data;
  const chapter = chapterId ? chapters.data?.results.find((candidate) => candidate.id === chapterId) : undefined;
  const ended = conversion.last && !conversion.running ? conversion.last : null;

  return (
    <>
      <p>
        <Link href="/app/studio">All Studio projects</Link>
      </p>
      <PageTitle>{data ? `Studio: ${data.name}` : 'Studio'}</PageTitle>
      <ErrorMessage error={project.error ?? chapters.error ?? snapshots.error ?? voices.error ?? conversion.error} />
      {data && (
        <>
          <p class="meta">
            {formatNumber(data.chapter_count)} {data.chapter_count === 1 ? 'chapter' : 'chapters'} ·{' '}
            {formatNumber(data.characters)} characters · {credits(data.credits_needed)} to convert
          </p>
          <ConvertPanel
            project={data}
            running={conversion.running}
            latest={snapshots.data?.results[0]}
            onStarted={(snapshot) => {
              conversion.follow(snapshot);
              snapshots.reload();
            }}
          />
          {ended?.status === 'completed' && (
            <p class="status" role="status">
              The audiobook is ready: {credits(ended.credits_charged)} charged, {formatNumber(ended.blocks_reused)}{' '}
              {ended.blocks_reused === 1 ? 'block' : 'blocks'} reused.
            </p>
          )}
          {ended?.status === 'canceled' && (
            <p class="status" role="status">
              The conversion was canceled; what it had not rendered was released.
            </p>
          )}
          {ended?.status === 'failed' && (
            <ErrorMessage error={new Error(ended.error?.message ?? 'The conversion failed.')} />
          )}
          <section aria-labelledby="chapters-title">
            <h2 id="chapters-title">Chapters</h2>
            {chapters.data && chapters.data.count === 0 && <p>No chapters yet: import a document below.</p>}
            <ChapterTable project={data} chapters={chapters.data?.results} converting={conversion.running !== null} />
          </section>
          {chapter && (
            <ChapterEditor
              key={chapter.id}
              project={data}
              chapter={chapter}
              voices={voices.data?.results}
              onChanged={refresh}
              onClose={() => navigate(projectUrl(id))}
            />
          )}
          <ImportDocument
            project={data}
            onImported={() => {
              refresh();
              if (chapterId) navigate(projectUrl(id), true);
            }}
          />
          <VoicesPanel
            // Drawn once the voices are known, so each choice shows its voice.
            key={`${data.id}-${voices.data ? 'voices' : 'none'}`}
            project={data}
            voices={voices.data?.results}
            onSaved={refresh}
          />
          <SnapshotList project={data} snapshots={snapshots.data?.results} running={conversion.running} />
        </>
      )}
    </>
  );
}

function StudioList() {
  const projects = usePagedLoad<StudioProject>('projects/', PAGE_SIZE);
  const [name, setName] = useState('');
  const create = useSubmit(async () => {
    const created = await api<StudioProject>('POST', 'projects/', { body: { name } });
    navigate(projectUrl(created.id));
  });
  return (
    <>
      <PageTitle>Studio</PageTitle>
      <p>
        Turn a book into an audiobook: import an EPUB, PDF, Markdown, text or HTML document, choose the voices, adjust
        the text block by block, then convert it into an M4B with chapters, an MP3 or a zip of chapters.
      </p>
      <InlineForm submit={create} label="Create and open">
        <Field label="New project’s name" value={name} onValue={setName} maxLength={100} required />
      </InlineForm>
      <ErrorMessage error={projects.error} />
      {projects.data && projects.data.count === 0 && <p>No projects yet.</p>}
      <EntryList records={projects.data?.results}>
        {(project) => (
          <EntryCard
            title={project.name}
            meta={`${formatNumber(project.chapter_count)} ${project.chapter_count === 1 ? 'chapter' : 'chapters'} · ${formatNumber(project.characters)} characters · ${credits(project.credits_needed)} to convert`}
            actions={
              <Link class="button" href={projectUrl(project.id)} aria-label={`Open ${project.name} in Studio`}>
                Open
              </Link>
            }
          >
            {project.description && <p>{project.description}</p>}
          </EntryCard>
        )}
      </EntryList>
      <Pager {...projects.pager} />
    </>
  );
}

/** Studio: the projects (`/app/studio`), or one project (`?project=`), with one chapter open (`&chapter=`). */
export function Studio() {
  const { query } = useLocation();
  const id = query.get('project');
  return id ? <StudioProjectPage id={id} chapterId={query.get('chapter')} /> : <StudioList />;
}
