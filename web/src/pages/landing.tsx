import { useEffect, useRef, useState } from 'preact/hooks';
import { isLoggedIn } from '../api';
import { Link } from '../router';
import { PageTitle } from '../ui';

/** The voices whose catalog sample the start page plays: the service's default voice, then its fallback. */
const SAMPLE_VOICES = ['en-us-joe', 'en-us-slt'];

/**
 * A sample to hear before signing up: a premade voice's preview, which the worker renders when it starts (the
 * catalog's own previews, public). Nothing is fetched until it is asked for.
 */
function Sample() {
  const [state, setState] = useState<'idle' | 'loading' | 'playing' | 'missing'>('idle');
  const audio = useRef<HTMLAudioElement | null>(null);
  useEffect(() => () => audio.current?.pause(), []);
  const play = async () => {
    if (state === 'playing') {
      audio.current?.pause();
      setState('idle');
      return;
    }
    setState('loading');
    for (const voice of SAMPLE_VOICES) {
      const response = await fetch(`/api/v1/voices/${voice}/preview/`).catch(() => null);
      if (!response?.ok) continue;
      if (audio.current) URL.revokeObjectURL(audio.current.src);
      audio.current = new Audio(URL.createObjectURL(await response.blob()));
      audio.current.onended = () => setState('idle');
      setState('playing');
      await audio.current.play().catch(() => setState('idle'));
      return;
    }
    setState('missing');
  };
  return (
    <div class="sample">
      <button type="button" onClick={play} disabled={state === 'loading'} data-state={state}>
        <span aria-hidden="true">{state === 'playing' ? '■' : '▶'}</span>{' '}
        {state === 'playing' ? 'Stop the sample' : state === 'loading' ? 'Loading the sample…' : 'Hear a sample'}
      </button>
      {state === 'missing' && (
        <p role="status" class="hint">
          No sample yet: the worker renders the voices' samples when it starts. Try again in a minute.
        </p>
      )}
    </div>
  );
}

export function Landing() {
  const origin = location.origin;
  return (
    <>
      <section class="hero">
        <PageTitle>OpenVox</PageTitle>
        <p class="lead">
          Text to speech and voice cloning on your own servers. Turn text into natural speech in many languages, clone a
          voice from a short recording with the speaker's consent, and call it all from one HTTP API.
        </p>
        <p class="actions">
          {isLoggedIn() ? (
            <Link class="button primary" href="/app/playground">
              Open the playground
            </Link>
          ) : (
            <>
              <Link class="button primary" href="/app/signup">
                Sign up free
              </Link>
              <Link class="button" href="/app/login">
                Log in
              </Link>
            </>
          )}
        </p>
        <Sample />
        <p>Every new account gets 35 000 free credits a month: one credit per character.</p>
      </section>
      <section aria-labelledby="dev">
        <h2 id="dev">For developers</h2>
        <ul class="cards">
          <li>
            <h3>REST API</h3>
            <p>
              Every page of this dashboard uses the public API. Browse it in the <a href="/api/docs/">API reference</a>{' '}
              or fetch the <a href="/api/openapi.json">OpenAPI document</a>.
            </p>
          </li>
          <li>
            <h3>OpenAI-compatible</h3>
            <p>
              Point an OpenAI SDK at <code>{origin}/v1</code> with an API key from this dashboard:{' '}
              <code>POST /v1/audio/speech</code> answers like OpenAI's.
            </p>
          </li>
          <li>
            <h3>Self-hosted</h3>
            <p>Your text and recordings stay on your servers. No third-party calls, no tracking.</p>
          </li>
        </ul>
      </section>
    </>
  );
}
