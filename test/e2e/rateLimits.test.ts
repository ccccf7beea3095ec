import type { Knex } from 'knex';
import { PASSWORD, uniqueEmail, waitForVerificationToken } from '../helpers/accounts';
import { useStack } from '../helpers/stack';
import { call, expectProblem, readReply, type Reply } from '../helpers/http';

/**
 * API.md "Rate limits": per client IP and per email, 429 rate_limited with
 * Retry-After, and 0 turns a limit off. The test environment turns every
 * limit off; these stacks turn them on. Counters live in the shared
 * rate_limit_counters table, cleared before each test.
 */

const FAMILIES = [['/api/v1'], ['/api']];
const HOUR = 3600;
const MINUTE = 60;

function clearCounters(db: Knex): Promise<number> {
  return db('rate_limit_counters')
    .where((query) =>
      query.where('key', 'like', 'register:%').orWhere('key', 'like', 'login:%').orWhere('key', 'like', 'resend:%'),
    )
    .del();
}

/**
 * The limits count in fixed windows: if the current one is about to end, wait
 * for the next, so that a test's requests all land in one window.
 */
async function inOneWindow(windowSeconds: number): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < 5000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** 429 rate_limited with a Retry-After of whole seconds, at most the window. */
function expectRateLimited(reply: Reply, windowSeconds: number): number {
  expectProblem(reply, 429, 'rate_limited');
  const retryAfter = reply.headers.get('retry-after');
  expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
  expect(Number(retryAfter)).toBeLessThanOrEqual(windowSeconds);
  return Number(retryAfter);
}

async function count(query: Knex.QueryBuilder): Promise<number> {
  const [row] = await query.count({ n: '*' });
  return Number((row as { n: string | number }).n);
}

async function sendWith(url: string, path: string, body: unknown, headers: Record<string, string>): Promise<Reply> {
  return readReply(
    await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }),
  );
}

describe('with rate limits on', () => {
  const stack = useStack({
    worker: true,
    env: {
      RATE_LIMIT_REGISTER_PER_HOUR: '3',
      RATE_LIMIT_LOGIN_PER_MINUTE: '6',
      RATE_LIMIT_LOGIN_PER_EMAIL_PER_MINUTE: '2',
      RATE_LIMIT_RESEND_PER_HOUR: '2',
    },
  });
  const { deps } = stack;
  beforeEach(() => clearCounters(deps.db));

  describe.each(FAMILIES)('under %s', (family) => {
    const req = (method: string, path: string, body?: unknown, token?: string) =>
      call(stack.api.url, method, `${family}${path}`, body, token);
    const register = (email: string) => req('POST', '/auth/register/', { email, password: PASSWORD });
    const login = (email: string, password = 'not the password') => req('POST', '/auth/login/', { email, password });
    const resend = (email: string) => req('POST', '/auth/resend-verification/', { email });

    it('register: the 4th registration from one IP in an hour -> 429 with Retry-After, and no account', async () => {
      await inOneWindow(HOUR);
      for (let i = 0; i < 3; i++) expect((await register(uniqueEmail('rl-reg'))).status).toBe(201);
      const email = uniqueEmail('rl-reg-4th');
      expectRateLimited(await register(email), HOUR);
      expect(await count(deps.db('accounts').where({ email }))).toBe(0);
    });

    it('register: X-Forwarded-For does not escape the per-IP limit (TRUST_PROXY off)', async () => {
      await inOneWindow(HOUR);
      for (let i = 0; i < 3; i++) expect((await register(uniqueEmail('rl-xff'))).status).toBe(201);
      const email = uniqueEmail('rl-xff-4th');
      const spoofed = await sendWith(
        stack.api.url,
        `${family}/auth/register/`,
        { email, password: PASSWORD },
        { 'X-Forwarded-For': '203.0.113.7' },
      );
      expectRateLimited(spoofed, HOUR);
      expect(await count(deps.db('accounts').where({ email }))).toBe(0);
    });

    it('login per IP: the 7th attempt in a minute -> 429, even with the right password, and no session', async () => {
      const email = uniqueEmail('rl-login-ip');
      expect((await register(email)).status).toBe(201);
      const token = await waitForVerificationToken(deps.config.MAIL_DIR, email);
      expect((await req('POST', '/auth/verify-email/', { token })).status).toBe(200);
      const { id } = await deps.db('accounts').where({ email }).first('id');

      await inOneWindow(MINUTE);
      // Distinct emails, so the per-email limit (2) is never the one reached.
      for (let i = 0; i < 6; i++) expectProblem(await login(uniqueEmail('rl-nobody')), 401, 'authentication_failed');
      expectRateLimited(await login(email, PASSWORD), MINUTE);
      expect(await count(deps.db('refresh_token_families').where({ account_id: id }))).toBe(0);
    });

    it('login per email: the 3rd attempt for one email -> 429; other emails are not limited; the email is normalised', async () => {
      const email = uniqueEmail('rl-login-email');
      await inOneWindow(MINUTE);
      expectProblem(await login(email), 401, 'authentication_failed');
      expectProblem(await login(email), 401, 'authentication_failed');
      expectRateLimited(await login(email), MINUTE);
      expectProblem(await login(uniqueEmail('rl-other')), 401, 'authentication_failed');
      expectRateLimited(await login(`  ${email.toUpperCase()} `), MINUTE);
    });

    it('resend: limited alike for a known and an unknown email (same status sequence)', async () => {
      const known = uniqueEmail('rl-resend-known');
      expect((await register(known)).status).toBe(201);
      await waitForVerificationToken(deps.config.MAIL_DIR, known);
      const unknown = uniqueEmail('rl-resend-unknown');

      await inOneWindow(HOUR);
      const knownReplies: Reply[] = [];
      const unknownReplies: Reply[] = [];
      for (let i = 0; i < 4; i++) {
        knownReplies.push(await resend(known));
        unknownReplies.push(await resend(unknown));
      }
      const statuses = (replies: Reply[]) => replies.map((reply) => reply.status);
      expect(statuses(knownReplies)).toEqual([202, 202, 429, 429]);
      expect(statuses(unknownReplies)).toEqual(statuses(knownReplies));
      expect(knownReplies[0].body).toEqual(unknownReplies[0].body);
      for (const reply of [...knownReplies.slice(2), ...unknownReplies.slice(2)]) expectRateLimited(reply, HOUR);
      const essentials = (reply: Reply) => ({
        code: reply.body.code,
        title: reply.body.title,
        status: reply.body.status,
      });
      expect(essentials(unknownReplies[2])).toEqual(essentials(knownReplies[2]));
      // Another email is counted apart.
      expect((await resend(uniqueEmail('rl-resend-third'))).status).toBe(202);
    });
  });

  it('both path families share one register counter per IP', async () => {
    await inOneWindow(HOUR);
    const register = (family: string) =>
      call(stack.api.url, 'POST', `${family}/auth/register/`, { email: uniqueEmail('rl-shared'), password: PASSWORD });
    expect((await register('/api/v1')).status).toBe(201);
    expect((await register('/api')).status).toBe(201);
    expect((await register('/api/v1')).status).toBe(201);
    expectRateLimited(await register('/api'), HOUR);
    expectRateLimited(await register('/api/v1'), HOUR);
  });

  it('both path families share one login counter per email', async () => {
    await inOneWindow(MINUTE);
    const email = uniqueEmail('rl-shared-login');
    const login = (family: string) =>
      call(stack.api.url, 'POST', `${family}/auth/login/`, { email, password: 'not the password' });
    expect((await login('/api/v1')).status).toBe(401);
    expect((await login('/api')).status).toBe(401);
    expectRateLimited(await login('/api/v1'), MINUTE);
  });
});

describe('a limit of 0 is off', () => {
  // Register, login per IP and resend off; login per email on, to show the settings are independent.
  const stack = useStack({
    worker: true,
    env: {
      RATE_LIMIT_REGISTER_PER_HOUR: '0',
      RATE_LIMIT_LOGIN_PER_MINUTE: '0',
      RATE_LIMIT_LOGIN_PER_EMAIL_PER_MINUTE: '2',
      RATE_LIMIT_RESEND_PER_HOUR: '0',
    },
  });
  beforeEach(() => clearCounters(stack.deps.db));

  it.each(FAMILIES)(
    'under %s: many registers, logins and resends pass; the one limit left on still applies',
    async (family) => {
      const req = (path: string, body: unknown) => call(stack.api.url, 'POST', `${family}${path}`, body);
      await inOneWindow(MINUTE);
      for (let i = 0; i < 5; i++)
        expect((await req('/auth/register/', { email: uniqueEmail('rl-off'), password: PASSWORD })).status).toBe(201);
      // More logins from one IP than the default per-IP limit's worth would matter for: distinct emails, all plain 401s.
      const logins = [];
      for (let i = 0; i < 12; i++)
        logins.push(
          (await req('/auth/login/', { email: uniqueEmail('rl-off-nobody'), password: 'not the password' })).status,
        );
      expect(logins).toEqual(Array(12).fill(401));
      // More resends for one email than the default (5 per hour).
      const email = uniqueEmail('rl-off-resend');
      const resends = [];
      for (let i = 0; i < 7; i++) resends.push((await req('/auth/resend-verification/', { email })).status);
      expect(resends).toEqual(Array(7).fill(202));

      const limited = uniqueEmail('rl-off-limited');
      expect((await req('/auth/login/', { email: limited, password: 'not the password' })).status).toBe(401);
      expect((await req('/auth/login/', { email: limited, password: 'not the password' })).status).toBe(401);
      expectRateLimited(await req('/auth/login/', { email: limited, password: 'not the password' }), MINUTE);
    },
  );
});
