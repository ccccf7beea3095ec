import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, get, getAll, type Page, request } from '../api';
import { AudioPlayer } from '../audio';
import { CreditsShortfall, shortfallSentence } from '../credits';
import { knownAccountId, readDraft, rememberAccount, saveDraft } from '../draft';
import { countCharacters, formatDuration, formatNumber, languageName, languageOf, voiceLabel } from '../format';
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
  const [textType, setTextType] = useState<'text' | 'ssml'>('text');
  // Null until the user picks one: the default voice's language.
  const [language, setLanguage] = useState<string | null>(null);
  // Empty until the user picks one: the account's default voice (the profile's), else the language's first voice.
  const [chosenVoiceId, setVoiceId] = useState('');
  const [speed, setSpeed] = useState('1');
  const [pitch, setPitch] = useState('0');
  const [emotion, setEmotion] = useState('neutral');
  const [format, setFormat] = useState('mp3');
  const [projectId, setProjectId] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [job, setJob] = useState<Synthesis | null>(null);
  const [entry, setEntry] = useState<Synthesis | null>(null);
  // What the accepted SSML document asked that is read differently (the submit's answer; the status has none).
  const [warnings, setWarnings] = useState<string[]>([]);
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

  // The draft, per account in this browser: restored once the account is known (unless a synthesis is reused), then
  // saved at every change until "Clear".
  rememberAccount(profile.data?.id);
  const accountId = profile.data?.id ?? knownAccountId();
  const [draftRestored, setDraftRestored] = useState(false);
  useEffect(() => {
    if (!accountId || draftRestored) return;
    const draft = reuse ? null : readDraft(accountId);
    // What was typed before the account was known wins over the stored draft.
    if (draft && !text) {
      setText(draft.text);
      setTextType(draft.textType);
    }
    setDraftRestored(true);
  }, [accountId]);
  useEffect(() => {
    if (accountId && draftRestored) saveDraft(accountId, { text, textType });
  }, [text, textType, draftRestored]);
  const clearDraft = () => {
    setText('');
    setTextType('text');
    setSpoken(null);
    document.getElementById('text')?.focus();
  };
  useEffect(() => {
    if (!reuse) return;
    const controller = new AbortController();
    get<Synthesis>(`tts/history/${encodeURIComponent(reuse)}/`, controller.signal).then(
      (entry) => {
        setText(entry.text ?? '');
        if (entry.text_type) setTextType(entry.text_type);
        else if (/^\s*(<\?xml[^>]*>\s*)?<speak[\s>]/.test(entry.text ?? '')) setTextType('ssml');
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
  // The account's default voice (the one that speaks now: its choice, or the service's), not the catalog's order:
  // installing a voice never changes what the playground starts with.
  const defaultId = profile.data?.default_voice?.id ?? profile.data?.default_voice_id ?? null;
  const defaultVoice = ready.find((voice) => voice.id === defaultId);
  const currentLanguage = language ?? (defaultVoice ? languageOf(defaultVoice) : 'en');
  const shown = ready.filter((voice) => !currentLanguage || languageOf(voice) === currentLanguage);
  const voiceId =
    chosenVoiceId || (defaultVoice && shown.includes(defaultVoice) ? defaultVoice.id : (shown[0]?.id ?? ''));
  const selected = ready.find((voice) => voice.id === voiceId);
  const plan = plans.data?.results.find((candidate) => candidate.id === profile.data?.subscription_tier);
  const characters = countCharacters(text);
  const balance = profile.data?.credit_balance;
  const cost = plan ? characters * plan.credits_per_character : characters;
  // Over the plan's limit the text stays as it is (never cut): the counter says so and Synthesize waits.
  const overBy = plan ? characters - plan.max_text_length : 0;
  // More than the balance: said before submitting (the server would refuse it with 402).
  const shortBy = balance !== undefined && characters > 0 ? cost - balance : 0;
  const inProgress = job !== null && (job.status === 'queued' || job.status === 'processing');

  const chooseLanguage = (code: string) => {
    setLanguage(code);
    const first = ready.find((voice) => !code || languageOf(voice) === code);
    if (first && !(selected && (!code || languageOf(selected) === code))) setVoiceId(first.id);
  };
  const [defaultSaved, setDefaultSaved] = useState<string | null>(null);
  const makeDefault = async () => {
    if (!selected) return;
    setError(null);
    try {
      await api('PATCH', 'auth/profile/', { body: { default_voice_id: selected.id } });
      setDefaultSaved(`${selected.name} is now your default voice.`);
      profile.reload();
    } catch (failure) {
      setError(failure);
    }
  };

  // What the engine will say (numbers, dates, abbreviations as words), from the service's own normalizer.
  const [spoken, setSpoken] = useState<{ spoken: string; warnings: string[] } | null>(null);
  useEffect(() => setSpoken(null), [text, voiceId, textType]);
  const showSpoken = async () => {
    setError(null);
    try {
      const answer = await api<{ spoken: string; warnings?: string[] }>('POST', 'tts/normalize/', {
        body: { text, voice_id: voiceId, text_type: textType },
      });
      setSpoken({ spoken: answer.spoken, warnings: answer.warnings ?? [] });
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
    setWarnings([]);
    try {
      const body: Record<string, unknown> = {
        text,
        voice_id: voiceId,
        speed: Number(speed),
        pitch: Number(pitch),
        emotion,
        output_format: format,
        text_type: textType,
      };
      if (projectId) body.project_id = projectId;
      const accepted = await api<Synthesis>('POST', 'tts/synthesize/', { body });
      setStartedAt(Date.now());
      setWarnings(accepted.warnings ?? []);
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
  // The server's estimate from the job's own pace (eta_seconds) where it gives one, else the pace seen here.
  const eta =
    job?.eta_seconds !== undefined
      ? job.eta_seconds
      : inProgress && done > 0 && done < 1
        ? (elapsed / done) * (1 - done)
        : null;
  const left = inProgress && eta !== null && eta !== undefined ? formatDuration(eta) : null;
  const shortfall =
    error instanceof ApiError &&
    error.code === 'insufficient_credits' &&
    error.problem.balance !== undefined &&
    error.problem.required !== undefined
      ? { balance: error.problem.balance, required: error.problem.required }
      : null;
  const reasons = [overBy > 0 && 'submit-reason', shortBy > 0 && 'credits-reason'].filter(Boolean).join(' ');

  return (
    <>
      <PageTitle>Playground</PageTitle>
      <form onSubmit={submit} class="playground">
        <div class="text-type" role="group" aria-labelledby="text-type-label">
          <span id="text-type-label">Write as</span>
          {(
            [
              ['text', 'Plain text'],
              ['ssml', 'SSML'],
            ] as const
          ).map(([value, label]) => (
            <button key={value} type="button" aria-pressed={textType === value} onClick={() => setTextType(value)}>
              {label}
            </button>
          ))}
        </div>
        <div class="field">
          <label for="text">{textType === 'ssml' ? 'SSML document' : 'Text'}</label>
          <textarea
            id="text"
            rows={6}
            value={text}
            onInput={(event) => setText(event.currentTarget.value)}
            aria-describedby={textType === 'ssml' ? 'text-count ssml-hint' : 'text-count'}
            aria-invalid={overBy > 0 ? true : undefined}
            placeholder={textType === 'ssml' ? '<speak>Hello <break time="500ms"/> there.</speak>' : undefined}
            spellcheck={textType === 'text'}
            required
          />
          {textType === 'ssml' && (
            <small id="ssml-hint" class="hint">
              A document in <code>&lt;speak&gt;</code>: <code>&lt;break&gt;</code>, <code>&lt;say-as&gt;</code>,{' '}
              <code>&lt;sub&gt;</code>, <code>&lt;phoneme&gt;</code>, <code>&lt;prosody&gt;</code>,{' '}
              <code>&lt;emphasis&gt;</code>, <code>&lt;p&gt;</code>, <code>&lt;s&gt;</code>, and{' '}
              <code>&lt;voice name="en-us-slt"&gt;</code> for a stretch in another of your voices (its id). Anything
              else is read as its text, with a warning. Credits count the characters you send, markup included.
            </small>
          )}
          <small id="text-count" class={overBy > 0 || shortBy > 0 ? 'hint over' : 'hint'} aria-live="polite">
            {formatNumber(characters)} {characters === 1 ? 'character' : 'characters'}
            {plan
              ? ` of ${formatNumber(plan.max_text_length)} · costs ${formatNumber(cost)} ${cost === 1 ? 'credit' : 'credits'}`
              : ''}
            {balance !== undefined ? ` · ${formatNumber(balance)} available` : ''}
          </small>
          <div class="actions">
            <button type="button" onClick={showSpoken} disabled={!text.trim() || !voiceId}>
              Show how it will be read
            </button>
            <button type="button" onClick={clearDraft} disabled={!text}>
              Clear
            </button>
          </div>
          {spoken !== null && (
            <div aria-live="polite">
              <p class="spoken">
                <strong>Read as:</strong> {spoken.spoken}
              </p>
              <Warnings warnings={spoken.warnings} />
            </div>
          )}
        </div>
        <div class="grid">
          <Select
            label="Language"
            value={currentLanguage}
            onValue={chooseLanguage}
            options={[['', 'All languages'], ...languages.map((code): [string, string] => [code, languageName(code)])]}
          />
          <Select
            label="Voice"
            wide
            value={voiceId}
            onValue={setVoiceId}
            options={shown.map((voice): [string, string] => [
              voice.id,
              voice.id === defaultId ? `${voiceLabel(voice)} · default` : voiceLabel(voice),
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
        {selected && profile.data && selected.id !== profile.data.default_voice_id && (
          <p>
            <button type="button" class="link" onClick={makeDefault}>
              Make {selected.name} my default voice
            </button>
          </p>
        )}
        {defaultSaved && <Status>{defaultSaved}</Status>}
        <ErrorMessage error={voices.error ?? profile.error} />
        <div class="actions submit-row">
          <button
            type="submit"
            class="primary"
            disabled={inProgress || overBy > 0 || shortBy > 0}
            aria-describedby={reasons || undefined}
          >
            Synthesize
          </button>
          {selected?.preview_url && <PreviewButton voice={selected} />}
        </div>
        {overBy > 0 && plan && (
          <p id="submit-reason" class="reason">
            The text is {formatNumber(characters)} characters; your plan takes at most{' '}
            {formatNumber(plan.max_text_length)} per synthesis. Remove {formatNumber(overBy)}{' '}
            {overBy === 1 ? 'character' : 'characters'} to synthesize.
          </p>
        )}
        {shortBy > 0 && balance !== undefined && (
          <p id="credits-reason" class="reason">
            {shortfallSentence(cost, balance)} <Link href="/app/account#credits">How to get more credits</Link>
          </p>
        )}
      </form>
      {shortfall ? <CreditsShortfall {...shortfall} /> : <ErrorMessage error={error} />}
      {job && (
        <section aria-labelledby="result" class="result" ref={result}>
          <h2 id="result">Result</h2>
          <Warnings warnings={warnings} />
          {inProgress ? (
            <div class="job">
              <label for="job-progress">
                {job.status === 'queued'
                  ? 'Queued: waiting for a free render slot'
                  : `Rendering: ${Math.round(done * 100)} % · ${left ? `about ${left} left` : 'estimating the time left'}`}
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

/** What an SSML document asked that is read differently, each with its line and column. */
function Warnings({ warnings }: { warnings: string[] }) {
  if (!warnings.length) return null;
  return (
    <div class="notice" role="note" aria-label="SSML warnings">
      <p>
        {warnings.length === 1 ? 'One part of the document is' : `${warnings.length} parts of the document are`} read
        differently:
      </p>
      <ul>
        {warnings.map((warning, index) => (
          <li key={index}>{warning}</li>
        ))}
      </ul>
    </div>
  );
}
