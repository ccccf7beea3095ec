import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDeps, type RunningApi, startApi, startTestWorker } from '../helpers/stack';

const run = promisify(execFile);
const README = path.join(__dirname, '../../README.md');

/** The bash blocks of README's "Using the API" section, exactly as a reader pastes them: the first session, then the OpenAI example. */
async function usingTheApiBlocks(): Promise<string[]> {
  const readme = await readFile(README, 'utf8');
  const section = readme.slice(
    readme.indexOf('## Using the API\n'),
    readme.indexOf('\n## ', readme.indexOf('## Using the API\n') + 1),
  );
  const blocks = [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1]);
  if (blocks.length === 0) throw new Error('README has no bash block under "Using the API"');
  return blocks;
}
const firstSessionBlock = async () => (await usingTheApiBlocks())[0];

describe('README first session', () => {
  let cwd: string;
  let deps: ReturnType<typeof createTestDeps>;
  let api: RunningApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;

  beforeAll(async () => {
    // The block reads mail from .data/mail relative to where it runs: a fresh directory stands in for the checkout.
    cwd = await mkdtemp(path.join(tmpdir(), 'openvox-readme-'));
    deps = createTestDeps({ MAIL_DIR: path.join(cwd, '.data/mail') });
    [api, worker] = await Promise.all([startApi(deps), startTestWorker(deps)]);
  });
  afterAll(async () => {
    await api?.close();
    await worker?.shutdown();
    await deps?.close();
    await rm(cwd, { recursive: true, force: true });
  });

  it('registers, verifies, logs in, synthesizes, polls and downloads with the commands as written', async () => {
    const script = await firstSessionBlock();
    expect(script).toContain('OPENVOX=${OPENVOX:-http://localhost:3000}');
    const email = `readme-${Date.now()}@example.com`;
    // bash -e -o pipefail: every command of the block must succeed, as it would for a reader watching for errors.
    const { stdout } = await run('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd,
      env: { ...process.env, OPENVOX: api.url, EMAIL: email },
      timeout: 120_000,
    });
    // Each answer on its own line: the register answer, then the verification's, then the profile.
    const lines = stdout.split('\n');
    expect(JSON.parse(lines[0])).toMatchObject({ email, email_verified: false });
    expect(lines[1]).toBe('{"email_verified":true}');
    expect(stdout).toMatch(/"credit_balance": 35000/);
    expect(stdout.trim().split('\n').at(-1)).toBe('completed');

    const audio = await readFile(path.join(cwd, 'hello.mp3'));
    // An MP3 starts with an ID3 tag or an MPEG frame sync.
    const mp3 = audio.subarray(0, 3).toString('latin1') === 'ID3' || (audio[0] === 0xff && (audio[1] & 0xe0) === 0xe0);
    expect(mp3).toBe(true);
    expect(audio.length).toBeGreaterThan(1000);
  });

  it("pasted again with the same address, it shows the API's reasons instead of a bare curl exit", async () => {
    const script = await firstSessionBlock();
    const email = `readme-again-${Date.now()}@example.com`;
    const env = { ...process.env, OPENVOX: api.url, EMAIL: email };
    await run('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env, timeout: 120_000 });
    // An interactive shell goes on after a failed command: no -e here.
    const again = await run('bash', ['-c', script], { cwd, env, timeout: 120_000 });
    const lines = again.stdout.split('\n');
    expect(JSON.parse(lines[0])).toMatchObject({ status: 409, code: 'email_taken', detail: expect.any(String) });
    expect(JSON.parse(lines[1])).toMatchObject({
      status: 400,
      code: 'validation_error',
      errors: { token: expect.any(Array) },
    });
    // The rest of the session still works: the account exists and is verified.
    expect(lines.filter(Boolean).at(-1)).toBe('completed');
  });

  it("the OpenAI example after it works with the session's $ACCESS, in the same shell", async () => {
    const [session, openai] = await usingTheApiBlocks();
    expect(openai).toContain('/v1/audio/speech');
    expect(openai).toContain('Bearer $ACCESS');
    // No player here: the stream goes to a file instead of ffplay.
    const streamed = openai.replace(/\| ffplay [^\n]*/, '> speech.mp3');
    expect(streamed).not.toBe(openai);
    const email = `readme-openai-${Date.now()}@example.com`;
    await run('bash', ['-e', '-o', 'pipefail', '-c', `${session}\n${streamed}`], {
      cwd,
      env: { ...process.env, OPENVOX: api.url, EMAIL: email },
      timeout: 120_000,
    });
    const audio = await readFile(path.join(cwd, 'speech.mp3'));
    expect(audio.subarray(0, 3).toString('latin1') === 'ID3' || (audio[0] === 0xff && (audio[1] & 0xe0) === 0xe0)).toBe(
      true,
    );
  });

  it('writes the verification mail in 7bit, so the token greps whole', async () => {
    const { stdout } = await run('bash', ['-c', 'grep -h "^Content-Transfer-Encoding" .data/mail/*.eml | sort -u'], {
      cwd,
    });
    expect(stdout.trim()).toBe('Content-Transfer-Encoding: 7bit');
  });

  it.each(['/api/v1/', '/api/', '/api/v1', '/'])('%s answers with an index of resources', async (indexPath) => {
    const response = await fetch(`${api.url}${indexPath}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { resources: Record<string, string> };
    const prefix = indexPath.startsWith('/api/') && !indexPath.startsWith('/api/v1') ? '/api/' : '/api/v1/';
    expect(body.resources.synthesize).toBe(`${prefix}tts/synthesize/`);
    // The OpenAI-compatible paths keep OpenAI's own base (the server's /v1) in the unversioned family.
    for (const [name, resourcePath] of Object.entries(body.resources)) {
      const base = prefix === '/api/' && name.startsWith('openai_') ? '/v1/' : prefix;
      expect({ name, base: resourcePath.slice(0, base.length) }).toEqual({ name, base });
    }
  });
});
