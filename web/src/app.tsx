import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { isLoggedIn, logOut, onSessionChange, restoreSession } from './api';
import { Landing } from './pages/landing';
import { LogIn, SignUp, VerifyEmail } from './pages/auth';
import { ApiKeys } from './pages/keys';
import { Playground } from './pages/playground';
import { History } from './pages/history';
import { Voices } from './pages/voices';
import { Projects } from './pages/projects';
import { Studio } from './pages/studio';
import { Usage } from './pages/usage';
import { Dictionaries } from './pages/dictionaries';
import { Account } from './pages/account';
import { Webhooks } from './pages/webhooks';
import { NAV } from './nav';
import { afterLogIn, Link, navigate, useLocation } from './router';
import { PageTitle } from './ui';

const PUBLIC = { '/': Landing, '/app/signup': SignUp, '/app/login': LogIn, '/app/verify-email': VerifyEmail } as const;
const PRIVATE = {
  '/app': Playground,
  '/app/playground': Playground,
  '/app/history': History,
  '/app/voices': Voices,
  '/app/projects': Projects,
  '/app/studio': Studio,
  '/app/keys': ApiKeys,
  '/app/usage': Usage,
  '/app/dictionaries': Dictionaries,
  '/app/webhooks': Webhooks,
  '/app/account': Account,
} as const;

export function App() {
  const { path, query } = useLocation();
  const [loggedIn, setLoggedIn] = useState(isLoggedIn());
  // Until the session cookie has been tried, a private page cannot tell "logged out" from "not known yet".
  const [restored, setRestored] = useState(false);
  useEffect(() => onSessionChange(() => setLoggedIn(isLoggedIn())), []);
  useEffect(() => {
    // restoreSession never rejects (a failed refresh is `false`).
    void restoreSession().finally(() => setRestored(true));
  }, []);

  const Public = PUBLIC[path as keyof typeof PUBLIC] as (() => JSX.Element) | undefined;
  const Private = PRIVATE[path as keyof typeof PRIVATE] as (() => JSX.Element) | undefined;
  useEffect(() => {
    if (!restored) return;
    // The address as it is now, not as it was at the render: logging out navigates to the login page before this runs.
    const here = location.pathname.replace(/\/+$/, '') || '/';
    if (!loggedIn && here in PRIVATE)
      navigate(`/app/login?next=${encodeURIComponent(location.pathname + location.search)}`, true);
    // Logged in already (a reload, a bookmark): the login form has nothing to do.
    else if (loggedIn && here === '/app/login') navigate(afterLogIn(query.get('next')), true);
  }, [path, restored, loggedIn]);

  let page;
  if (Public) page = <Public />;
  else if (Private) page = loggedIn ? <Private /> : <p role="status">Loading…</p>;
  else page = <NotFound />;

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/" class="brand">
          OpenVox
        </Link>
        <nav aria-label="Main">
          <ul>
            {loggedIn ? (
              <>
                {NAV.map(([href, label]) => (
                  <li key={href}>
                    <Link href={href} aria-current={path === href ? 'page' : undefined}>
                      {label}
                    </Link>
                  </li>
                ))}
                <li>
                  <a href="/api/docs/">API docs</a>
                </li>
                <li>
                  <button type="button" class="link" onClick={() => logOut().then(() => navigate('/app/login'))}>
                    Log out
                  </button>
                </li>
              </>
            ) : (
              <>
                <li>
                  <Link href="/app/login">Log in</Link>
                </li>
                <li>
                  <Link href="/app/signup">Sign up</Link>
                </li>
                <li>
                  <a href="/api/docs/">API docs</a>
                </li>
              </>
            )}
          </ul>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </>
  );
}

function NotFound() {
  return (
    <>
      <PageTitle>Page not found</PageTitle>
      <p>
        There is no page here. Go to the <Link href="/">start page</Link>.
      </p>
    </>
  );
}
