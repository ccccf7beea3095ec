import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, get, getAll, type Page, request } from '../api';
import { AudioPlayer } from '../audio';
import { countCharacters, formatNumber, formatSeconds, languageName, languageOf } from '../format';
import { PreviewButton } from '../preview';
import { followSynthesis } from '../progress';
import { Link, useLocation } from '../router';
import { useLoad } from '../hooks';
import { ErrorMessage, Field, PageTitle, Select, Status } from '../ui';
import type { Plan, Profile, Project, Synthesis, Voice } from '../types';

const EMOTIONS = ['neutral', 'happy', 'sad', 'angry', 'calm', 'excited'];
const FORMATS = ['wav', 'mp3', 'ogg', 'flac'];
export function Playground() {
  const voices = useLoad((signal) => getAll<Voice>('voices/', signal), []);
  const profile = useLoad((signal) => get<Profile>('auth/profile/', signal), []);
  const plans = useLoad((signal) => get<Page<Plan>>('subscription-plans/', signal), []);
  const projects = useLoad((signal) => get<Page<Project>>('projects/?page_size=100', signal), []);

  const [text, setText] = useState('');
  const [language, setLanguage] = useState('en');
  // Empty until the user picks one: the language's first voice, neural where one is installed (the catalog lists those first).
  const [chosenVoiceId, setVoiceId] = useState('');
  const [speed, setSpeed] = useState('1');
  const [pitch, setPitch] = useState('0');
  const [emotion, setEmotion] = useState('neutral');
  const [format, setFormat] = useState('mp3');
  const [projectId, setProjectId] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [job, setJob] = useState<Synthesis | null>(null);
  const [entry, setEntry] = useState<Synthesis | null>(null);
  const running = useRef<AbortController | null>(null);
  useEffect(() => () => running.current?.abort(), []);
  // When the job was accepted (for the time left, as the CLI reckons it), and how a cancel ended.
  const [startedAt, setStartedAt] = useState(0);
  const [canceled, setCanceled] = useState<string | null>(null);
  const [canceling, setCanceling] = useState(false);
  const result = useRef<HTMLElement>(null);
  // The result, once ready, is scrolled to; the player takes the focus as soon as its audio is loaded.
  useEffect(() => {
    if (entry) result.current?.scrollIntoView({ block: 'start' });
  }, [entry]);

  // Arriving with ?voice=<id> (the voice library's "Use in playground") or ?reuse=<synthesis id> (the history's
  // "Reuse settings"): the form starts from that voice, or from that synthesis's text and settings.
  const { query } = useLocation();
  const [wantedVoice, setWantedVoice] = useState(query.get('voice'));
  const reuse = query.get('reuse');
  useEffect(() => {
    if (!reuse) return;
    const controller = new AbortController();
    get<Synthesis>(`tts/history/${encodeURIComponent(reuse)}/`, controller.signal).then(
      (entry) => {
        setText(entry.text ?? '');
        if (entry.speed !== undefined) setSpeed(String(entry.speed));
        if (entry.pitch !== undefined) setPitch(String(entry.pitch));
        if (entry.emotion) setEmotion(entry.emotion);
        setFormat(entry.output_format);
        setProjectId(entry.project_id ?? '');
        if (entry.voice_id) setWantedVoice(entry.voice_id);
      },
      (failure) => controller.signal.aborted || setError(failure),
    );
    return () => controller.abort();
  }, [reuse]);
  useEffect(() => {
    const voice =
      wantedVoice &&
      voices.data?.results.find((candidate) => candidate.id === wantedVoice && candidate.status === 'ready');
    if (!voice) return;
    setLanguage(languageOf(voice));
    setVoiceId(voice.id);
    setWantedVoice(null);
  }, [wantedVoice, voices.data]);

  const ready = (voices.data?.results ?? []).filter((voice) => voice.status === 'ready');
  const languages = useMemo(() => [...new Set(ready.map(languageOf))].sort(), [voices.data]);
  const shown = ready.filter((voice) => !language || languageOf(voice) === language);
  const voiceId = chosenVoiceId || (shown[0]?.id ?? '');
  const selected = ready.find((voice) => voice.id === voiceId);
  const plan = plans.data?.results.find((candidate) => candidate.id === profile.data?.subscription_tier);
  const characters = countCharacters(text);
  const balance = profile.data?.credit_balance;
  // Over the plan's limit the text stays as it is (never cut): the counter says so and Synthesize waits.
  const overBy = plan ? characters - plan.max_text_length : 0;
  const inProgress = job !== null && (job.status === 'queued' || job.status === 'processing');

  const chooseLanguage = (code: string) => {
    setLanguage(code);
    const first = ready.find((voice) => !code || languageOf(voice) === code);
    if (first && !(selected && (!code || languageOf(selected) === code))) setVoiceId(first.id);
  };

  // What the engine will say (numbers, dates, abbreviations as words), from the service's own normalizer.
  const [spoken, setSpoken] = useState<string | null>(null);
  useEffect(() => setSpoken(null), [text, voiceId]);
  const showSpoken = async () => {
    setError(null);
    try {
      setSpoken(
        (await api<{ spoken: string }>('POST', 'tts/normalize/', { body: { text, voice_id: voiceId } })).spoken,
      );
    } catch (failure) {
      setError(failure);
    }
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setError(null);
    setJob(null);
    setEntry(null);
    setCanceled(null);
    try {
      const body: Record<string, unknown> = {
        text,
        voice_id: voiceId,
        speed: Number(speed),
        pitch: Number(pitch),
        emotion,
        output_format: format,
      };
      if (projectId) body.project_id = projectId;
      const accepted = await api<Synthesis>('POST', 'tts/synthesize/', { body });
      setStartedAt(Date.now());
      setJob(accepted);
      const final = await followSynthesis(accepted.id, setJob, controller.signal);
      if (final.status === 'completed')
        setEntry(await get<Synthesis>(`tts/history/${accepted.id}/`, controller.signal));
      profile.reload();
    } catch (failure) {
      if (!controller.signal.aborted) setError(failure);
    }
  };

  const cancel = async () => {
    if (!job) return;
    running.current?.abort();
    setError(null);
    setCanceling(true);
    try {
      // Deleting a running synthesis cancels it and releases its credits; the header says how it ended.
      const answer = await request('DELETE', `tts/history/${job.id}/`);
      const ended = answer.headers.get('Synthesis-Status');
      setJob({ ...job, status: ended === 'completed' ? 'completed' : 'canceled' });
      setCanceled(
        ended === 'completed'
          ? 'It had finished before the cancel arrived: it was charged, and it is deleted.'
          : 'Canceled. Nothing was charged: the reserved credits are available again.',
      );
    } catch (failure) {
      setError(failure);
    } finally {
      setCanceling(false);
      profile.reload();
    }
  };
  const done = job?.progress ?? 0;
  const elapsed = (Date.now() - startedAt) / 1000;
  const left = inProgress && done > 0 && done < 1 ? formatSeconds((elapsed / done) * (1 - done)) : null;

  return (
    <>
      <PageTitle>Playground</PageTitle>
      <form onSubmit={submit} class="playground">
        <div class="field">
          <label for="text">Text</label>
          <textarea
            id="text"
            rows={6}
            value={text}
            onInput={(event) => setText(event.currentTarget.value)}
            aria-describedby="text-count"
            aria-invalid={overBy > 0 ? true : undefined}
            required
          />
          <small id="text-count" class={overBy > 0 ? 'hint over' : 'hint'} aria-live="polite">
            {formatNumber(characters)} {characters === 1 ? 'character' : 'characters'}
            {plan
              ? ` of ${formatNumber(plan.max_text_length)} · costs ${formatNumber(characters * plan.credits_per_character)} ${characters * plan.credits_per_character === 1 ? 'credit' : 'credits'}`
              : ''}
            {balance !== undefined ? ` · ${formatNumber(balance)} available` : ''}
          </small>
          <button type="button" onClick={showSpoken} disabled={!text.trim() || !voiceId}>
            Show how it will be read
          </button>
          {spoken !== null && (
            <p class="spoken" aria-live="polite">
              <strong>Read as:</strong> {spoken}
            </p>
          )}
        </div>
        <div class="grid">
          <Select
            label="Language"
            value={language}
            onValue={chooseLanguage}
            options={[['', 'All languages'], ...languages.map((code): [string, string] => [code, languageName(code)])]}
          />
          <Select
            label="Voice"
            value={voiceId}
            onValue={setVoiceId}
            options={shown.map((voice): [string, string] => [
              voice.id,
              `${voice.name} (${voice.language}${voice.gender ? `, ${voice.gender}` : ''}${voice.quality === 'neural' ? ', neural' : ''}${voice.category === 'cloned' ? ', my clone' : ''})`,
            ])}
          />
          <Field
            label={`Speed: ${Number(speed).toFixed(2)}×`}
            type="range"
            min="0.5"
            max="2"
            step="0.05"
            value={speed}
            onValue={setSpeed}
          />
          <Field
            label={`Pitch: ${Number(pitch) > 0 ? '+' : ''}${pitch} semitones`}
            type="range"
            min="-12"
            max="12"
            step="1"
            value={pitch}
            onValue={setPitch}
          />
          <Select
            label="Emotion"
            value={emotion}
            onValue={setEmotion}
            options={EMOTIONS.map((name): [string, string] => [name, name])}
          />
          <Select
            label="Format"
            value={format}
            onValue={setFormat}
            options={(plan?.output_formats ?? FORMATS).map((name): [string, string] => [name, name.toUpperCase()])}
          />
          <Select
            label="Project (optional)"
            value={projectId}
            onValue={setProjectId}
            options={[
              ['', 'None'],
              ...(projects.data?.results ?? []).map((project): [string, string] => [project.id, project.name]),
            ]}
          />
        </div>
        {selected?.preview_url && <PreviewButton voice={selected} />}
        <ErrorMessage error={voices.error ?? profile.error} />
        <button
          type="submit"
          class="primary"
          disabled={inProgress || overBy > 0}
          aria-describedby={overBy > 0 ? 'submit-reason' : undefined}
        >
          Synthesize
        </button>
        {overBy > 0 && plan && (
          <p id="submit-reason" class="reason">
            The text is {formatNumber(characters)} characters; your plan takes at most{' '}
            {formatNumber(plan.max_text_length)} per synthesis. Remove {formatNumber(overBy)}{' '}
            {overBy === 1 ? 'character' : 'characters'} to synthesize.
          </p>
        )}
      </form>
      <ErrorMessage error={error} />
      {job && (
        <section aria-labelledby="result" class="result" ref={result}>
          <h2 id="result">Result</h2>
          {inProgress ? (
            <div class="job">
              <label for="job-progress">
                {job.status === 'queued' ? 'Queued' : 'Rendering'}: {Math.round(done * 100)} %
                {left ? ` · about ${left} left` : ''}
              </label>
              <progress id="job-progress" max={1} value={done} />
              <button type="button" onClick={cancel} disabled={canceling}>
                {canceling ? 'Canceling…' : 'Cancel'}
              </button>
            </div>
          ) : (
            !canceled && <p>Status: {job.status}</p>
          )}
          {canceled && <Status>{canceled}</Status>}
          {job.status === 'failed' && (
            <ErrorMessage error={new Error(job.error?.message ?? 'The synthesis failed. Nothing was charged.')} />
          )}
          {entry && (
            <>
              <Status>
                Done: {entry.duration_seconds?.toFixed(1)} s of audio for {formatNumber(entry.credits_charged)}{' '}
                credits.{' '}
              </Status>
              <AudioPlayer id={entry.id} format={entry.output_format} text={entry.text} autoFocus />
              <p>
                It is kept in your <Link href="/app/history">history</Link>.
              </p>
            </>
          )}
        </section>
      )}
    </>
  );
}
