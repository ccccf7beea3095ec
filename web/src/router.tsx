import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/**
 * A router of a few lines over the History API: the dashboard has a dozen
 * flat pages, which does not need a library. After each navigation the
 * page's heading takes the focus, so screen readers announce the new page.
 */
const NAVIGATE = 'openvox:navigate';

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  window.dispatchEvent(new Event(NAVIGATE));
}

export function useLocation(): { path: string; query: URLSearchParams } {
  const read = () => ({
    path: location.pathname.replace(/\/+$/, '') || '/',
    query: new URLSearchParams(location.search),
  });
  const [current, setCurrent] = useState(read);
  useEffect(() => {
    const update = () => setCurrent(read());
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATE, update);
    };
  }, []);
  return current;
}

/** The pages a login, sign-up or verification leads away from: never a place to come back to after logging in. */
const AUTH_PAGES = /^\/app\/(login|signup|verify-email)(\/|$|\?)/;

/** Where to go after logging in: `next` when it is a page of the dashboard (never elsewhere: no open redirect, no login loop), else the playground. */
export function afterLogIn(next: string | null): string {
  return next && /^\/app(\/|$|\?)/.test(next) && !AUTH_PAGES.test(next) ? next : '/app/playground';
}

type LinkProps = JSX.HTMLAttributes<HTMLAnchorElement> & { href: string; children: ComponentChildren };

/** An ordinary link (it opens in a new tab, copies, etc.) that navigates in place on a plain click. */
export function Link({ href, children, ...rest }: LinkProps) {
  const onClick = (event: MouseEvent) => {
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
