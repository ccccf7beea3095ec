import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, get, logIn } from '../api';
import { formatNumber } from '../format';
import { afterLogIn, Link, navigate, useLocation } from '../router';
import { useAction, useSubmit } from '../hooks';
import { ErrorMessage, Field, PageTitle, Status } from '../ui';
import type { Plan } from '../types';

/** The sign-up answer; `verification_mail` only from a development server that writes mail to files. */
interface Registered {
  email: string;
  verification_mail?: { delivery: 'file'; directory: string };
}

const value = (form: HTMLFormElement, name: string) => (form.elements.namedItem(name) as HTMLInputElement).value;

/** Asks for a new verification mail; the API answers 202 whether or not the address has an account. */
function ResendVerification({ email }: { email: string }) {
  const [sent, setSent] = useState(false);
  const resend = useAction(async () => {
    setSent(false);
    await api('POST', 'auth/resend-verification/', { body: { email } });
    setSent(true);
  });
  return (
    <div>
      <button type="button" onClick={() => resend.run()} disabled={resend.busy}>
        Send the verification mail again
      </button>
      {sent && (
        <Status>If {email} has an unverified account, a new link is on its way. Older links no longer work.</Status>
      )}
      <ErrorMessage error={resend.error} />
    </div>
  );
}

export function SignUp() {
  const [registered, setRegistered] = useState<Registered | null>(null);
  const submit = useSubmit(async (form) => {
    // What the browser can tell at once, all together (the server checks the same, and more).
    const errors: Record<string, string[]> = {};
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value(form, 'email').trim()))
      errors.email = ['Enter a valid email address.'];
    const length = [...value(form, 'password')].length;
    if (length < 8 || length > 128) errors.password = ['Must be 8 to 128 characters.'];
    if (Object.keys(errors).length)
      throw new ApiError({ status: 400, code: 'validation_error', detail: 'Check the form.', errors });
    const account = await api<Registered>('POST', 'auth/register/', {
      body: { email: value(form, 'email'), password: value(form, 'password'), name: value(form, 'name') },
    });
    setRegistered(account);
  });
  if (registered) {
    return (
      <>
        <PageTitle>Check your mail</PageTitle>
        <p>
          We sent a verification link to <strong>{registered.email}</strong>. Open it to activate your account and
          receive your free credits.
        </p>
        {registered.verification_mail && (
          <div class="notice" role="note" aria-label="Where the mail went">
            <p>
              This server runs in development mode without a mail server (<code>SMTP_URL</code> is not set), so nothing
              was sent: the mail is a file in <code>{registered.verification_mail.directory}</code> on the server. Open
              the newest <code>.eml</code> file there and follow its link, or verify the account from the command line:
            </p>
            <pre>
              <code>openvox user verify {registered.email}</code>
            </pre>
          </div>
        )}
        <ResendVerification email={registered.email} />
      </>
    );
  }
  return (
    <>
      <PageTitle>Sign up</PageTitle>
      <form onSubmit={submit.onSubmit} class="narrow" noValidate>
        <Field label="Email" name="email" type="email" autoComplete="email" required />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          minLength={8}
          maxLength={128}
          required
          hint="8 to 128 characters."
        />
        <Field label="Name (optional)" name="name" autoComplete="name" maxLength={100} />
        <ErrorMessage error={submit.error} />
        <button type="submit" class="primary" disabled={submit.busy}>
          Create account
        </button>
      </form>
      <p>
        Already have an account? <Link href="/app/login">Log in</Link>.
      </p>
    </>
  );
}

export function LogIn() {
  const { query } = useLocation();
  const [unverified, setUnverified] = useState<string | null>(null);
  const submit = useSubmit(async (form) => {
    setUnverified(null);
    const email = value(form, 'email');
    try {
      await logIn(email, value(form, 'password'));
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === 'email_not_verified') setUnverified(email);
      throw failure;
    }
    navigate(afterLogIn(query.get('next')));
  });
  return (
    <>
      <PageTitle>Log in</PageTitle>
      <form onSubmit={submit.onSubmit} class="narrow" noValidate>
        <Field label="Email" name="email" type="email" autoComplete="email" required />
        <Field label="Password" name="password" type="password" autoComplete="current-password" required />
        <ErrorMessage error={submit.error} />
        <button type="submit" class="primary" disabled={submit.busy}>
          Log in
        </button>
      </form>
      {unverified && <ResendVerification email={unverified} />}
      <p>
        New here? <Link href="/app/signup">Create an account</Link>.
      </p>
    </>
  );
}

export function VerifyEmail() {
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  const [state, setState] = useState<{ done?: boolean; credits?: number; error?: unknown }>({});
  useEffect(() => {
    if (!token) {
      setState({ error: new Error('This link has no token. Open the link from the mail exactly as it was sent.') });
      return;
    }
    // Its own try/catch turns every failure into the page's error state.
    void (async () => {
      try {
        await api('POST', 'auth/verify-email/', { body: { token } });
        const plans = await get<{ results: Plan[] }>('subscription-plans/').catch(() => null);
        setState({ done: true, credits: plans?.results.find((plan) => plan.id === 'free')?.monthly_credits ?? 35000 });
      } catch (error) {
        setState({ error });
      }
    })();
  }, [token]);
  return (
    <>
      <PageTitle>Email verification</PageTitle>
      {!state.done && !state.error && <Status>Verifying…</Status>}
      {state.done && (
        <>
          <Status>
            Your email address is verified. {formatNumber(state.credits!)} credits were granted to your account.
          </Status>
          <p>
            <Link class="button primary" href="/app/login">
              Log in
            </Link>
          </p>
        </>
      )}
      {state.error ? (
        <>
          <ErrorMessage error={state.error} />
          <p>A link works once and expires after a day. Log in to ask for a new one.</p>
        </>
      ) : null}
    </>
  );
}
