import { useEffect, useState } from 'preact/hooks';
import { api, get, getAll, type Page } from '../api';
import { PlansAndCredits } from '../credits';
import { formatNumber, voiceLabel } from '../format';
import { useLoad, useSubmit } from '../hooks';
import { ErrorMessage, Field, PageTitle, Select, Status } from '../ui';
import type { Plan, Profile, Voice } from '../types';

/** The account: its name, its default voice (what speaks when none is named), and its credits and the plans. */
export function Account() {
  const profile = useLoad((signal) => get<Profile>('auth/profile/', signal), []);
  const voices = useLoad((signal) => getAll<Voice>('voices/', signal), []);
  const plans = useLoad((signal) => get<Page<Plan>>('subscription-plans/', signal), []);
  const data = profile.data;
  const ready = (voices.data?.results ?? []).filter((voice) => voice.status === 'ready');
  const [voiceId, setVoiceId] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const chosen = voiceId ?? data?.default_voice_id ?? '';

  // Arriving at #credits (from the playground's "get more credits"): that section, once it is drawn.
  useEffect(() => {
    if (data && plans.data && location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
  }, [Boolean(data && plans.data)]);

  const saveVoice = useSubmit(async () => {
    setMessage(null);
    const saved = await api<Profile>('PATCH', 'auth/profile/', { body: { default_voice_id: chosen || null } });
    setVoiceId(null);
    setMessage(
      saved.default_voice_id
        ? `Saved: ${saved.default_voice?.name ?? saved.default_voice_id} is your default voice.`
        : `Saved: the service's default voice speaks${saved.default_voice ? ` (${saved.default_voice.name})` : ''}.`,
    );
    profile.reload();
  });
  const saveName = useSubmit(async (form) => {
    setMessage(null);
    const name = (form.elements.namedItem('name') as HTMLInputElement).value;
    await api('PATCH', 'auth/profile/', { body: { name } });
    setMessage('Saved: your name.');
    profile.reload();
  });

  return (
    <>
      <PageTitle>Account</PageTitle>
      <ErrorMessage error={profile.error ?? voices.error ?? plans.error} />
      {message && <Status>{message}</Status>}
      {data && (
        <>
          <p>
            Signed in as <strong>{data.email}</strong>.
          </p>
          <form onSubmit={saveName.onSubmit} class="inline-form" aria-label="Name">
            <Field label="Name" name="name" defaultValue={data.name} maxLength={100} autoComplete="name" />
            <button type="submit" disabled={saveName.busy}>
              Save name
            </button>
          </form>
          <ErrorMessage error={saveName.error} />

          <section aria-labelledby="default-voice">
            <h2 id="default-voice">Default voice</h2>
            <p>
              The voice the playground starts with, and the one that speaks when a request names none (the{' '}
              <code>openvox say</code> command, <code>/v1/audio/speech</code> without a voice). Installing new voices
              never changes it.
            </p>
            {data.default_voice && (
              <p id="default-voice-now">
                Speaking now: <strong>{data.default_voice.name}</strong>
                {data.default_voice.source === 'service' ? ' (the service’s default)' : ' (your choice)'}.
              </p>
            )}
            {data.default_voice?.notice && <p class="reason">{data.default_voice.notice}</p>}
            <form onSubmit={saveVoice.onSubmit} class="inline-form" aria-label="Default voice">
              <Select
                label="Default voice"
                wide
                value={chosen}
                onValue={setVoiceId}
                options={[
                  ['', 'The service’s default'],
                  ...ready.map((voice): [string, string] => [voice.id, voiceLabel(voice)]),
                ]}
              />
              <button type="submit" class="primary" disabled={saveVoice.busy}>
                Save default voice
              </button>
            </form>
            <ErrorMessage error={saveVoice.error} />
          </section>

          <section aria-labelledby="credits">
            <h2 id="credits" tabIndex={-1}>
              Credits and plans
            </h2>
            <p>
              {formatNumber(data.credit_balance)} credits available
              {data.credits_reserved ? `, ${formatNumber(data.credits_reserved)} reserved by running syntheses` : ''}.
              One credit is one character of text.
            </p>
            {plans.data && (
              <PlansAndCredits plans={plans.data.results} current={data.subscription_tier} email={data.email} />
            )}
          </section>
        </>
      )}
    </>
  );
}
