import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, get, type Page, request } from '../api';
import { AudioPlayer } from '../audio';
import { countCharacters, formatNumber } from '../format';
import { followSynthesis } from '../progress';
import { Link } from '../router';
import { ErrorMessage, PageTitle, Select, Status, useLoad } from '../ui';
import type { Plan, Profile, Project, Synthesis, Voice } from '../types';

const EMOTIONS = ['neutral', 'happy', 'sad', 'angry', 'calm', 'excited'];
const FORMATS = ['wav', 'mp3', 'ogg', 'flac'];
const languageOf = (voice: Voice) => voice.language.split('-')[0].toLowerCase();
const languageName = (code: string) => {
  try {
    return new Intl.DisplayNames(undefined, { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
};

/** Plays a catalog preview; fetched as a blob, like every other audio of the API. */
function PreviewButton({ voice }: { voice: Voice }) {
  const [error, setError] = useState<unknown>(null);
  const play = async () => {
    setError(null);
    try {
      const blob = await (await request('GET', voice.preview_url!)).blob();
      const url = URL.createObjectURL(blob);
      const audio = new Audio(url);
      audio.onended = () => URL.revokeObjectURL(url);
      await audio.play();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <>
      <button type="button" onClick={play}>
        Play a preview of {voice.name}
      </button>
      <ErrorMessage error={error} />
    </>
  );
}

export function Playground() {
  const voices = useLoad((signal) => get<Page<Voice>>('voices/?page_size=100', signal), []);
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
      setSpoken((await api<{ spoken: string }>('POST', 'tts/normalize/', { body: { text, voice_id: voiceId } })).spoken);
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
    try {
      const body: Record<string, unknown> = { text, voice_id: voiceId, speed: Number(speed), pitch: Number(pitch), emotion, output_format: format };
      if (projectId) body.project_id = projectId;
      const accepted = await api<Synthesis>('POST', 'tts/synthesize/', { body });
      setJob(accepted);
      const final = await followSynthesis(accepted.id, setJob, controller.signal);
      if (final.status === 'completed') setEntry(await get<Synthesis>(`tts/history/${accepted.id}/`, controller.signal));
      profile.reload();
    } catch (failure) {
      if (!controller.signal.aborted) setError(failure);
    }
  };

  return (
    <>
      <PageTitle>Playground</PageTitle>
      <form onSubmit={submit} class="playground">
        <div class="field">
          <label for="text">Text</label>
          <textarea id="text" rows={6} value={text} onInput={(event) => setText(event.currentTarget.value)} aria-describedby="text-count" aria-invalid={overBy > 0 ? true : undefined} required />
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
            onChange={(event) => chooseLanguage(event.currentTarget.value)}
            options={[['', 'All languages'], ...languages.map((code): [string, string] => [code, languageName(code)])]}
          />
          <Select
            label="Voice"
            value={voiceId}
            onChange={(event) => setVoiceId(event.currentTarget.value)}
            options={shown.map((voice): [string, string] => [
              voice.id,
              `${voice.name} (${voice.language}${voice.gender ? `, ${voice.gender}` : ''}${voice.quality === 'neural' ? ', neural' : ''}${voice.category === 'cloned' ? ', my clone' : ''})`,
            ])}
          />
          <div class="field">
            <label for="speed">Speed: {Number(speed).toFixed(2)}×</label>
            <input id="speed" type="range" min="0.5" max="2" step="0.05" value={speed} onInput={(event) => setSpeed(event.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="pitch">
              Pitch: {Number(pitch) > 0 ? '+' : ''}
              {pitch} semitones
            </label>
            <input id="pitch" type="range" min="-12" max="12" step="1" value={pitch} onInput={(event) => setPitch(event.currentTarget.value)} />
          </div>
          <Select label="Emotion" value={emotion} onChange={(event) => setEmotion(event.currentTarget.value)} options={EMOTIONS.map((name): [string, string] => [name, name])} />
          <Select
            label="Format"
            value={format}
            onChange={(event) => setFormat(event.currentTarget.value)}
            options={(plan?.output_formats ?? FORMATS).map((name): [string, string] => [name, name.toUpperCase()])}
          />
          <Select
            label="Project (optional)"
            value={projectId}
            onChange={(event) => setProjectId(event.currentTarget.value)}
            options={[['', 'None'], ...(projects.data?.results ?? []).map((project): [string, string] => [project.id, project.name])]}
          />
        </div>
        {selected?.preview_url && <PreviewButton voice={selected} />}
        <ErrorMessage error={voices.error ?? profile.error} />
        <button type="submit" class="primary" disabled={inProgress || overBy > 0} aria-describedby={overBy > 0 ? 'submit-reason' : undefined}>
          Synthesize
        </button>
        {overBy > 0 && plan && (
          <p id="submit-reason" class="reason">
            The text is {formatNumber(characters)} characters; your plan takes at most {formatNumber(plan.max_text_length)} per synthesis. Remove {formatNumber(overBy)}{' '}
            {overBy === 1 ? 'character' : 'characters'} to synthesize.
          </p>
        )}
      </form>
      <ErrorMessage error={error} />
      {job && (
        <section aria-labelledby="result" class="result">
          <h2 id="result">Result</h2>
          <label for="job-progress">Status: {job.status}</label>
          <progress id="job-progress" max={1} value={job.progress ?? 0} />
          {job.status === 'failed' && <ErrorMessage error={new Error(job.error?.message ?? 'The synthesis failed. Nothing was charged.')} />}
          {entry && (
            <>
              <Status>
                Done: {entry.duration_seconds?.toFixed(1)} s of audio for {formatNumber(entry.credits_charged)} credits.{' '}
              </Status>
              <AudioPlayer id={entry.id} format={entry.output_format} text={entry.text} />
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
