import { useEffect, useRef, useState } from 'preact/hooks';
import { api, request, saveResponse } from '../api';
import { EntryCard, EntryList } from '../components/lists';
import { formatDate, formatNumber } from '../format';
import { useAction } from '../hooks';
import { followJob } from '../progress';
import { ErrorMessage } from '../ui';
import type { Snapshot, StudioProject } from '../types';

const RUNNING = new Set(['queued', 'converting']);
export const isRunning = (snapshot: Snapshot | null | undefined) => !!snapshot && RUNNING.has(snapshot.status);
const credits = (count: number) => `${formatNumber(count)} ${count === 1 ? 'credit' : 'credits'}`;
const blocks = (count: number) => `${formatNumber(count)} ${count === 1 ? 'block' : 'blocks'}`;
const snapshotPath = (snapshot: Snapshot, suffix = '') =>
  `projects/${snapshot.project_id}/snapshots/${snapshot.id}/${suffix}`;

/** 83 000 ms -> "1:23"; an hour or more -> "1:02:03". */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const [hours, minutes, seconds] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  const two = (value: number) => String(value).padStart(2, '0');
  return hours ? `${hours}:${two(minutes)}:${two(seconds)}` : `${minutes}:${two(seconds)}`;
}

/**
 * The conversion running now, followed as it goes (the snapshot's Server-Sent Events, or polling): `follow` starts
 * following one (the newest running snapshot is followed on its own); `onChange` hears each change, `onEnd` the end;
 * `error` says why it could not be followed.
 */
export function useConversion(
  snapshots: Snapshot[] | undefined,
  { onChange, onEnd }: { onChange: () => void; onEnd: () => void },
) {
  const [running, setRunning] = useState<Snapshot | null>(null);
  const [error, setError] = useState<unknown>(null);
  const followed = useRef<{ id: string; controller: AbortController } | null>(null);
  const callbacks = useRef({ onChange, onEnd });
  callbacks.current = { onChange, onEnd };
  useEffect(() => () => followed.current?.controller.abort(), []);

  const follow = (snapshot: Snapshot) => {
    if (followed.current?.id === snapshot.id) return;
    followed.current?.controller.abort();
    const controller = new AbortController();
    followed.current = { id: snapshot.id, controller };
    setRunning(snapshot);
    setError(null);
    // Chapters and the estimate are read again as blocks render, at most every two seconds.
    let lastRead = 0;
    followJob<Snapshot>(
      { events: snapshotPath(snapshot, 'events/'), poll: snapshotPath(snapshot) },
      (status) => {
        setRunning(status);
        if (Date.now() - lastRead > 2000) {
          lastRead = Date.now();
          callbacks.current.onChange();
        }
      },
      controller.signal,
    ).then(
      (last) => {
        if (controller.signal.aborted) return;
        setRunning(last);
        followed.current = null;
        callbacks.current.onEnd();
      },
      (failure: unknown) => {
        if (controller.signal.aborted) return;
        // Said, and not followed again by itself (a dependency down would make that a loop of requests).
        setRunning(null);
        setError(failure);
      },
    );
  };

  useEffect(() => {
    const newest = snapshots?.[0];
    if (newest && isRunning(newest)) follow(newest);
  }, [snapshots]);

  return { running: isRunning(running) ? running : null, last: running, follow, error };
}

/** Why Convert waits, or null when it may go. */
function convertReason(project: StudioProject, running: Snapshot | null, latest: Snapshot | undefined) {
  if (running) return 'A conversion is running.';
  if (project.chapter_count === 0 || project.characters === 0)
    return 'Nothing to convert yet: import a document first.';
  if (!project.default_voice_id) return 'Choose the narrator’s voice first (Voices and speakers, below).';
  if (project.credits_needed === 0 && latest?.status === 'completed')
    return 'Nothing to convert: the latest audiobook has every block’s current audio.';
  return null;
}

/** Convert, with its cost on the button (or why it waits); while it runs, its progress and Cancel. */
export function ConvertPanel({
  project,
  running,
  latest,
  onStarted,
}: {
  project: StudioProject;
  running: Snapshot | null;
  latest: Snapshot | undefined;
  onStarted: (snapshot: Snapshot) => void;
}) {
  const reason = convertReason(project, running, latest);
  const convert = useAction(async () => {
    onStarted(await api<Snapshot>('POST', `projects/${project.id}/convert/`, { body: {} }));
  });
  const cancel = useAction(async () => {
    if (running) await api('POST', snapshotPath(running, 'cancel/'));
  });
  return (
    <div class="convert">
      <div class="actions">
        <button
          type="button"
          class="primary"
          disabled={reason !== null || convert.busy}
          aria-describedby={reason ? 'convert-reason' : 'convert-hint'}
          onClick={() => convert.run()}
        >
          Convert — {credits(project.credits_needed)}
        </button>
        {running && (
          <button type="button" onClick={() => cancel.run()} disabled={cancel.busy}>
            {cancel.busy ? 'Canceling…' : 'Cancel the conversion'}
          </button>
        )}
      </div>
      {reason ? (
        <p id="convert-reason" class="reason">
          {reason}
        </p>
      ) : (
        <p id="convert-hint" class="hint">
          Renders the blocks whose audio is not current (their characters, in credits) and makes the audiobook; audio
          already made is reused for nothing.
        </p>
      )}
      {running && (
        <div class="job">
          <label for="conversion-progress">
            {running.status === 'queued' ? 'Queued' : 'Converting'}: {Math.round(running.progress * 100)} %
          </label>
          <progress id="conversion-progress" max={1} value={running.progress} />
        </div>
      )}
      <ErrorMessage error={convert.error ?? cancel.error} />
    </div>
  );
}

const FORMATS = [
  ['m4b', 'M4B'],
  ['mp3', 'MP3'],
  ['zip', 'ZIP'],
] as const;

function Downloads({ snapshot, name }: { snapshot: Snapshot; name: string }) {
  const save = useAction(async (format: string) =>
    saveResponse(
      await request('GET', `${snapshotPath(snapshot, 'audio/')}?format=${format}`),
      `${name.replace(/[^\p{L}\p{N}._-]+/gu, '-')}.${format}`,
    ),
  );
  const when = formatDate(snapshot.created_at);
  return (
    <>
      {FORMATS.map(([format, label]) => (
        <button key={format} type="button" disabled={save.busy} onClick={() => save.run(format)}>
          Download {label}
          <span class="visually-hidden"> of the audiobook of {when}</span>
        </button>
      ))}
      <ErrorMessage error={save.error} />
    </>
  );
}

const STATUS_WORDS: Record<Snapshot['status'], string> = {
  queued: 'queued',
  converting: 'converting',
  completed: 'completed',
  failed: 'failed',
  canceled: 'canceled',
};

/** The project's audiobooks (its conversions), newest first: downloads, and a player for one. */
export function SnapshotList({
  project,
  snapshots,
  running,
}: {
  project: StudioProject;
  snapshots: Snapshot[] | undefined;
  running: Snapshot | null;
}) {
  const [playing, setPlaying] = useState<Snapshot | null>(null);
  const shown = (snapshots ?? []).map((snapshot) => (snapshot.id === running?.id ? running : snapshot));
  return (
    <section aria-labelledby="snapshots-title">
      <h2 id="snapshots-title">Audiobooks</h2>
      {snapshots && snapshots.length === 0 && <p>No conversions yet.</p>}
      <EntryList records={shown}>
        {(snapshot) => {
          const when = formatDate(snapshot.created_at);
          return (
            <EntryCard
              title={`Audiobook of ${when}`}
              meta={
                <>
                  <span class={`badge ${snapshot.status}`}>{STATUS_WORDS[snapshot.status]}</span>
                  {snapshot.duration_ms !== null && ` · ${formatClock(snapshot.duration_ms)}`}
                  {` · ${credits(snapshot.credits_charged)} charged · ${blocks(snapshot.blocks_rendered)} rendered, ${formatNumber(snapshot.blocks_reused)} reused`}
                </>
              }
              actions={
                snapshot.status === 'completed' && (
                  <>
                    <button type="button" onClick={() => setPlaying(snapshot)}>
                      Listen<span class="visually-hidden"> to the audiobook of {when}</span>
                    </button>
                    <Downloads snapshot={snapshot} name={project.name} />
                  </>
                )
              }
            >
              {isRunning(snapshot) && (
                <progress
                  max={1}
                  value={snapshot.progress}
                  aria-label={`Conversion of ${when}: ${Math.round(snapshot.progress * 100)} %`}
                />
              )}
              {snapshot.error && <p class="reason">{snapshot.error.message}</p>}
            </EntryCard>
          );
        }}
      </EntryList>
      {playing && <BookPlayer key={playing.id} snapshot={playing} />}
    </section>
  );
}

/** Where each chapter starts: the snapshot's `start_ms`, else the sum of the durations before it. */
function chapterStarts(snapshot: Snapshot) {
  let at = 0;
  return snapshot.chapters.map((chapter) => {
    const start = chapter.start_ms ?? at;
    at = start + (chapter.duration_ms ?? 0);
    return { ...chapter, start };
  });
}

/** Plays a finished audiobook (its MP3), with its chapters: a click seeks to one; the one playing is marked. */
export function BookPlayer({ snapshot }: { snapshot: Snapshot }) {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [current, setCurrent] = useState(0);
  const audio = useRef<HTMLAudioElement>(null);
  const chapters = chapterStarts(snapshot);

  useEffect(() => {
    const controller = new AbortController();
    let objectUrl: string | null = null;
    request('GET', `${snapshotPath(snapshot, 'audio/')}?format=mp3`, { signal: controller.signal })
      .then((response) => response.blob())
      .then((blob) => {
        objectUrl = URL.createObjectURL(blob);
        setUrl(objectUrl);
      })
      .catch((failure) => controller.signal.aborted || setError(failure));
    return () => {
      controller.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [snapshot.id]);
  useEffect(() => {
    if (url) audio.current?.focus();
  }, [url]);

  const onTime = () => {
    const ms = (audio.current?.currentTime ?? 0) * 1000;
    let index = 0;
    chapters.forEach((chapter, at) => {
      if (chapter.start <= ms) index = at;
    });
    setCurrent(index);
  };
  const seek = (index: number) => {
    if (!audio.current) return;
    audio.current.currentTime = chapters[index].start / 1000;
    setCurrent(index);
    audio.current.play().catch(() => undefined);
  };

  const when = formatDate(snapshot.created_at);
  return (
    <section class="book-player" aria-labelledby="player-title">
      <h3 id="player-title">Listening: the audiobook of {when}</h3>
      <ErrorMessage error={error} />
      {!url && !error && <p role="status">Loading the audiobook…</p>}
      {url && (
        <>
          <audio ref={audio} controls src={url} onTimeUpdate={onTime} aria-label={`Audiobook of ${when}`} />
          {chapters[current] && (
            <p class="meta">
              Chapter {current + 1} of {chapters.length}: {chapters[current].title}
            </p>
          )}
          <nav aria-label="Chapters of the audiobook">
            <ol class="book-chapters">
              {chapters.map((chapter, index) => (
                <li key={chapter.chapter_id}>
                  <button
                    type="button"
                    class="link"
                    aria-current={index === current ? 'true' : undefined}
                    onClick={() => seek(index)}
                  >
                    {chapter.title}
                  </button>{' '}
                  <span class="hint">{formatClock(chapter.start)}</span>
                </li>
              ))}
            </ol>
          </nav>
        </>
      )}
    </section>
  );
}
