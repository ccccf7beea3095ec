import { useEffect, useRef, useState } from 'preact/hooks';
import { api, request } from '../api';
import { countCharacters, formatNumber, voiceLabel } from '../format';
import { useAction, usePagedLoad } from '../hooks';
import { ErrorMessage, Field, Pager, Select, Status } from '../ui';
import type { Block, Chapter, StudioProject, Voice } from '../types';

const BLOCK_PAGE_SIZE = 50;
const credits = (count: number) => `${formatNumber(count)} ${count === 1 ? 'credit' : 'credits'}`;

/** The voices a project may use, as a choice: the ready ones, the caller's clones first (the list's own order). */
export function voiceOptions(voices: Voice[] | undefined, none: string): [string, string][] {
  return [
    ['', none],
    ...(voices ?? [])
      .filter((voice) => voice.status === 'ready')
      .map((voice): [string, string] => [voice.id, voiceLabel(voice)]),
  ];
}

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/**
 * A block's audio as a blob: the audio endpoint answers it at once when it is current, or `202` while it renders
 * (then it is asked again at `Location`, after `Retry-After`).
 */
async function blockAudio(path: string, signal: AbortSignal): Promise<Blob> {
  let next = path;
  for (;;) {
    const response = await request('GET', next, { signal });
    const type = response.headers.get('Content-Type') ?? '';
    if (response.status === 200 && !type.includes('json')) return response.blob();
    const answer = (await response.json()) as {
      status?: string;
      audio_url?: string | null;
      error?: { message: string };
    };
    // A synthesis's status, where the audio is made as one: its audio once completed.
    if (answer.status === 'completed' && answer.audio_url)
      return (await request('GET', answer.audio_url, { signal })).blob();
    if (answer.status === 'failed' || answer.status === 'canceled')
      throw new Error(answer.error?.message ?? 'Rendering the block failed. Nothing was charged.');
    next = response.headers.get('Location') ?? next;
    await wait(Math.max(1, Number(response.headers.get('Retry-After')) || 1) * 1000, signal);
  }
}

/** Play: renders the block when its audio is not current (charged like a conversion), then plays it with controls. */
function BlockPlayer({ path, name, onRendered }: { path: string; name: string; onRendered: () => void }) {
  const [url, setUrl] = useState<string | null>(null);
  const [state, setState] = useState<'idle' | 'loading' | 'ready'>('idle');
  const [error, setError] = useState<unknown>(null);
  const controller = useRef<AbortController | null>(null);
  useEffect(
    () => () => {
      controller.current?.abort();
    },
    [],
  );
  useEffect(() => () => void (url && URL.revokeObjectURL(url)), [url]);
  const play = async () => {
    controller.current?.abort();
    const mine = new AbortController();
    controller.current = mine;
    setError(null);
    setState('loading');
    try {
      const blob = await blockAudio(path, mine.signal);
      setUrl(URL.createObjectURL(blob));
      setState('ready');
      onRendered();
    } catch (failure) {
      if (!mine.signal.aborted) {
        setError(failure);
        setState('idle');
      }
    }
  };
  return (
    <>
      <button type="button" onClick={play} disabled={state === 'loading'}>
        {state === 'loading' ? 'Rendering…' : 'Play'}
        <span class="visually-hidden"> {name}</span>
      </button>
      {url && state === 'ready' && (
        // Asked for with a click: it plays at once. The page's policy plays audio from blob: only.
        <audio controls autoPlay src={url} aria-label={`Audio of ${name}`} class="block-audio" />
      )}
      <ErrorMessage error={error} />
    </>
  );
}

function BlockEditor({
  block,
  path,
  voices,
  onSaved,
}: {
  block: Block;
  path: string;
  voices: Voice[] | undefined;
  onSaved: () => void;
}) {
  const [saved, setSaved] = useState(block);
  useEffect(() => setSaved(block), [block]);
  const [text, setText] = useState(block.text);
  const [voiceId, setVoiceId] = useState(block.voice_id ?? '');
  const [message, setMessage] = useState<string | null>(null);
  const name = `block ${block.index + 1}`;
  const id = `block-${block.id}`;
  const dirty = text !== saved.text || voiceId !== (saved.voice_id ?? '');
  const save = useAction(async () => {
    setMessage(null);
    const body: Record<string, unknown> = {};
    if (text !== saved.text) body.text = text;
    if (voiceId !== (saved.voice_id ?? '')) body.voice_id = voiceId || null;
    const updated = await api<Block>('PATCH', path, { body });
    setSaved(updated);
    setText(updated.text);
    setMessage('Saved.');
    onSaved();
  });
  const characters = text === saved.text ? saved.characters : countCharacters(text);
  return (
    <li class="block">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <div class="field">
          <label for={id}>
            Block {block.index + 1}: {saved.kind}
          </label>
          <textarea
            id={id}
            rows={saved.kind === 'heading' ? 1 : 3}
            value={text}
            onInput={(event) => setText(event.currentTarget.value)}
            aria-describedby={`${id}-facts`}
            required
          />
          <small id={`${id}-facts`} class="hint">
            {formatNumber(characters)} {characters === 1 ? 'character' : 'characters'} ·{' '}
            {saved.audio_current && !dirty ? 'audio ready' : `to render: ${credits(characters)}`}
            {saved.segments?.length
              ? ` · speakers: ${[...new Set(saved.segments.map((segment) => segment.speaker))].join(', ')}`
              : ''}
          </small>
        </div>
        <div class="block-actions">
          <Select
            label={`Voice of ${name}`}
            value={voiceId}
            onValue={setVoiceId}
            options={voiceOptions(voices, 'The project’s voice')}
          />
          <div class="actions">
            <button type="submit" class="primary" disabled={!dirty || save.busy}>
              Save<span class="visually-hidden"> {name}</span>
            </button>
            <BlockPlayer path={`${path}audio/`} name={name} onRendered={onSaved} />
          </div>
        </div>
        {message && !dirty && <Status>{message}</Status>}
        <ErrorMessage error={save.error} />
      </form>
    </li>
  );
}

/** A chapter's blocks, each editable (text, voice) and playable on its own. */
export function ChapterEditor({
  project,
  chapter,
  voices,
  onChanged,
  onClose,
}: {
  project: StudioProject;
  chapter: Chapter;
  voices: Voice[] | undefined;
  onChanged: () => void;
  onClose: () => void;
}) {
  const base = `projects/${project.id}/chapters/${chapter.id}/blocks/`;
  const blocks = usePagedLoad<Block>(base, BLOCK_PAGE_SIZE);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.scrollIntoView({ block: 'start' }), [chapter.id]);
  return (
    <section class="chapter-editor" aria-labelledby="chapter-editor-title">
      <div class="section-head">
        <h2 id="chapter-editor-title" ref={heading}>
          Chapter {chapter.index + 1}: {chapter.title}
        </h2>
        <button type="button" onClick={onClose}>
          Close the chapter
        </button>
      </div>
      <p class="hint">
        Playing a block whose audio is not ready renders it first, for its characters in credits; a conversion then
        reuses it.
      </p>
      <ErrorMessage error={blocks.error} />
      {blocks.data && blocks.data.count === 0 && <p>This chapter has no text.</p>}
      <ol class="blocks">
        {blocks.data?.results.map((block) => (
          <BlockEditor
            key={block.id}
            block={block}
            path={`${base}${block.id}/`}
            voices={voices}
            onSaved={() => {
              blocks.reload();
              onChanged();
            }}
          />
        ))}
      </ol>
      <Pager {...blocks.pager} />
    </section>
  );
}

/** Who reads what: the narrator (the default voice), headings, quoted dialogue, and each speaker of a script. */
export function VoicesPanel({
  project,
  voices,
  onSaved,
}: {
  project: StudioProject;
  voices: Voice[] | undefined;
  onSaved: () => void;
}) {
  const [narrator, setNarrator] = useState(project.default_voice_id ?? '');
  const [headings, setHeadings] = useState(project.heading_voice_id ?? '');
  const [dialogue, setDialogue] = useState(project.dialogue_voice_id ?? '');
  const [speakers, setSpeakers] = useState<[string, string][]>(Object.entries(project.speakers));
  const [newName, setNewName] = useState('');
  const [newVoice, setNewVoice] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [nameError, setNameError] = useState<string | null>(null);
  const options = voiceOptions(voices, 'Choose a voice');
  const save = useAction(async () => {
    setMessage(null);
    await api<StudioProject>('PATCH', `projects/${project.id}/`, {
      body: {
        default_voice_id: narrator || null,
        heading_voice_id: headings || null,
        dialogue_voice_id: dialogue || null,
        speakers: Object.fromEntries(speakers.filter(([, voice]) => voice)),
      },
    });
    setMessage('Voices saved.');
    onSaved();
  });
  const add = () => {
    const name = newName.trim();
    setNameError(null);
    if (!name || !newVoice) return setNameError('Give the speaker’s name, as the script writes it, and a voice.');
    if (speakers.some(([existing]) => existing === name)) return setNameError(`${name} is already in the list.`);
    setSpeakers([...speakers, [name, newVoice]]);
    setNewName('');
    setNewVoice('');
  };
  return (
    <section class="voices-panel" aria-labelledby="voices-title">
      <h2 id="voices-title">Voices and speakers</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <div class="grid">
          <Select
            label="Narrator (the default voice)"
            value={narrator}
            onValue={setNarrator}
            options={voiceOptions(voices, 'None chosen yet')}
          />
          <Select
            label="Headings"
            value={headings}
            onValue={setHeadings}
            options={voiceOptions(voices, 'The block’s voice')}
          />
          <Select
            label="Quoted dialogue"
            value={dialogue}
            onValue={setDialogue}
            options={voiceOptions(voices, 'The narrator')}
          />
        </div>
        <h3>Speakers of a script</h3>
        <p class="hint">A line that starts with a speaker’s name and a colon (ALICE: Hello.) is read in their voice.</p>
        {speakers.length === 0 && <p>No speakers yet.</p>}
        <ul class="speakers">
          {speakers.map(([name, voice], index) => (
            <li key={name} class="inline-form">
              <Select
                label={`Voice of ${name}`}
                value={voice}
                onValue={(value) => setSpeakers(speakers.map((entry, at) => (at === index ? [name, value] : entry)))}
                options={options}
              />
              <button type="button" onClick={() => setSpeakers(speakers.filter((_, at) => at !== index))}>
                Remove<span class="visually-hidden"> {name}</span>
              </button>
            </li>
          ))}
        </ul>
        <div class="inline-form">
          <Field
            label="Speaker’s name"
            value={newName}
            onValue={setNewName}
            maxLength={100}
            aria-invalid={nameError ? true : undefined}
            aria-describedby={nameError ? 'speaker-error' : undefined}
          />
          <Select label="Their voice" value={newVoice} onValue={setNewVoice} options={options} />
          <button type="button" onClick={add}>
            Add speaker
          </button>
        </div>
        {nameError && (
          <p id="speaker-error" class="reason">
            {nameError}
          </p>
        )}
        <ErrorMessage error={save.error} />
        {message && <Status>{message}</Status>}
        <button type="submit" class="primary" disabled={save.busy}>
          Save voices
        </button>
      </form>
    </section>
  );
}
