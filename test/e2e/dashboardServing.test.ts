import { createAccount, type TestAccount } from '../helpers/factories';
import { createTestDeps, type RunningApi, startApi } from '../helpers/stack';

/**
 * The dashboard's server side: its pages beside the JSON API, and the
 * cookie session that keeps the refresh token away from scripts while the
 * JSON login/refresh contract stays as it is.
 */
const SESSION = { 'X-OpenVox-Session': '1' };
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('dashboard serving and browser session', () => {
  const deps = createTestDeps();
  let api: RunningApi;
  let account: TestAccount;
  beforeAll(async () => {
    api = await startApi(deps);
    account = await createAccount(deps);
  });
  afterAll(async () => {
    await api.close();
    await deps.close();
  });

  const cookieOf = (response: Response) =>
    response.headers.getSetCookie().find((cookie) => cookie.startsWith('openvox_refresh='));
  const pairOf = (cookie: string) => cookie.split(';')[0];
  const markerOf = (response: Response) =>
    response.headers.getSetCookie().find((cookie) => cookie.startsWith('openvox_session='));
  const logIn = () =>
    fetch(`${api.url}/api/v1/auth/session/`, {
      method: 'POST',
      headers: { ...SESSION, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: account.email, password: account.password }),
    });
  const refresh = (cookie: string | undefined, headers: Record<string, string> = SESSION, prefix = '/api/v1') =>
    fetch(`${api.url}${prefix}/auth/session/refresh/`, {
      method: 'POST',
      headers: { ...headers, ...(cookie ? { Cookie: cookie } : {}) },
    });

  it('answers a browser at / with the app page under a CSP without inline scripts, and keeps JSON for API clients', async () => {
    const page = await fetch(`${api.url}/`, { headers: { Accept: BROWSER_ACCEPT } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).not.toContain('unsafe-inline');
    const html = await page.text();
    const script = /<script type="module" src="(\/app\/assets\/app-[A-Za-z0-9]+\.js)"><\/script>/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(html).not.toMatch(/<script>(?!<)/);

    const asset = await fetch(`${api.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${api.url}/app/assets/app-NOPE.js`)).status).toBe(404);
    expect((await fetch(`${api.url}/app/assets/..%2F..%2Fpackage.json`)).status).toBe(404);

    const head = await fetch(`${api.url}/app/keys`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(Buffer.byteLength(html));
    for (const path of ['/app/keys', '/app/playground', '/app/verify-email']) {
      const response = await fetch(`${api.url}${path}?x=1`);
      expect({ path, type: response.headers.get('content-type') }).toEqual({
        path,
        type: expect.stringMatching(/^text\/html/),
      });
    }
    for (const path of ['/', '/api/v1/', '/api/']) {
      const response = await fetch(`${api.url}${path}`);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await response.json()) as any).name).toBe('OpenVox');
    }
  });

  it('sends a person who opens the mailed link to the app page, which confirms; API clients still verify with GET', async () => {
    const response = await fetch(`${api.url}/api/v1/auth/verify-email/?token=abc_DEF-123`, {
      headers: { Accept: BROWSER_ACCEPT },
      redirect: 'manual',
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/app/verify-email?token=abc_DEF-123');
    const json = await fetch(`${api.url}/api/v1/auth/verify-email/?token=abc_DEF-123`);
    expect(json.status).toBe(400);
    expect(((await json.json()) as any).code).toBe('validation_error');
  });

  it('logs in with an HttpOnly SameSite=Strict cookie and answers only the access token', async () => {
    const response = await logIn();
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body).toEqual({
      access: expect.any(String),
      token_type: 'Bearer',
      expires_in: deps.config.ACCESS_TOKEN_TTL,
    });
    const cookie = cookieOf(response)!;
    expect(cookie).toMatch(/; path=\/api\//);
    expect(cookie).toMatch(/; httponly/i);
    expect(cookie).toMatch(/; samesite=strict/i);
    expect(cookie).not.toMatch(/; secure/i);
    // Beside it, a marker scripts can read (nothing secret in it): the page asks for a refresh only when it is there.
    const marker = markerOf(response)!;
    expect(marker).toMatch(/^openvox_session=1; path=\/;/);
    expect(marker).not.toMatch(/; httponly/i);
    expect(marker).toMatch(/; samesite=strict/i);
    const profile = await fetch(`${api.url}/api/v1/auth/profile/`, {
      headers: { Authorization: `Bearer ${body.access}` },
    });
    expect(profile.status).toBe(200);
  });

  it('marks the cookie Secure behind https', async () => {
    // The same deps with another PUBLIC_URL (a second set of deps would rebind Objection's shared knex).
    const secureApi = await startApi({ ...deps, config: { ...deps.config, PUBLIC_URL: 'https://voice.example.com' } });
    try {
      const response = await fetch(`${secureApi.url}/api/auth/session/`, {
        method: 'POST',
        headers: { ...SESSION, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: account.email, password: account.password }),
      });
      expect(response.status).toBe(200);
      expect(cookieOf(response)).toMatch(/; secure/i);
    } finally {
      await secureApi.close();
    }
  });

  it('refreshes from the cookie in both families, rotating it; a replayed cookie revokes the session', async () => {
    const first = pairOf(cookieOf(await logIn())!);
    const rotated = await refresh(first);
    expect(rotated.status).toBe(200);
    expect((await rotated.json()) as any).toEqual({
      access: expect.any(String),
      token_type: 'Bearer',
      expires_in: expect.any(Number),
    });
    const second = pairOf(cookieOf(rotated)!);
    expect(second).not.toBe(first);
    const unversioned = await refresh(second, SESSION, '/api');
    expect(unversioned.status).toBe(200);
    const third = pairOf(cookieOf(unversioned)!);

    const replay = await refresh(first);
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as any).code).toBe('token_invalid');
    // Reuse revoked the family: the newest cookie no longer works either, and the answer clears it.
    const after = await refresh(third);
    expect(after.status).toBe(401);
    expect(cookieOf(after)).toMatch(/^openvox_refresh=;/);
  });

  it('refuses cookie requests without the session header or from another origin (CSRF)', async () => {
    const cookie = pairOf(cookieOf(await logIn())!);
    const bare = await refresh(cookie, {});
    expect(bare.status).toBe(403);
    expect(((await bare.json()) as any).code).toBe('permission_denied');
    expect((await refresh(cookie, { ...SESSION, Origin: 'https://evil.example' })).status).toBe(403);
    expect((await refresh(cookie, { ...SESSION, Origin: api.url })).status).toBe(200);
    expect((await refresh(undefined)).status).toBe(401);
  });

  it('logs out: the session is revoked and the cookie cleared', async () => {
    const cookie = pairOf(cookieOf(await logIn())!);
    const out = await fetch(`${api.url}/api/v1/auth/session/`, {
      method: 'DELETE',
      headers: { ...SESSION, Cookie: cookie },
    });
    expect(out.status).toBe(204);
    expect(cookieOf(out)).toMatch(/^openvox_refresh=;/);
    expect(markerOf(out)).toMatch(/^openvox_session=;/);
    expect((await refresh(cookie)).status).toBe(401);
  });

  it('leaves the JSON login and refresh contract unchanged (no cookie)', async () => {
    const login = await fetch(`${api.url}/api/v1/auth/login/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: account.email, password: account.password }),
    });
    const pair = (await login.json()) as any;
    expect(Object.keys(pair).sort()).toEqual(['access', 'expires_in', 'refresh', 'token_type']);
    expect(cookieOf(login)).toBeUndefined();
    const refreshed = await fetch(`${api.url}/api/v1/auth/refresh/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ refresh: pair.refresh }),
    });
    expect(refreshed.status).toBe(200);
    expect(Object.keys((await refreshed.json()) as any).sort()).toEqual([
      'access',
      'expires_in',
      'refresh',
      'token_type',
    ]);
    expect(cookieOf(refreshed)).toBeUndefined();
  });
});
