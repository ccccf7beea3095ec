import type { Knex } from 'knex';
import { randomBytes, randomUUID } from 'node:crypto';
import { loadSigningKey } from '../../api/auth/signingKey';
import { PASSWORD, uniqueEmail, waitForVerificationToken } from '../helpers/accounts';
import { claimsOf, signToken, tamperPayload, unsignedToken } from '../helpers/jwt';
import { useStack } from '../helpers/stack';
import { call, expectProblem, readReply, type Reply } from '../helpers/http';

/**
 * Bad input to the account endpoints (API.md "Conventions" and "Accounts and
 * authentication"): each must get a clear problem+json answer and change
 * nothing. Every case runs in both path families.
 */

const FAMILIES = [['/api/v1'], ['/api']];

const { deps, api } = useStack({ worker: true });

/** A request with a hand-made body and headers (for what `call` cannot send). */
async function send(
  path: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const response = await fetch(`${api.url}${path}`, {
    method: init.method ?? 'POST',
    body: init.body,
    headers: init.headers ?? (init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
  });
  return readReply(response);
}

/** 400 validation_error naming exactly `fields` in `errors`, each message matching its pattern. */
function expectFieldErrors(reply: Reply, fields: Record<string, RegExp>): any {
  const problem = expectProblem(reply, 400, 'validation_error');
  expect(Object.keys(problem.errors ?? {}).sort()).toEqual(Object.keys(fields).sort());
  for (const [field, pattern] of Object.entries(fields)) {
    expect(problem.errors[field]).toEqual(expect.arrayContaining([expect.stringMatching(pattern)]));
  }
  expect(Object.keys(fields).some((field) => problem.detail.startsWith(`${field}: `))).toBe(true);
  return problem;
}

function expect401(reply: Reply, code: string): any {
  const problem = expectProblem(reply, 401, code);
  expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  return problem;
}

async function count(query: Knex.QueryBuilder): Promise<number> {
  const [row] = await query.count({ n: '*' });
  return Number((row as { n: string | number }).n);
}

/** Awaits every query of `named` at once: the same names, each with its result. */
async function allOf<T extends Record<string, PromiseLike<unknown>>>(
  named: T,
): Promise<{ [Name in keyof T]: Awaited<T[Name]> }> {
  const results = await Promise.all(Object.values(named));
  return Object.fromEntries(Object.keys(named).map((name, index) => [name, results[index]])) as {
    [Name in keyof T]: Awaited<T[Name]>;
  };
}

/** Everything a request about these accounts or emails could have changed. */
function footprint(accountIds: string[], emails: string[] = []) {
  const { db } = deps;
  const ids = accountIds.length ? accountIds : [randomUUID()];
  const refreshTokens = () =>
    db('refresh_tokens')
      .join('refresh_token_families as f', 'f.id', 'refresh_tokens.family_id')
      .whereIn('f.account_id', ids);
  return allOf({
    accounts: db('accounts')
      .whereIn('id', ids)
      .orderBy('id')
      .select('id', 'email', 'name', 'password_hash', 'email_verified_at', 'credit_balance', 'updated_at'),
    withEmails: count(db('accounts').whereIn('email', emails.length ? emails : ['-'])),
    ledger: count(db('credit_ledger').whereIn('account_id', ids)),
    apiKeys: count(db('api_keys').whereIn('account_id', ids)),
    families: count(db('refresh_token_families').whereIn('account_id', ids)),
    revoked: count(db('refresh_token_families').whereIn('account_id', ids).whereNotNull('revoked_at')),
    refreshTokens: count(refreshTokens()),
    rotated: count(refreshTokens().whereNotNull('rotated_at')),
    verificationTokens: count(db('email_verification_tokens').whereIn('account_id', ids)),
    usedTokens: count(db('email_verification_tokens').whereIn('account_id', ids).whereNotNull('used_at')),
  });
}

const accountsWithEmail = (email: string) => count(deps.db('accounts').where({ email: email.trim().toLowerCase() }));
const ledgerOf = (accountId: string) => count(deps.db('credit_ledger').where({ account_id: accountId }));

interface TestAccount {
  id: string;
  email: string;
  access: string;
  refresh: string;
  verificationToken: string;
}

/** Registers, verifies through the mailed token and logs in. */
async function verifiedAccount(family: string, label: string): Promise<TestAccount> {
  const email = uniqueEmail(label);
  const registered = await call(api.url, 'POST', `${family}/auth/register/`, { email, password: PASSWORD });
  expect(registered.status).toBe(201);
  const verificationToken = await waitForVerificationToken(deps.config.MAIL_DIR, email);
  expect((await call(api.url, 'POST', `${family}/auth/verify-email/`, { token: verificationToken })).status).toBe(200);
  const login = await call(api.url, 'POST', `${family}/auth/login/`, { email, password: PASSWORD });
  expect(login.status).toBe(200);
  return { id: registered.body.id, email, access: login.body.access, refresh: login.body.refresh, verificationToken };
}

const TEN_MB = 10 * 1024 * 1024;
const SQL_INJECTIONS = [
  "' OR '1'='1",
  "' OR 1=1 --",
  "'; DROP TABLE accounts; --",
  '" OR ""="',
  "admin'--",
  "1' UNION SELECT password_hash FROM accounts --",
];

describe.each(FAMILIES)('bad input to the auth endpoints under %s', (family) => {
  const req = (method: string, path: string, body?: unknown, token?: string) =>
    call(api.url, method, `${family}${path}`, body, token);
  const raw = (path: string, init: Parameters<typeof send>[1] = {}) => send(`${family}${path}`, init);

  // A: verified and logged in; B: another verified account with an API key; U: registered, never verified.
  let a: TestAccount;
  let b: TestAccount;
  let bKey: { id: string; key: string };
  let u: { id: string; email: string; verificationToken: string };
  let everyone: string[];
  beforeAll(async () => {
    [a, b] = await Promise.all([verifiedAccount(family, 'bad-a'), verifiedAccount(family, 'bad-b')]);
    const created = await req('POST', '/auth/api-keys/', { name: 'b-key' }, b.access);
    expect(created.status).toBe(201);
    bKey = { id: created.body.id, key: created.body.key };
    const email = uniqueEmail('bad-u');
    const registered = await req('POST', '/auth/register/', { email, password: PASSWORD });
    expect(registered.status).toBe(201);
    // The worker mails (and stores the token) asynchronously: let it settle before any footprint.
    u = {
      id: registered.body.id,
      email,
      verificationToken: await waitForVerificationToken(deps.config.MAIL_DIR, email),
    };
    everyone = [a.id, b.id, u.id];
  });

  describe('missing, unknown and wrong-typed fields', () => {
    const required = /required/i;
    const unknown = /unknown/i;
    const wrongType = /type/i;
    // [endpoint, method, path, body (given a fresh email), errors expected, authenticated as A]
    const cases: [string, string, string, (email: string) => unknown, Record<string, RegExp>, boolean][] = [
      ['register: empty body', 'POST', '/auth/register/', () => ({}), { email: required, password: required }, false],
      ['register: no password', 'POST', '/auth/register/', (email) => ({ email }), { password: required }, false],
      [
        'register: no email',
        'POST',
        '/auth/register/',
        () => ({ password: PASSWORD, name: 'Ada' }),
        { email: required },
        false,
      ],
      [
        'register: unknown field',
        'POST',
        '/auth/register/',
        (email) => ({ email, password: PASSWORD, role: 'admin' }),
        { role: unknown },
        false,
      ],
      [
        'register: unknown email_verified',
        'POST',
        '/auth/register/',
        (email) => ({ email, password: PASSWORD, email_verified: true }),
        { email_verified: unknown },
        false,
      ],
      [
        'register: numeric email',
        'POST',
        '/auth/register/',
        () => ({ email: 42, password: PASSWORD }),
        { email: wrongType },
        false,
      ],
      [
        'register: numeric password',
        'POST',
        '/auth/register/',
        (email) => ({ email, password: 12345678 }),
        { password: wrongType },
        false,
      ],
      [
        'register: array email',
        'POST',
        '/auth/register/',
        (email) => ({ email: [email], password: PASSWORD }),
        { email: wrongType },
        false,
      ],
      [
        'register: numeric name',
        'POST',
        '/auth/register/',
        (email) => ({ email, password: PASSWORD, name: 7 }),
        { name: wrongType },
        false,
      ],
      [
        'register: null name',
        'POST',
        '/auth/register/',
        (email) => ({ email, password: PASSWORD, name: null }),
        { name: wrongType },
        false,
      ],
      ['login: empty body', 'POST', '/auth/login/', () => ({}), { email: required, password: required }, false],
      ['login: no password', 'POST', '/auth/login/', (email) => ({ email }), { password: required }, false],
      [
        'login: empty password',
        'POST',
        '/auth/login/',
        (email) => ({ email, password: '' }),
        { password: required },
        false,
      ],
      [
        'login: unknown field',
        'POST',
        '/auth/login/',
        (email) => ({ email, password: PASSWORD, remember_me: true }),
        { remember_me: unknown },
        false,
      ],
      [
        'login: null email',
        'POST',
        '/auth/login/',
        () => ({ email: null, password: PASSWORD }),
        { email: wrongType },
        false,
      ],
      [
        'login: boolean password',
        'POST',
        '/auth/login/',
        (email) => ({ email, password: true }),
        { password: wrongType },
        false,
      ],
      ['refresh: empty body', 'POST', '/auth/refresh/', () => ({}), { refresh: required }, false],
      ['refresh: numeric token', 'POST', '/auth/refresh/', () => ({ refresh: 1 }), { refresh: wrongType }, false],
      [
        'refresh: unknown field',
        'POST',
        '/auth/refresh/',
        () => ({ refresh: 'x', access: 'y' }),
        { access: unknown },
        false,
      ],
      ['verify-email: empty body', 'POST', '/auth/verify-email/', () => ({}), { token: required }, false],
      [
        'verify-email: numeric token',
        'POST',
        '/auth/verify-email/',
        () => ({ token: 123456 }),
        { token: wrongType },
        false,
      ],
      [
        'verify-email: unknown field',
        'POST',
        '/auth/verify-email/',
        (email) => ({ token: 'abc', email }),
        { email: unknown },
        false,
      ],
      ['resend-verification: empty body', 'POST', '/auth/resend-verification/', () => ({}), { email: required }, false],
      [
        'resend-verification: boolean email',
        'POST',
        '/auth/resend-verification/',
        () => ({ email: true }),
        { email: wrongType },
        false,
      ],
      [
        'resend-verification: unknown field',
        'POST',
        '/auth/resend-verification/',
        (email) => ({ email, name: 'x' }),
        { name: unknown },
        false,
      ],
      ['api-keys: empty body', 'POST', '/auth/api-keys/', () => ({}), { name: required }, true],
      ['api-keys: numeric name', 'POST', '/auth/api-keys/', () => ({ name: 5 }), { name: wrongType }, true],
      [
        'api-keys: unknown field',
        'POST',
        '/auth/api-keys/',
        () => ({ name: 'ci', scopes: ['all'] }),
        { scopes: unknown },
        true,
      ],
      ['api-keys: empty name', 'POST', '/auth/api-keys/', () => ({ name: '' }), { name: /empty/i }, true],
      ['api-keys: blank name', 'POST', '/auth/api-keys/', () => ({ name: '   ' }), { name: /empty/i }, true],
      [
        'api-keys: name of 101 characters',
        'POST',
        '/auth/api-keys/',
        () => ({ name: 'k'.repeat(101) }),
        { name: /100/ },
        true,
      ],
      ['logout: empty body', 'POST', '/auth/logout/', () => ({}), { refresh: required }, true],
      [
        'logout: unknown field',
        'POST',
        '/auth/logout/',
        () => ({ refresh: 'x', everywhere: true }),
        { everywhere: unknown },
        true,
      ],
    ];

    it.each(cases)(
      '%s -> 400 validation_error naming the field, nothing changed',
      async (_, method, path, makeBody, fields, authenticated) => {
        const email = uniqueEmail('fields');
        const before = await footprint(everyone, [email]);
        const reply = await req(method, path, makeBody(email), authenticated ? a.access : undefined);
        expectFieldErrors(reply, fields);
        expect(await footprint(everyone, [email])).toEqual(before);
        expect(before.withEmails).toBe(0);
      },
    );

    it('GET verify-email without ?token= -> 400 on token', async () => {
      expectFieldErrors(await req('GET', '/auth/verify-email/'), { token: required });
    });
  });

  describe('bodies that are not the expected JSON object', () => {
    const endpoints: [string, boolean][] = [
      ['/auth/register/', false],
      ['/auth/login/', false],
      ['/auth/refresh/', false],
      ['/auth/verify-email/', false],
      ['/auth/resend-verification/', false],
      ['/auth/api-keys/', true],
      ['/auth/logout/', true],
    ];
    const auth = (authenticated: boolean): Record<string, string> =>
      authenticated ? { Authorization: `Bearer ${a.access}` } : {};

    it.each(endpoints)('POST %s with unparseable JSON -> 400 invalid_json', async (path, authenticated) => {
      const before = await footprint(everyone);
      const reply = await raw(path, {
        body: '{"email": "ada@example.com", ',
        headers: { 'Content-Type': 'application/json', ...auth(authenticated) },
      });
      expectProblem(reply, 400, 'invalid_json');
      expect(await footprint(everyone)).toEqual(before);
    });

    it.each(endpoints)(
      'POST %s with a JSON body sent as text/plain -> 415 unsupported_media_type',
      async (path, authenticated) => {
        const email = uniqueEmail('plain');
        const before = await footprint(everyone, [email]);
        const body = JSON.stringify({ email, password: PASSWORD, name: 'x', token: 'x', refresh: 'x' });
        const reply = await raw(path, { body, headers: { 'Content-Type': 'text/plain', ...auth(authenticated) } });
        expectProblem(reply, 415, 'unsupported_media_type');
        expect(await footprint(everyone, [email])).toEqual(before);
      },
    );

    it.each(endpoints)(
      'POST %s with a JSON array instead of an object -> 400 validation_error',
      async (path, authenticated) => {
        const reply = await raw(path, {
          body: '[{"email": "ada@example.com"}]',
          headers: { 'Content-Type': 'application/json', ...auth(authenticated) },
        });
        expectProblem(reply, 400, 'validation_error');
      },
    );

    it.each([
      ['/auth/register/', false],
      ['/auth/login/', false],
      ['/auth/api-keys/', true],
    ] as [string, boolean][])(
      'POST %s with a 10 MB body -> 413 payload_too_large, nothing created',
      async (path, authenticated) => {
        const email = uniqueEmail('huge');
        const before = await footprint(everyone, [email]);
        const body = JSON.stringify({ email, password: PASSWORD, name: 'n'.repeat(TEN_MB) });
        expect(body.length).toBeGreaterThan(TEN_MB);
        const reply = await raw(path, {
          body,
          headers: { 'Content-Type': 'application/json', ...auth(authenticated) },
        });
        expectProblem(reply, 413, 'payload_too_large');
        expect(await footprint(everyone, [email])).toEqual(before);
        expect(await accountsWithEmail(email)).toBe(0);
      },
    );
  });

  describe('email addresses', () => {
    const longLocal = 'l'.repeat(64);
    // 255 characters: one more than an address may have.
    const tooLong = `${longLocal}@${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(50)}.example.com`;
    const invalid: [string, string][] = [
      ['no @', 'no-at-sign.example.com'],
      ['a space in the local part', 'two words@example.com'],
      ['a space in the domain', 'ada@exa mple.com'],
      ['two @', 'ada@@example.com'],
      ['no local part', '@example.com'],
      ['no domain', 'ada@'],
      ['empty', ''],
      ['only spaces', '   '],
      ['255 characters', tooLong],
      ['300 characters', `${'x'.repeat(288)}@example.com`],
    ];

    it('the 255-character case really has 255 characters', () => {
      expect(tooLong).toHaveLength(255);
    });

    it.each(invalid)('register with an email with %s -> 400 on email, no account', async (_, email) => {
      expectFieldErrors(await req('POST', '/auth/register/', { email, password: PASSWORD }), { email: /./ });
      expect(await accountsWithEmail(email)).toBe(0);
    });

    it.each(invalid)('login with an email with %s -> 400 on email', async (_, email) => {
      expectFieldErrors(await req('POST', '/auth/login/', { email, password: PASSWORD }), { email: /./ });
    });

    it.each(invalid)('resend-verification with an email with %s -> 400 on email', async (_, email) => {
      expectFieldErrors(await req('POST', '/auth/resend-verification/', { email }), { email: /./ });
    });

    it('an address of exactly 254 characters is accepted', async () => {
      const email = `${randomUUID().slice(0, 8)}${'l'.repeat(56)}@${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(49)}.example.com`;
      expect(email).toHaveLength(254);
      const reply = await req('POST', '/auth/register/', { email, password: PASSWORD });
      expect(reply.status).toBe(201);
      expect(reply.body.email).toBe(email);
    });
  });

  describe('password length (8-128 characters, counted in code points)', () => {
    it.each([
      ['7 ASCII characters', 'x'.repeat(7)],
      ['129 ASCII characters', 'x'.repeat(129)],
      ['7 emoji (14 UTF-16 units)', '😀'.repeat(7)],
      ['129 emoji', '😀'.repeat(129)],
      ['empty', ''],
    ])('%s -> 400 on password, no account', async (_, password) => {
      const email = uniqueEmail('pw-bad');
      expectFieldErrors(await req('POST', '/auth/register/', { email, password }), { password: /character/i });
      expect(await accountsWithEmail(email)).toBe(0);
    });

    it.each([
      ['8 ASCII characters', 'x'.repeat(8)],
      ['128 ASCII characters', 'x'.repeat(128)],
      ['8 emoji', '😀'.repeat(8)],
      ['128 emoji (256 UTF-16 units)', '🎤'.repeat(128)],
      ['8 CJK characters', '密码密码密码密码'],
      ['mixed scripts with combining marks', 'Pässwörd ñ 日本 ✓'],
    ])('%s -> 201, and that exact password opens the account', async (_, password) => {
      const email = uniqueEmail('pw-ok');
      const registered = await req('POST', '/auth/register/', { email, password });
      expect(registered.status).toBe(201);
      // Unverified: the right password is 403 email_not_verified, a wrong one 401.
      expectProblem(await req('POST', '/auth/login/', { email, password }), 403, 'email_not_verified');
      expectProblem(
        await req('POST', '/auth/login/', { email, password: `${password}x` }),
        401,
        'authentication_failed',
      );
    });
  });

  describe('unicode names', () => {
    it.each([
      ['accents, CJK and emoji', 'Zoë 山田太郎 🎤'],
      ['100 CJK characters', '語'.repeat(100)],
      ['right-to-left script', 'مرحبا بالعالم'],
    ])('a name with %s is accepted and returned unchanged', async (_, name) => {
      const reply = await req('POST', '/auth/register/', { email: uniqueEmail('name'), password: PASSWORD, name });
      expect(reply.status).toBe(201);
      expect(reply.body.name).toBe(name);
      expect((await deps.db('accounts').where({ id: reply.body.id }).first('name')).name).toBe(name);
    });

    it('a name of 101 characters -> 400 on name', async () => {
      const email = uniqueEmail('name-long');
      expectFieldErrors(await req('POST', '/auth/register/', { email, password: PASSWORD, name: '語'.repeat(101) }), {
        name: /100/,
      });
      expect(await accountsWithEmail(email)).toBe(0);
    });

    it('name length counts code points: 100 emoji are accepted, 101 are not', async () => {
      const name = '🎤'.repeat(100);
      const reply = await req('POST', '/auth/register/', {
        email: uniqueEmail('name-emoji'),
        password: PASSWORD,
        name,
      });
      expect(reply.status).toBe(201);
      expect(reply.body.name).toBe(name);
      const email = uniqueEmail('name-emoji-long');
      expectFieldErrors(await req('POST', '/auth/register/', { email, password: PASSWORD, name: '🎤'.repeat(101) }), {
        name: /100/,
      });
      expect(await accountsWithEmail(email)).toBe(0);
    });
  });

  describe('NUL characters in string fields', () => {
    const nul = '\u0000';
    const cases: [string, string, string, () => Record<string, unknown>, string, boolean][] = [
      [
        'register email',
        'POST',
        '/auth/register/',
        () => ({ email: `ada${nul}@example.com`, password: PASSWORD }),
        'email',
        false,
      ],
      [
        'register password',
        'POST',
        '/auth/register/',
        () => ({ email: uniqueEmail('nul'), password: `pass${nul}word-long` }),
        'password',
        false,
      ],
      [
        'register name',
        'POST',
        '/auth/register/',
        () => ({ email: uniqueEmail('nul'), password: PASSWORD, name: `Ada${nul}` }),
        'name',
        false,
      ],
      [
        'login email',
        'POST',
        '/auth/login/',
        () => ({ email: `${a.email}${nul}`, password: PASSWORD }),
        'email',
        false,
      ],
      [
        'login password',
        'POST',
        '/auth/login/',
        () => ({ email: a.email, password: `${PASSWORD}${nul}` }),
        'password',
        false,
      ],
      ['refresh token', 'POST', '/auth/refresh/', () => ({ refresh: `${a.refresh}${nul}` }), 'refresh', false],
      ['verification token', 'POST', '/auth/verify-email/', () => ({ token: `${nul}abc` }), 'token', false],
      ['resend email', 'POST', '/auth/resend-verification/', () => ({ email: `${u.email}${nul}` }), 'email', false],
      ['api key name', 'POST', '/auth/api-keys/', () => ({ name: `ci${nul}` }), 'name', true],
      ['logout refresh token', 'POST', '/auth/logout/', () => ({ refresh: `${a.refresh}${nul}` }), 'refresh', true],
    ];

    it.each(cases)(
      'a NUL in the %s -> 400 validation_error on that field, nothing changed',
      async (_, method, path, makeBody, field, authenticated) => {
        const body = makeBody();
        // (PostgreSQL cannot even look up a string holding NUL: count the address without it.)
        const emails = typeof body.email === 'string' ? [body.email.replace(nul, '')] : [];
        const before = await footprint(everyone, emails);
        expectFieldErrors(await req(method, path, body, authenticated ? a.access : undefined), { [field]: /NUL/ });
        expect(await footprint(everyone, emails)).toEqual(before);
      },
    );

    it('a NUL in the verify-email ?token= -> 400 on token', async () => {
      expectFieldErrors(await req('GET', '/auth/verify-email/?token=abc%00def'), { token: /./ });
    });

    it('a NUL in a field name -> 400 validation_error', async () => {
      const email = uniqueEmail('nul-key');
      const reply = await raw('/auth/register/', {
        body: `{"email": "${email}", "password": "${PASSWORD}", "na\\u0000me": "x"}`,
      });
      expectProblem(reply, 400, 'validation_error');
      expect(await accountsWithEmail(email)).toBe(0);
    });
  });

  describe('SQL injection', () => {
    it.each(SQL_INJECTIONS)('%j as email, password or token is rejected without effect', async (injection) => {
      const compact = injection.replace(/\s+/g, '');
      const before = await footprint(everyone, [
        injection,
        injection.toLowerCase(),
        `${compact}@example.com`.toLowerCase(),
      ]);

      expectFieldErrors(await req('POST', '/auth/register/', { email: injection, password: PASSWORD }), { email: /./ });
      expectFieldErrors(await req('POST', '/auth/login/', { email: injection, password: injection }), { email: /./ });
      expectFieldErrors(await req('POST', '/auth/login/', { email: `${a.email}${injection}`, password: PASSWORD }), {
        email: /./,
      });
      expectFieldErrors(await req('POST', '/auth/resend-verification/', { email: injection }), { email: /./ });
      // A real account's email with an injected password must not log in.
      expectProblem(
        await req('POST', '/auth/login/', { email: a.email, password: injection }),
        401,
        'authentication_failed',
      );
      // Shaped like an address: an invalid address or an unknown account, never a match-all.
      const shaped = await req('POST', '/auth/login/', { email: `${compact}@example.com`, password: injection });
      if (shaped.status === 400) expectFieldErrors(shaped, { email: /./ });
      else expectProblem(shaped, 401, 'authentication_failed');
      expectFieldErrors(await req('POST', '/auth/verify-email/', { token: injection }), { token: /./ });
      expectFieldErrors(await req('GET', `/auth/verify-email/?token=${encodeURIComponent(injection)}`), { token: /./ });
      expectProblem(await req('POST', '/auth/refresh/', { refresh: injection }), 401, 'token_invalid');
      expect401(await req('GET', '/auth/profile/', undefined, compact), 'token_invalid');
      expect401(await req('GET', '/auth/profile/', undefined, `vk_${compact}`), 'authentication_failed');

      // Nothing created, nothing verified, nothing dropped.
      expect(
        await footprint(everyone, [injection, injection.toLowerCase(), `${compact}@example.com`.toLowerCase()]),
      ).toEqual(before);
      expect(before.withEmails).toBe(0);
      expect((await req('GET', '/auth/profile/', undefined, a.access)).status).toBe(200);
    });
  });

  describe('JSON injection', () => {
    const operator = '{"$gt": ""}';
    it.each([
      [
        'login with operator objects as email and password',
        '/auth/login/',
        () => `{"email": ${operator}, "password": ${operator}}`,
        ['email', 'password'],
      ],
      [
        'login with a real email and {"$ne": null} as password',
        '/auth/login/',
        () => `{"email": "${a.email}", "password": {"$ne": null}}`,
        ['password'],
      ],
      [
        'register with an operator object as email',
        '/auth/register/',
        () => `{"email": ${operator}, "password": "${PASSWORD}"}`,
        ['email'],
      ],
      [
        'resend-verification with an operator object as email',
        '/auth/resend-verification/',
        () => `{"email": ${operator}}`,
        ['email'],
      ],
      [
        'verify-email with an operator object as token',
        '/auth/verify-email/',
        () => `{"token": {"$ne": null}}`,
        ['token'],
      ],
      ['refresh with an operator object as token', '/auth/refresh/', () => `{"refresh": ${operator}}`, ['refresh']],
    ] as [string, string, () => string, string[]][])('%s -> 400 on the field', async (_, path, makeBody, fields) => {
      const before = await footprint(everyone);
      const reply = await raw(path, { body: makeBody() });
      expectFieldErrors(reply, Object.fromEntries(fields.map((field) => [field, /type/i])));
      expect(await footprint(everyone)).toEqual(before);
    });

    const protoBodies: [string, string, (email: string) => string][] = [
      [
        'register with a "__proto__" member',
        '/auth/register/',
        (email) =>
          `{"email": "${email}", "password": "${PASSWORD}", "__proto__": {"email_verified_at": "2020-01-01T00:00:00Z", "subscription_tier": "enterprise"}}`,
      ],
      [
        'login with the credentials only inside "__proto__"',
        '/auth/login/',
        () => `{"__proto__": {"email": "${a.email}", "password": "${PASSWORD}"}}`,
      ],
      [
        'resend-verification with a "__proto__" member',
        '/auth/resend-verification/',
        (email) => `{"email": "${email}", "__proto__": {"polluted": true}}`,
      ],
    ];
    const expectNoPollution = () => {
      const probe = {} as Record<string, unknown>;
      expect([probe.email_verified_at, probe.subscription_tier, probe.polluted, probe.email]).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
    };

    it.each(protoBodies)('%s -> 400, nothing created, no prototype polluted', async (_, path, makeBody) => {
      const email = uniqueEmail('proto');
      const before = await footprint(everyone, [email]);
      const reply = await raw(path, { body: makeBody(email) });
      expect(reply.status).toBe(400);
      expect(['validation_error', 'invalid_json']).toContain(reply.body.code);
      expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await footprint(everyone, [email])).toEqual(before);
      expect(await accountsWithEmail(email)).toBe(0);
      expectNoPollution();
    });

    it('a "__proto__" member is reported as an unknown field (400 validation_error)', async () => {
      const email = uniqueEmail('proto-code');
      const reply = await raw('/auth/register/', { body: protoBodies[0][2](email) });
      expectFieldErrors(reply, { ['__proto__']: /unknown/i });
    });

    it('a "constructor": {"prototype": ...} member creates nothing and pollutes no prototype', async () => {
      const email = uniqueEmail('ctor');
      const before = await footprint(everyone, [email]);
      const reply = await raw('/auth/register/', {
        body: `{"email": "${email}", "password": "${PASSWORD}", "constructor": {"prototype": {"email_verified_at": "2020-01-01T00:00:00Z"}}}`,
      });
      expect(reply.status).not.toBe(201);
      expect(await footprint(everyone, [email])).toEqual(before);
      expect(await accountsWithEmail(email)).toBe(0);
      expectNoPollution();
    });

    // Field names that are Object.prototype members must be reported like any other.
    it.each([
      ['constructor', '/auth/register/', (email: string) => ({ email, password: PASSWORD })],
      ['toString', '/auth/register/', (email: string) => ({ email, password: PASSWORD })],
      ['valueOf', '/auth/login/', (email: string) => ({ email, password: PASSWORD })],
      ['hasOwnProperty', '/auth/resend-verification/', (email: string) => ({ email })],
      ['constructor', '/auth/api-keys/', () => ({ name: 'ci' })],
    ])('an unknown field named "%s" on %s -> 400 validation_error naming it', async (field, path, makeBody) => {
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${a.access}`,
      };
      const body = { ...makeBody(uniqueEmail('ctor')), [field]: { prototype: { polluted: true } } };
      expectFieldErrors(await raw(path, { body: JSON.stringify(body), headers }), { [field]: /unknown/i });
    });
  });

  describe('verification tokens', () => {
    it('a used token -> 400 on token (POST and GET), credits granted once', async () => {
      expectFieldErrors(await req('POST', '/auth/verify-email/', { token: a.verificationToken }), { token: /./ });
      expectFieldErrors(await req('GET', `/auth/verify-email/?token=${a.verificationToken}`), { token: /./ });
      expect(await ledgerOf(a.id)).toBe(1);
    });

    it.each([
      ['a random URL-safe token', () => randomBytes(32).toString('base64url')],
      [
        "an unverified account's live token with its last character changed",
        () => `${u.verificationToken.slice(0, -1)}${u.verificationToken.endsWith('A') ? 'B' : 'A'}`,
      ],
      ["an unverified account's live token with a character appended", () => `${u.verificationToken}A`],
      ['a 10 000-character token', () => 't'.repeat(10_000)],
    ])('%s -> 400 on token, nothing verified', async (_, makeToken) => {
      const before = await footprint(everyone);
      expectFieldErrors(await req('POST', '/auth/verify-email/', { token: makeToken() }), { token: /./ });
      expect(await footprint(everyone)).toEqual(before);
    });

    it('after a resend the older token is rejected and the newer one verifies', async () => {
      const email = uniqueEmail('superseded');
      const registered = await req('POST', '/auth/register/', { email, password: PASSWORD });
      expect(registered.status).toBe(201);
      const first = await waitForVerificationToken(deps.config.MAIL_DIR, email, 1);
      expect((await req('POST', '/auth/resend-verification/', { email })).status).toBe(202);
      const second = await waitForVerificationToken(deps.config.MAIL_DIR, email, 2);
      expect(second).not.toBe(first);

      expectFieldErrors(await req('POST', '/auth/verify-email/', { token: first }), { token: /./ });
      expect(await ledgerOf(registered.body.id)).toBe(0);
      expectProblem(await req('POST', '/auth/login/', { email, password: PASSWORD }), 403, 'email_not_verified');

      expect(await req('POST', '/auth/verify-email/', { token: second })).toMatchObject({
        status: 200,
        body: { email_verified: true },
      });
      expectFieldErrors(await req('GET', `/auth/verify-email/?token=${first}`), { token: /./ });
      expect(await ledgerOf(registered.body.id)).toBe(1);
    });
  });

  describe('bearer tokens', () => {
    const key = () => loadSigningKey(deps.config);
    const wrongKey = new TextEncoder().encode('a-different-secret-of-at-least-32-characters');

    it('control: a token made by the test helper with the real key is accepted', async () => {
      const reply = await req('GET', '/auth/profile/', undefined, await signToken(key(), a.id));
      expect(reply.status).toBe(200);
      expect(reply.body.id).toBe(a.id);
    });

    it.each([
      ['an alg "none" token', async () => unsignedToken(a.id)],
      ['a token signed with a wrong key', async () => signToken(wrongKey, a.id)],
      ['a token signed with the real key but HS512', async () => signToken(key(), a.id, { alg: 'HS512' })],
      ['a token for an account that does not exist', async () => signToken(key(), randomUUID())],
      ['a token with another issuer', async () => signToken(key(), a.id, { claims: { iss: 'someone-else' } })],
      [
        'an access token_type with the refresh audience',
        async () => signToken(key(), a.id, { claims: { aud: 'openvox:refresh' } }),
      ],
      ['a token with no sub', async () => signToken(key(), a.id, { claims: { sub: undefined } })],
      ['something that is not a JWT', async () => 'not.a.jwt'],
      ['a refresh token used as an access token', async () => a.refresh],
    ])('%s -> 401 token_invalid', async (_, makeToken) => {
      expect401(await req('GET', '/auth/profile/', undefined, await makeToken()), 'token_invalid');
      expect401(await req('GET', '/auth/api-keys/', undefined, await makeToken()), 'token_invalid');
    });

    it('a real access token whose sub was changed to another account -> 401 token_invalid', async () => {
      const tampered = tamperPayload(a.access, { sub: b.id });
      expect(claimsOf(tampered).sub).toBe(b.id);
      expect(tampered.split('.')[2]).toBe(a.access.split('.')[2]);
      expect401(await req('GET', '/auth/profile/', undefined, tampered), 'token_invalid');
    });

    it('an access token signed with the real key but a past exp -> 401 token_expired', async () => {
      const expired = await signToken(key(), a.id, { exp: Math.floor(Date.now() / 1000) - 60 });
      expect401(await req('GET', '/auth/profile/', undefined, expired), 'token_expired');
    });

    it('a refresh token signed with the real key but a past exp -> 401 token_expired on /refresh', async () => {
      const expired = await signToken(key(), a.id, { type: 'refresh', exp: Math.floor(Date.now() / 1000) - 60 });
      expectProblem(await req('POST', '/auth/refresh/', { refresh: expired }), 401, 'token_expired');
    });

    it('an access token presented to /refresh and to /logout -> 401 token_invalid, session untouched', async () => {
      const before = await footprint(everyone);
      expectProblem(await req('POST', '/auth/refresh/', { refresh: a.access }), 401, 'token_invalid');
      expectProblem(await req('POST', '/auth/logout/', { refresh: a.access }, a.access), 401, 'token_invalid');
      expect(await footprint(everyone)).toEqual(before);
    });

    it('a refresh token with a tampered family -> 401 token_invalid on /refresh', async () => {
      const before = await footprint(everyone);
      expectProblem(
        await req('POST', '/auth/refresh/', { refresh: tamperPayload(a.refresh, { fam: randomUUID() }) }),
        401,
        'token_invalid',
      );
      expect(await footprint(everyone)).toEqual(before);
    });

    it("another account's refresh token on /logout -> 401, its session untouched", async () => {
      const before = await footprint(everyone);
      expectProblem(await req('POST', '/auth/logout/', { refresh: b.refresh }, a.access), 401, 'token_invalid');
      expect(await footprint(everyone)).toEqual(before);
    });
  });

  describe('API keys', () => {
    it('a deleted API key -> 401 authentication_failed', async () => {
      const created = await req('POST', '/auth/api-keys/', { name: 'short-lived' }, a.access);
      expect((await req('GET', '/auth/profile/', undefined, created.body.key)).status).toBe(200);
      expect((await req('DELETE', `/auth/api-keys/${created.body.id}/`, undefined, a.access)).status).toBe(204);
      expect401(await req('GET', '/auth/profile/', undefined, created.body.key), 'authentication_failed');
      expect401(
        await req('POST', '/auth/api-keys/', { name: 'via-deleted' }, created.body.key),
        'authentication_failed',
      );
    });

    it.each([
      ['a random vk_ key', () => `vk_${randomBytes(32).toString('base64url')}`],
      ['a bare "vk_"', () => 'vk_'],
      [
        "another account's key with one character changed",
        () => `${bKey.key.slice(0, -1)}${bKey.key.endsWith('A') ? 'B' : 'A'}`,
      ],
    ])('%s that matches no key -> 401 authentication_failed', async (_, makeKey) => {
      expect401(await req('GET', '/auth/profile/', undefined, makeKey()), 'authentication_failed');
    });

    it("DELETE of another account's key id -> 404 not_found, the key keeps working", async () => {
      const before = await footprint(everyone);
      expectProblem(await req('DELETE', `/auth/api-keys/${bKey.id}/`, undefined, a.access), 404, 'not_found');
      expect(await footprint(everyone)).toEqual(before);
      const viaKey = await req('GET', '/auth/profile/', undefined, bKey.key);
      expect(viaKey.status).toBe(200);
      expect(viaKey.body.id).toBe(b.id);
    });

    it.each([
      ['an unknown uuid', () => randomUUID()],
      ['a malformed id', () => 'not-a-uuid'],
    ])('DELETE of %s -> 404 not_found', async (_, makeId) => {
      expectProblem(await req('DELETE', `/auth/api-keys/${makeId()}/`, undefined, a.access), 404, 'not_found');
    });

    it("another account's key id and an unknown id get the same 404 answer", async () => {
      const theirs = await req('DELETE', `/auth/api-keys/${bKey.id}/`, undefined, a.access);
      const unknown = await req('DELETE', `/auth/api-keys/${randomUUID()}/`, undefined, a.access);
      const { request_id: _a, ...theirsBody } = theirs.body;
      const { request_id: _b, ...unknownBody } = unknown.body;
      expect(theirsBody).toEqual(unknownBody);
    });
  });

  describe('Authorization header', () => {
    const protectedCalls: [string, string, string, (() => unknown) | undefined][] = [
      ['GET', '/auth/profile/', '', undefined],
      ['GET', '/auth/api-keys/', '', undefined],
      ['POST', '/auth/api-keys/', '', () => ({ name: 'no-auth' })],
      ['DELETE', '/auth/api-keys/', '{key}/', undefined],
      ['POST', '/auth/logout/', '', () => ({ refresh: a.refresh })],
    ];

    it.each(protectedCalls)(
      '%s %s%s without Authorization -> 401 not_authenticated with WWW-Authenticate: Bearer',
      async (method, path, suffix, makeBody) => {
        const before = await footprint(everyone);
        const reply = await req(method, `${path}${suffix.replace('{key}', bKey.id)}`, makeBody?.());
        expectProblem(reply, 401, 'not_authenticated');
        expect(reply.headers.get('www-authenticate')).toBe('Bearer');
        expect(await footprint(everyone)).toEqual(before);
      },
    );

    it.each([
      ['Basic credentials', 'Basic dXNlcjpwYXNzd29yZA=='],
      ['"Bearer" with no token', 'Bearer'],
      ['another scheme with a real token', 'Token {access}'],
      ['a token with no scheme', '{access}'],
    ])('%s -> 401 not_authenticated', async (_, header) => {
      const reply = await send(`${family}/auth/profile/`, {
        method: 'GET',
        headers: { Authorization: header.replace('{access}', a.access) },
      });
      expectProblem(reply, 401, 'not_authenticated');
      expect(reply.headers.get('www-authenticate')).toBe('Bearer');
    });

    it('control: the scheme is case-insensitive ("bearer <token>" works)', async () => {
      const reply = await send(`${family}/auth/profile/`, {
        method: 'GET',
        headers: { Authorization: `bearer ${a.access}` },
      });
      expect(reply.status).toBe(200);
    });
  });

  describe('login failures do not reveal which part was wrong', () => {
    const essentials = (reply: Reply) => ({
      status: reply.status,
      code: reply.body.code,
      title: reply.body.title,
      detail: reply.body.detail,
      errors: reply.body.errors,
    });

    it('a wrong password and an unknown email get the same status, code and detail', async () => {
      const before = await footprint(everyone);
      const wrongPassword = await req('POST', '/auth/login/', { email: a.email, password: 'not the password' });
      const unknownEmail = await req('POST', '/auth/login/', {
        email: uniqueEmail('nobody'),
        password: 'not the password',
      });
      expectProblem(wrongPassword, 401, 'authentication_failed');
      expect(essentials(unknownEmail)).toEqual(essentials(wrongPassword));
      expect(await footprint(everyone)).toEqual(before);
    });

    it('a wrong password on an unverified account is 401 authentication_failed, not 403', async () => {
      const wrongOnUnverified = await req('POST', '/auth/login/', { email: u.email, password: 'not the password' });
      const wrongOnVerified = await req('POST', '/auth/login/', { email: a.email, password: 'not the password' });
      expectProblem(wrongOnUnverified, 401, 'authentication_failed');
      expect(essentials(wrongOnUnverified)).toEqual(essentials(wrongOnVerified));
      // control: the right password on that account is the 403
      expectProblem(
        await req('POST', '/auth/login/', { email: u.email, password: PASSWORD }),
        403,
        'email_not_verified',
      );
    });
  });
});

describe('expired verification tokens (VERIFICATION_TTL=1)', () => {
  const { deps: shortDeps, api: shortApi } = useStack({ worker: true, env: { VERIFICATION_TTL: '1' } });
  const signups = new Map<string, { id: string; email: string; token: string }>();

  beforeAll(async () => {
    // One account per family; both tokens expire during one wait.
    await Promise.all(
      FAMILIES.map(async ([family]) => {
        const email = uniqueEmail('expired');
        const registered = await call(shortApi.url, 'POST', `${family}/auth/register/`, { email, password: PASSWORD });
        expect(registered.status).toBe(201);
        signups.set(family, {
          id: registered.body.id,
          email,
          token: await waitForVerificationToken(shortDeps.config.MAIL_DIR, email),
        });
      }),
    );
    const ids = [...signups.values()].map((signup) => signup.id);
    const latest = await shortDeps
      .db('email_verification_tokens')
      .whereIn('account_id', ids)
      .max({ expires_at: 'expires_at' })
      .first();
    const wait = new Date(latest!.expires_at).getTime() - Date.now() + 250;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
  });

  it.each(FAMILIES)(
    'under %s: an expired token -> 400 on token; the account stays unverified and can ask for a resend',
    async (family) => {
      const signup = signups.get(family)!;
      const reply = await call(shortApi.url, 'POST', `${family}/auth/verify-email/`, { token: signup.token });
      expectFieldErrors(reply, { token: /./ });
      expectFieldErrors(await call(shortApi.url, 'GET', `${family}/auth/verify-email/?token=${signup.token}`), {
        token: /./,
      });
      const account = await shortDeps
        .db('accounts')
        .where({ id: signup.id })
        .first('email_verified_at', 'credit_balance');
      expect(account).toEqual({ email_verified_at: null, credit_balance: '0' });
      expect(await count(shortDeps.db('credit_ledger').where({ account_id: signup.id }))).toBe(0);
      expectProblem(
        await call(shortApi.url, 'POST', `${family}/auth/login/`, { email: signup.email, password: PASSWORD }),
        403,
        'email_not_verified',
      );

      expect(
        (await call(shortApi.url, 'POST', `${family}/auth/resend-verification/`, { email: signup.email })).status,
      ).toBe(202);
      const fresh = await waitForVerificationToken(shortDeps.config.MAIL_DIR, signup.email, 2);
      expect(fresh).not.toBe(signup.token);
    },
  );
});
