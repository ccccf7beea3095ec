import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, PASSWORD, uniqueEmail } from '../helpers/accounts';
import { createTestDeps, type RunningApi, startApi } from '../helpers/stack';

/**
 * The sign-up answer says where the verification mail went only on a
 * development server that writes mail to files (no SMTP_URL): a person in a
 * browser learns to look there. Production, or any server with SMTP, says
 * nothing of its files.
 */
const servers: { deps: ReturnType<typeof createTestDeps>; api: RunningApi }[] = [];
let mailDir: string;

async function serverWith(env: NodeJS.ProcessEnv): Promise<RunningApi> {
  const deps = createTestDeps(env);
  const api = await startApi(deps);
  servers.push({ deps, api });
  return api;
}
const register = (api: RunningApi, family: string) =>
  call(api.url, 'POST', `${family}/auth/register/`, { email: uniqueEmail('mailhint'), password: PASSWORD });

beforeAll(async () => {
  mailDir = await mkdtemp(path.join(tmpdir(), 'openvox-mailhint-'));
});
afterAll(async () => {
  for (const { deps, api } of servers) {
    await api.close();
    await deps.close();
  }
  await rm(mailDir, { recursive: true, force: true });
});

describe.each([['/api/v1'], ['/api']])('POST %s/auth/register/', (family) => {
  it('in development without SMTP_URL, names the directory the mail was written to', async () => {
    const api = await serverWith({ NODE_ENV: 'development', SMTP_URL: undefined, MAIL_DIR: mailDir });
    const answer = await register(api, family);
    expect(answer.status).toBe(201);
    expect(answer.body.verification_mail).toEqual({ delivery: 'file', directory: mailDir });
  });

  it('names it relative to the working directory when it is inside it', async () => {
    const api = await serverWith({
      NODE_ENV: 'development',
      SMTP_URL: undefined,
      MAIL_DIR: path.join(process.cwd(), '.data', 'mail-hint-test'),
    });
    expect((await register(api, family)).body.verification_mail).toEqual({
      delivery: 'file',
      directory: path.join('.data', 'mail-hint-test'),
    });
  });

  it('says nothing in production, in tests, or when mail goes out through SMTP', async () => {
    for (const env of [
      {
        NODE_ENV: 'production',
        JWT_SECRET: 'a production secret of forty-eight characters...',
        SMTP_URL: undefined,
        MAIL_DIR: mailDir,
      },
      { NODE_ENV: 'test', SMTP_URL: undefined, MAIL_DIR: mailDir },
      { NODE_ENV: 'development', SMTP_URL: 'smtp://127.0.0.1:9', MAIL_DIR: mailDir },
    ]) {
      const answer = await register(await serverWith(env), family);
      expect({ env, status: answer.status }).toEqual({ env, status: 201 });
      expect(Object.keys(answer.body).sort()).toEqual(['created_at', 'email', 'email_verified', 'id', 'name']);
    }
  });
});
