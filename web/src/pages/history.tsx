import { useState } from 'preact/hooks';
import { api, get, getAll, type Page } from '../api';
import { AudioPlayer } from '../audio';
import { formatDate, formatNumber, formatSeconds } from '../format';
import { Link, navigate, useLocation } from '../router';
import { EntryList } from '../components/lists';
import { useLoad } from '../hooks';
import { ConfirmButton, ErrorMessage, Field, PageTitle, Pager, Select, Status } from '../ui';
import type { Project, Synthesis, Voice } from '../types';

const PAGE_SIZE = 20;
const STATUSES = ['queued', 'processing', 'completed', 'failed', 'canceled'];
/** Longer texts show their first lines until expanded. */
const CLAMP_CHARACTERS = 280;

/** The UTC day after `day` (YYYY-MM-DD). */
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

export function History() {
  const { query } = useLocation();
  const page = Number(query.get('page') ?? '1') || 1;
  const filters = {
    voice_id: query.get('voice_id') ?? '',
    project_id: query.get('project_id') ?? '',
    status: query.get('status') ?? '',
  };
  // Days in UTC: from the start of `from` to the end of `to`.
  const from = query.get('from') ?? '';
  const to = query.get('to') ?? '';
  const [open, setOpen] = useState<string | null>(null);
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const toggleText = (id: string) => {
    const next = new Set(expanded);
    if (!next.delete(id)) next.add(id);
    setExpanded(next);
  };
  const [message, setMessage] = useState<string | null>(null);

  const params = new URLSearchParams({ page: String(page), page_size: String(PAGE_SIZE) });
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
  if (from) params.set('created_since', from);
  if (to) params.set('created_before', nextDay(to));
  const history = useLoad((signal) => get<Page<Synthesis>>(`tts/history/?${params}`, signal), [params.toString()]);
  // Only the voices this account's history holds: the filter offers nothing that would match no entry.
  const voices = useLoad((signal) => getAll<Voice>('voices/?used=true', signal), []);
  const projects = useLoad((signal) => get<Page<Project>>('projects/?page_size=100', signal), []);
  const voiceName = (id?: string) => voices.data?.results.find((voice) => voice.id === id)?.name ?? id;

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(location.search);
    if (value) next.set(name, value);
    else next.delete(name);
    next.delete('page');
    navigate(`/app/history?${next}`, true);
  };
  const remove = async (entry: Synthesis) => {
    await api('DELETE', `tts/history/${entry.id}/`);
    setMessage('Deleted, with its audio.');
    history.reload();
  };
  const rows = history.data?.results ?? [];
  const long = (entry: Synthesis) => [...(entry.text ?? '')].length > CLAMP_CHARACTERS;

  return (
    <>
      <PageTitle>History</PageTitle>
      <form class="filters" onSubmit={(event) => event.preventDefault()} aria-label="Filters">
        <Select
          label="Voice"
          value={filters.voice_id}
          onValue={(value) => setFilter('voice_id', value)}
          options={[
            ['', 'All voices'],
            ...(voices.data?.results ?? []).map((voice): [string, string] => [voice.id, voice.name]),
          ]}
        />
        <Select
          label="Project"
          value={filters.project_id}
          onValue={(value) => setFilter('project_id', value)}
          options={[
            ['', 'All projects'],
            ...(projects.data?.results ?? []).map((project): [string, string] => [project.id, project.name]),
          ]}
        />
        <Select
          label="Status"
          value={filters.status}
          onValue={(value) => setFilter('status', value)}
          options={[['', 'Any status'], ...STATUSES.map((status): [string, string] => [status, status])]}
        />
        <Field
          label="From (UTC day)"
          type="date"
          value={from}
          onChange={(event) => setFilter('from', event.currentTarget.value)}
        />
        <Field
          label="To (UTC day)"
          type="date"
          value={to}
          onChange={(event) => setFilter('to', event.currentTarget.value)}
        />
      </form>
      {message && <Status>{message}</Status>}
      <ErrorMessage error={history.error} />
      {history.data && rows.length === 0 && <p>No syntheses match.</p>}
      <EntryList records={rows}>
        {(entry) => (
          <>
            <p
              class={long(entry) && !expanded.has(entry.id) ? 'entry-text clamped' : 'entry-text'}
              id={`text-${entry.id}`}
            >
              {entry.text}
            </p>
            {long(entry) && (
              <button
                type="button"
                class="link"
                aria-expanded={expanded.has(entry.id)}
                aria-controls={`text-${entry.id}`}
                onClick={() => toggleText(entry.id)}
              >
                {expanded.has(entry.id)
                  ? 'Show less'
                  : `Show the whole text (${formatNumber([...(entry.text ?? '')].length)} characters)`}
              </button>
            )}
            <p class="meta">
              {formatDate(entry.created_at)} · {voiceName(entry.voice_id)} ·{' '}
              <span class={`badge ${entry.status}`}>{entry.status}</span> · {formatNumber(entry.characters)} characters
              {entry.duration_seconds !== null && ` · ${formatSeconds(entry.duration_seconds)}`}
              {entry.error && ` · ${entry.error.message}`}
            </p>
            <div class="actions">
              {entry.status === 'completed' && (
                <button
                  type="button"
                  aria-expanded={open === entry.id}
                  aria-describedby={`text-${entry.id}`}
                  onClick={() => setOpen(open === entry.id ? null : entry.id)}
                >
                  {open === entry.id ? 'Hide player' : 'Play'}
                </button>
              )}
              <Link class="button" href={`/app/playground?reuse=${entry.id}`} aria-describedby={`text-${entry.id}`}>
                Reuse settings
              </Link>
              <ConfirmButton
                label="Delete"
                question="Delete this synthesis and its audio? A running one is canceled and its credits released."
                confirmLabel="Delete"
                describedBy={`text-${entry.id}`}
                onConfirm={() => remove(entry)}
              />
            </div>
            {open === entry.id && (
              <AudioPlayer id={entry.id} format={entry.output_format} text={entry.text} autoFocus autoPlay />
            )}
          </>
        )}
      </EntryList>
      {history.data && (
        <Pager
          page={page}
          count={history.data.count}
          pageSize={PAGE_SIZE}
          onPage={(next) => {
            const search = new URLSearchParams(location.search);
            search.set('page', String(next));
            navigate(`/app/history?${search}`);
          }}
        />
      )}
    </>
  );
}
