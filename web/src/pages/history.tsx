import { useEffect, useRef, useState } from 'preact/hooks';
import { get, getAll, type Page, request, saveResponse } from '../api';
import { AudioPlayer } from '../audio';
import { formatDate, formatDuration, formatNumber, formatSeconds } from '../format';
import { followSynthesis } from '../progress';
import { Link, navigate, useLocation } from '../router';
import { EntryList } from '../components/lists';
import { useLoad } from '../hooks';
import { ConfirmButton, ErrorMessage, Field, PageTitle, Pager, Select, Status } from '../ui';
import type { Project, Synthesis, Voice } from '../types';

const PAGE_SIZE = 20;
const STATUSES = ['queued', 'processing', 'completed', 'failed', 'canceled'];
/** Longer texts show their first lines until expanded. */
const CLAMP_CHARACTERS = 280;

/** How long the Delete dialog waits for the server before it says so and lets the person try again. */
const DELETE_TIMEOUT_MS = 20_000;
const running = (entry: Synthesis) => entry.status === 'queued' || entry.status === 'processing';

/** An SSML document (as synthesize reads one: it starts with <speak>, after an optional XML declaration). */
const isSsml = (text: string) => /^\s*(<\?xml[^>]*\?>\s*)?<speak[\s>/]/.test(text);
/** What an SSML document says, without its markup (the XML's text; the tags dropped if it does not parse). */
function spokenText(text: string): string {
  const parsed = new DOMParser().parseFromString(text, 'application/xml');
  const said = parsed.getElementsByTagName('parsererror').length ? null : parsed.documentElement.textContent;
  return (said ?? text.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
}

/** A running synthesis's progress, followed live: percent and the time left; `onEnd` once it has ended. */
function RunningProgress({ entry, onEnd }: { entry: Synthesis; onEnd: () => void }) {
  const [job, setJob] = useState(entry);
  // Where this page first saw it, for a time left of its own when the server gives none.
  const first = useRef<{ at: number; progress: number } | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    followSynthesis(
      entry.id,
      (status) => {
        first.current ??= { at: Date.now(), progress: status.progress };
        setJob(status);
      },
      controller.signal,
    ).then(onEnd, () => undefined);
    return () => controller.abort();
  }, [entry.id]);
  const done = job.progress;
  let eta = job.eta_seconds;
  if (eta === undefined && first.current && done > first.current.progress && done < 1)
    eta = ((Date.now() - first.current.at) / 1000 / (done - first.current.progress)) * (1 - done);
  const id = `progress-${entry.id}`;
  return (
    <div class="job">
      <label for={id}>
        {job.status === 'queued'
          ? 'Queued: waiting for a free render slot'
          : `Rendering: ${Math.round(done * 100)} % · ${eta !== null && eta !== undefined ? `about ${formatDuration(eta)} left` : 'estimating the time left'}`}
      </label>
      <progress id={id} max={1} value={done} />
    </div>
  );
}

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
  // A voice removed since (a deleted clone, an uninstalled voice) is not listed any more: said so, not by its raw id.
  const voiceName = (id?: string) =>
    voices.data?.results.find((voice) => voice.id === id)?.name ?? (voices.data ? 'a removed voice' : '');

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(location.search);
    if (value) next.set(name, value);
    else next.delete(name);
    next.delete('page');
    navigate(`/app/history?${next}`, true);
  };
  // One DELETE cancels a running synthesis (releasing its credits) and deletes it; the server answers once it is
  // canceled. Should it not answer in time, the dialog says so and its button works again.
  const remove = async (entry: Synthesis) => {
    setMessage(null);
    let answer: Response;
    try {
      answer = await request('DELETE', `tts/history/${entry.id}/`, { signal: AbortSignal.timeout(DELETE_TIMEOUT_MS) });
    } catch (failure) {
      if (failure instanceof DOMException && failure.name === 'TimeoutError')
        throw new Error(
          `The server did not answer within ${DELETE_TIMEOUT_MS / 1000} s, so the synthesis may still be running. Try again in a moment.`,
        );
      throw failure;
    }
    const ended = answer.headers.get('Synthesis-Status');
    setMessage(
      ended === 'canceled'
        ? 'Canceled and deleted. Nothing was charged: its reserved credits are available again.'
        : ended === 'completed' && running(entry)
          ? 'It had finished before the cancel arrived: it was charged, and it is deleted with its audio.'
          : 'Deleted, with its audio.',
    );
    history.reload();
  };
  const [downloadError, setDownloadError] = useState<unknown>(null);
  const download = async (entry: Synthesis) => {
    setDownloadError(null);
    try {
      const response = await request('GET', `tts/history/${entry.id}/audio/`);
      await saveResponse(response, `openvox-${entry.id}.${entry.output_format}`);
    } catch (failure) {
      setDownloadError(failure);
    }
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
      <ErrorMessage error={history.error ?? downloadError} />
      {history.data && rows.length === 0 && <p>No syntheses match.</p>}
      <EntryList records={rows}>
        {(entry) => (
          <>
            <p
              class={long(entry) && !expanded.has(entry.id) ? 'entry-text clamped' : 'entry-text'}
              id={`text-${entry.id}`}
            >
              {entry.text && isSsml(entry.text) ? (
                <>
                  <span class="badge">SSML</span> {spokenText(entry.text)}
                </>
              ) : (
                entry.text
              )}
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
            {running(entry) && <RunningProgress entry={entry} onEnd={history.reload} />}
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
              {entry.status === 'completed' && open !== entry.id && (
                <button type="button" aria-describedby={`text-${entry.id}`} onClick={() => download(entry)}>
                  Download {entry.output_format.toUpperCase()}
                </button>
              )}
              <Link class="button" href={`/app/playground?reuse=${entry.id}`} aria-describedby={`text-${entry.id}`}>
                Reuse settings
              </Link>
              <ConfirmButton
                label="Delete"
                question={
                  running(entry)
                    ? 'This synthesis is still running. Cancel it (its reserved credits are released) and delete it?'
                    : 'Delete this synthesis and its audio?'
                }
                confirmLabel={running(entry) ? 'Cancel and delete' : 'Delete'}
                busyLabel={running(entry) ? 'Canceling…' : 'Deleting…'}
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
