import { useEffect, useRef, useState } from 'preact/hooks';
import { api, get, getAll, type Page, request, upload } from '../api';
import { RecordTable } from '../components/lists';
import { formatDate, languageName, languageOf } from '../format';
import { useAction, useLoad } from '../hooks';
import { PreviewButton, stopPreview } from '../preview';
import { followSynthesis } from '../progress';
import { Link } from '../router';
import { ConfirmButton, ErrorMessage, Field, PageTitle, Select, Status } from '../ui';
import type { Synthesis, Voice } from '../types';

const CONSENT =
  'I confirm that the person whose voice is in this recording has authorized me to clone it, and that I will use the clone only as they allowed.';

/** The clone upload, with progress. */
const uploadVoice = (form: FormData, onProgress: (fraction: number) => void) =>
  upload<Voice>('voices/upload/', form, onProgress);

function CloneForm({ onCloned }: { onCloned: (voice: Voice) => void }) {
  const formRef = useRef<HTMLFormElement>(null);
  const [uploaded, setUploaded] = useState<number | null>(null);
  const [voice, setVoice] = useState<Voice | null>(null);
  const [error, setError] = useState<unknown>(null);

  // Cloning runs for a while after the upload: follow the voice until it is ready or failed.
  useEffect(() => {
    if (!voice || voice.status !== 'processing') return;
    const timer = setTimeout(async () => {
      try {
        const next = await get<Voice>(`voices/${voice.id}/`);
        setVoice(next);
        if (next.status !== 'processing') onCloned(next);
      } catch (failure) {
        setError(failure);
      }
    }, 2000);
    return () => clearTimeout(timer);
  }, [voice]);

  const submit = async (event: Event & { currentTarget: HTMLFormElement }) => {
    event.preventDefault();
    setError(null);
    setVoice(null);
    const form = new FormData(event.currentTarget);
    // The API takes consent only as the string "true".
    form.set(
      'consent',
      (event.currentTarget.elements.namedItem('consent') as HTMLInputElement).checked ? 'true' : 'false',
    );
    setUploaded(0);
    try {
      const created = await uploadVoice(form, setUploaded);
      setVoice(created);
      onCloned(created);
      // Accepted: the form is empty again for the next voice (its progress stays below until it is ready).
      formRef.current?.reset();
    } catch (failure) {
      setError(failure);
      setUploaded(null);
    }
  };

  return (
    <form onSubmit={submit} class="clone" aria-labelledby="clone-title" ref={formRef}>
      <h2 id="clone-title">Clone a voice</h2>
      <p>
        Upload 3 to 300 seconds of clear speech by one person (WAV, MP3, OGG, FLAC or M4A, up to 20 MiB). Cloning costs
        no credits.
      </p>
      <Field label="Recording" name="file" type="file" accept="audio/*,.wav,.mp3,.ogg,.flac,.m4a" required />
      <Field label="Voice name" name="name" maxLength={100} required />
      <Field label="Language" name="language" value="en-US" hint="A language tag such as en-US, fr-FR or de." />
      <Field label="Description (optional)" name="description" maxLength={500} />
      <div class="field check">
        <input id="consent" name="consent" type="checkbox" required />
        <label for="consent">{CONSENT}</label>
      </div>
      <ErrorMessage error={error} />
      <button type="submit" class="primary" disabled={voice?.status === 'processing' || (uploaded !== null && !voice)}>
        Upload and clone
      </button>
      {uploaded !== null && (
        <div>
          <label for="upload-progress">Upload: {Math.round(uploaded * 100)} %</label>
          <progress id="upload-progress" max={1} value={uploaded} />
        </div>
      )}
      {voice && (
        <div>
          {voice.status === 'processing' && (
            <>
              <label for="clone-progress">Cloning “{voice.name}”… this takes a few minutes.</label>
              <progress id="clone-progress" />
            </>
          )}
          {voice.status === 'ready' && <Status>“{voice.name}” is ready. Choose it in the playground.</Status>}
          {voice.status === 'failed' && (
            <ErrorMessage
              error={new Error(`Cloning “${voice.name}” failed: ${voice.error?.message ?? 'unknown error'}`)}
            />
          )}
        </div>
      )}
    </form>
  );
}

/** Searches and filters of the voice library; each choice narrows the list. */
interface LibraryFilters {
  search: string;
  quality: string;
  engine: string;
  language: string;
}
const NO_FILTERS: LibraryFilters = { search: '', quality: '', engine: '', language: '' };
const qualityOf = (voice: Voice) => (voice.quality === 'neural' ? 'neural' : 'classic');

/** The premade voices: neural first, each with its preview, its facts and a way into the playground. */
function VoiceLibrary() {
  const catalog = useLoad((signal) => getAll<Voice>('voices/?category=premade', signal), []);
  const [filters, setFilters] = useState<LibraryFilters>(NO_FILTERS);
  const set = (name: keyof LibraryFilters) => (value: string) => setFilters({ ...filters, [name]: value });
  // A stable sort: the catalog's own order within each quality.
  const all = [...(catalog.data?.results ?? [])].sort(
    (a, b) => Number(qualityOf(a) !== 'neural') - Number(qualityOf(b) !== 'neural'),
  );
  const languages = [...new Set(all.map(languageOf))]
    .map((code): [string, string] => [code, languageName(code)])
    .sort((a, b) => a[1].localeCompare(b[1]));
  const engines = [
    ...new Set(all.map((voice) => voice.engine).filter((engine): engine is string => Boolean(engine))),
  ].sort();
  const words = filters.search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const shown = all.filter(
    (voice) =>
      (!filters.quality || qualityOf(voice) === filters.quality) &&
      (!filters.engine || voice.engine === filters.engine) &&
      (!filters.language || languageOf(voice) === filters.language) &&
      words.every((word) =>
        [
          voice.name,
          voice.id,
          voice.description,
          voice.gender,
          voice.engine ?? '',
          voice.language,
          languageName(voice.language),
        ].some((field) => field.toLowerCase().includes(word)),
      ),
  );

  return (
    <section aria-labelledby="library-title">
      <h2 id="library-title">Voice library</h2>
      <form
        role="search"
        aria-label="Voice library"
        class="filters library-filters"
        onSubmit={(event) => event.preventDefault()}
      >
        <Field
          label="Search"
          type="search"
          value={filters.search}
          onValue={set('search')}
          placeholder="Name, language, description"
        />
        <Select
          label="Quality"
          value={filters.quality}
          onValue={set('quality')}
          options={[
            ['', 'Any quality'],
            ['neural', 'Neural'],
            ['classic', 'Classic'],
          ]}
        />
        <Select
          label="Engine"
          value={filters.engine}
          onValue={set('engine')}
          options={[['', 'All engines'], ...engines.map((engine): [string, string] => [engine, engine])]}
        />
        <Select
          label="Language"
          value={filters.language}
          onValue={set('language')}
          options={[['', 'All languages'], ...languages]}
        />
      </form>
      <ErrorMessage error={catalog.error} />
      {catalog.data && (
        <p role="status" class="hint">
          {shown.length === all.length ? `${all.length} voices` : `${shown.length} of ${all.length} voices`}
          {shown.length === 0 && (
            <>
              {' '}
              match.{' '}
              <button type="button" class="link" onClick={() => setFilters(NO_FILTERS)}>
                Clear the filters
              </button>
            </>
          )}
        </p>
      )}
      <ul class="voice-cards">
        {shown.map((voice) => (
          <li key={voice.id} class="voice-card" aria-labelledby={`voice-${voice.id}`}>
            <div class="voice-head">
              <h3 id={`voice-${voice.id}`}>{voice.name}</h3>
              <span class={`badge ${qualityOf(voice)}`}>{qualityOf(voice)}</span>
            </div>
            <p class="meta">
              {languageName(voice.language)}
              {voice.gender && voice.gender !== 'unknown' ? ` · ${voice.gender}` : ''}
              {voice.engine ? ` · ${voice.engine}` : ''}
            </p>
            {voice.description && <p class="voice-description">{voice.description}</p>}
            <div class="actions">
              {voice.preview_url ? <PreviewButton voice={voice} short /> : <small class="hint">No preview yet</small>}
              <Link
                class="button"
                href={`/app/playground?voice=${encodeURIComponent(voice.id)}`}
                aria-label={`Use in playground: ${voice.name}`}
              >
                Use in playground
              </Link>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** What a clone's Play says in it: a synthesis like any other (charged per character, kept in the history). */
const SAMPLE = 'Hello, this is my cloned voice.';

/** Plays a clone by rendering a short sentence in it (clones have no catalog preview); a second click stops it. */
function ClonePlay({ voice }: { voice: Voice }) {
  const audio = useRef<HTMLAudioElement | null>(null);
  const [playing, setPlaying] = useState(false);
  useEffect(() => () => audio.current?.pause(), []);
  const play = useAction(async () => {
    if (playing) {
      audio.current?.pause();
      setPlaying(false);
      return;
    }
    stopPreview();
    const accepted = await api<Synthesis>('POST', 'tts/synthesize/', {
      body: { text: SAMPLE, voice_id: voice.id, output_format: 'mp3' },
    });
    const ended = await followSynthesis(accepted.id, () => undefined, new AbortController().signal);
    if (ended.status !== 'completed') throw new Error(ended.error?.message ?? `The sample ended ${ended.status}.`);
    const blob = await (await request('GET', `tts/history/${accepted.id}/audio/`)).blob();
    audio.current?.pause();
    if (audio.current) URL.revokeObjectURL(audio.current.src);
    audio.current = new Audio(URL.createObjectURL(blob));
    audio.current.onended = () => setPlaying(false);
    setPlaying(true);
    await audio.current.play();
  });
  return (
    <>
      <button
        type="button"
        onClick={() => play.run()}
        disabled={play.busy}
        aria-label={`${playing ? 'Stop' : 'Play'} a sample of ${voice.name} (${[...SAMPLE].length} credits)`}
        data-state={playing ? 'playing' : play.busy ? 'loading' : 'stopped'}
      >
        {play.busy ? 'Rendering…' : playing ? 'Stop' : 'Play'}
      </button>
      <ErrorMessage error={play.error} />
    </>
  );
}

export function Voices() {
  const mine = useLoad((signal) => get<Page<Voice>>('voices/?category=cloned&page_size=100', signal), []);
  const [message, setMessage] = useState<string | null>(null);
  // The voice the clone form follows, as last read: its row shows this state in the same render as the form's
  // message, not a moment later when the list has been fetched again.
  const [followed, setFollowed] = useState<Voice | null>(null);
  const cloned = (mine.data?.results ?? []).map((voice) => (voice.id === followed?.id ? followed : voice));

  const remove = async (voice: Voice) => {
    await api('DELETE', `voices/${voice.id}/`);
    setMessage(`“${voice.name}” deleted, with its recording.`);
    mine.reload();
  };
  const revoke = async (voice: Voice) => {
    await api('POST', `voices/${voice.id}/revoke-consent/`);
    setMessage(`Consent for “${voice.name}” revoked: the voice no longer speaks, and its recording is deleted.`);
    mine.reload();
  };

  return (
    <>
      <PageTitle>Voices</PageTitle>
      <nav aria-label="On this page" class="jump">
        <a href="#mine-title">My cloned voices</a> · <a href="#clone-title">Clone a voice</a> ·{' '}
        <a href="#library-title">Voice library</a>
      </nav>
      <section aria-labelledby="mine-title">
        <h2 id="mine-title">My cloned voices</h2>
        {message && <Status>{message}</Status>}
        <ErrorMessage error={mine.error} />
        {mine.data && mine.data.count === 0 && <p>No cloned voices yet: clone one with the form below.</p>}
        <RecordTable
          records={cloned}
          columns={[
            { title: 'Name', cell: (voice) => voice.name },
            { title: 'Language', cell: (voice) => voice.language },
            {
              title: 'Status',
              cell: (voice) => (
                <>
                  <span class={`badge ${voice.status}`}>{voice.status}</span>
                  {voice.error && <small class="hint"> {voice.error.message}</small>}
                </>
              ),
            },
            {
              title: 'Similarity',
              cell: (voice) =>
                voice.similarity === null ? (
                  '—'
                ) : (
                  <span aria-describedby="similarity-explained">
                    {Math.round(voice.similarity * 100)} %
                    {voice.closest_premade && <small class="hint"> closest premade: {voice.closest_premade}</small>}
                  </span>
                ),
            },
            { title: 'Created', cell: (voice) => formatDate(voice.created_at) },
          ]}
          actions={(voice) => (
            <div class="actions">
              {voice.status === 'ready' && (
                <>
                  <ClonePlay voice={voice} />
                  <Link
                    class="button"
                    href={`/app/playground?voice=${encodeURIComponent(voice.id)}`}
                    aria-label={`Use in playground: ${voice.name}`}
                  >
                    Use in playground
                  </Link>
                </>
              )}
              {(voice.status === 'ready' || voice.status === 'processing') && (
                <ConfirmButton
                  label="Revoke consent"
                  subject={`for ${voice.name}`}
                  question={`Revoke the speaker’s consent for “${voice.name}”? The voice stops speaking at once and its recording is deleted; this cannot be undone. Syntheses made with it stay in your history.`}
                  confirmLabel="Revoke consent"
                  busyLabel="Revoking…"
                  onConfirm={() => revoke(voice)}
                />
              )}
              <ConfirmButton
                label="Delete"
                subject={voice.name}
                question={`Delete the voice “${voice.name}” and its recording? Syntheses made with it stay in your history.`}
                confirmLabel="Delete voice"
                busyLabel="Deleting…"
                onConfirm={() => remove(voice)}
              />
            </div>
          )}
        />
        {cloned.length > 0 && (
          <p class="hint" id="similarity-explained">
            Similarity is measured on part of the recording that the voice was not fitted to. For scale: two halves of
            one recording of the same person score about 80 %, two different people of the same sex about 30 % (rarely
            over 55 %). Play speaks a short sentence in the voice, for its characters in credits, and keeps it in your
            history.
          </p>
        )}
      </section>
      <CloneForm
        onCloned={(voice) => {
          setFollowed(voice);
          mine.reload();
        }}
      />
      <VoiceLibrary />
    </>
  );
}
