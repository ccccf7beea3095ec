import { mailsTo, PASSWORD, uniqueEmail, waitForVerificationToken } from '../helpers/accounts';
import { call } from '../helpers/http';
import { useStack } from '../helpers/stack';

describe.each([
  ['/api/v1', 'versioned'],
  ['/api', 'unversioned'],
])('account life in the %s family (%s)', (family) => {
  const { deps, api } = useStack({ worker: true });
  const req = (method: string, path: string, body?: unknown, token?: string) =>
    call(api.url, method, `${family}${path}`, body, token);

  it('register → mail → verify via link → 35000 credits once → login → profile → refresh rotation → reuse revokes → logout → API keys', async () => {
    const email = uniqueEmail();
    const registered = await req('POST', '/auth/register/', {
      email: `  ${email.toUpperCase()} `,
      password: PASSWORD,
      name: 'Ada',
    });
    expect(registered.status).toBe(201);
    expect(registered.body).toEqual({
      id: expect.any(String),
      email,
      name: 'Ada',
      email_verified: false,
      created_at: expect.any(String),
    });
    expect(new Date(registered.body.created_at).toISOString()).toBe(registered.body.created_at);

    expect((await req('POST', '/auth/register/', { email, password: PASSWORD })).body.code).toBe('email_taken');
    expect((await req('POST', '/auth/login/', { email, password: PASSWORD })).body.code).toBe('email_not_verified');

    const token = await waitForVerificationToken(deps.config.MAIL_DIR, email);
    expect(token.length).toBeGreaterThanOrEqual(22);
    const [mail] = await mailsTo(deps.config.MAIL_DIR, email);
    expect(mail.headers).toMatch(/Content-Type: text\/plain/i);
    expect(mail.headers).toMatch(/Content-Transfer-Encoding: (7bit|8bit|quoted-printable)/i);
    expect(mail.body).toContain(`${deps.config.PUBLIC_URL}/api/v1/auth/verify-email/?token=${token}`);

    // The link in the mail, as a browser would follow it.
    const verify = await fetch(`${api.url}${family}/auth/verify-email/?token=${token}`);
    expect(verify.status).toBe(200);
    expect(await verify.json()).toEqual({ email_verified: true });

    const again = await req('POST', '/auth/verify-email/', { token });
    expect(again.status).toBe(400);
    expect(again.body.errors).toHaveProperty('token');

    const login = await req('POST', '/auth/login/', { email, password: PASSWORD });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({
      access: expect.any(String),
      refresh: expect.any(String),
      token_type: 'Bearer',
      expires_in: 900,
    });

    const profile = await req('GET', '/auth/profile/', undefined, login.body.access);
    expect(profile.status).toBe(200);
    expect(profile.body).toMatchObject({
      id: registered.body.id,
      email,
      name: 'Ada',
      email_verified: true,
      subscription_tier: 'free',
      credit_balance: 35000,
      credits_reserved: 0,
      usage: {
        credits_used: 0,
        characters_synthesized: 0,
        syntheses: 0,
        syntheses_failed: 0,
        audio_seconds: 0,
        cloned_voices: 0,
        cloned_voices_limit: 3,
      },
    });
    const ledger = await deps.db('credit_ledger').where({ account_id: registered.body.id });
    expect(ledger).toHaveLength(1);
    expect(Number(ledger[0].amount)).toBe(35000);

    const rotated = await req('POST', '/auth/refresh/', { refresh: login.body.refresh });
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh).not.toBe(login.body.refresh);
    expect((await req('GET', '/auth/profile/', undefined, rotated.body.access)).status).toBe(200);

    const reuse = await req('POST', '/auth/refresh/', { refresh: login.body.refresh });
    expect(reuse.status).toBe(401);
    expect(reuse.body.code).toBe('token_invalid');
    // Reuse revoked the whole family: the newest refresh token is dead too.
    expect((await req('POST', '/auth/refresh/', { refresh: rotated.body.refresh })).body.code).toBe('token_invalid');

    const session = (await req('POST', '/auth/login/', { email, password: PASSWORD })).body;
    expect((await req('POST', '/auth/logout/', { refresh: session.refresh }, session.access)).status).toBe(204);
    expect((await req('POST', '/auth/refresh/', { refresh: session.refresh })).body.code).toBe('token_invalid');
    // Access tokens already issued stay valid until they expire.
    expect((await req('GET', '/auth/profile/', undefined, session.access)).status).toBe(200);

    const created = await req('POST', '/auth/api-keys/', { name: 'ci' }, session.access);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'ci',
      prefix: created.body.key.slice(0, 12),
      key: expect.stringMatching(/^vk_[A-Za-z0-9_-]{40,}$/),
      created_at: expect.any(String),
      last_used_at: null,
    });

    const viaKey = await req('GET', '/auth/profile/', undefined, created.body.key);
    expect(viaKey.status).toBe(200);
    expect(viaKey.body.id).toBe(registered.body.id);

    const listed = await req('GET', '/auth/api-keys/', undefined, created.body.key);
    expect(listed.body.count).toBe(1);
    expect(listed.body.results[0]).toEqual({
      id: created.body.id,
      name: 'ci',
      prefix: created.body.prefix,
      created_at: created.body.created_at,
      last_used_at: expect.any(String),
    });
    expect(listed.body.results[0]).not.toHaveProperty('key');

    expect((await req('DELETE', `/auth/api-keys/${created.body.id}/`, undefined, session.access)).status).toBe(204);
    const deleted = await req('GET', '/auth/profile/', undefined, created.body.key);
    expect(deleted.status).toBe(401);
    expect(deleted.body.code).toBe('authentication_failed');

    // Still exactly one grant after everything.
    expect(await deps.db('credit_ledger').where({ account_id: registered.body.id }).count()).toEqual([{ count: '1' }]);
  });
});
