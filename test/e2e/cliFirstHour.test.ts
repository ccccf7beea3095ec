import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Io, runCli } from '../../cli/program';
import { KOKORO_DIR, KOKORO_MODEL } from '../../engines/kokoro';
import { PASSWORD, uniqueEmail } from '../helpers/accounts';
import { createVoice } from '../helpers/factories';
import { call } from '../helpers/http';
import { useStack } from '../helpers/stack';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '../..');

/** A port nothing listens on: one the system gave a server just closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What a new user of the CLI tripped over in the first hour (issue "The first hour, round 3", item 11). */
describe('openvox CLI, the first hour', () => {
  const { deps, api } = useStack({ worker: true });
  let dir: string;
  let email: string;
  let accountId: string;
  let access: string;
  let env: NodeJS.ProcessEnv;

  async function openvox(args: string[], extra: NodeJS.ProcessEnv = {}, io: Partial<Io> = {}) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      out: (text) => (stdout += text),
      err: (text) => (stderr += text),
      env: { ...process.env, OPENVOX_CONFIG: path.join(dir, 'none.json'), ...env, ...extra },
      tty: false,
      ...io,
    });
    return { code, stdout, stderr, json: () => JSON.parse(stdout) };
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'openvox-cli-first-hour-'));
    env = {};
    email = uniqueEmail('cli-first-hour');
    const created = await openvox(['user', 'create', email, '--password', PASSWORD, '--verified', '--json']);
    if (created.code !== 0) throw new Error(`user create: ${created.stderr}`);
    accountId = created.json().id;
    access = (await call(api.url, 'POST', '/api/v1/auth/login/', { email, password: PASSWORD })).body.access;
    const key = await call(api.url, 'POST', '/api/v1/auth/api-keys/', { name: 'first hour' }, access);
    env = { OPENVOX_URL: api.url, OPENVOX_API_KEY: key.body.key };
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('npm commands in the repository print no warning about an unknown project config', async () => {
    const { stdout, stderr } = await run('npm', ['pkg', 'get', 'name'], { cwd: ROOT });
    expect(stdout.trim()).toBe('"openvox"');
    expect(stderr).not.toMatch(/Unknown (project|env) config/);
    // What the .npmrc entry was for stays: onnxruntime-node's CUDA download is off wherever npm installs.
    expect(await readFile(path.join(ROOT, 'scripts/install.sh'), 'utf8')).toMatch(
      /^ {2}export ONNXRUNTIME_NODE_INSTALL=skip$/m,
    );
    expect(await readFile(path.join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/ONNXRUNTIME_NODE_INSTALL=skip/);
  });

  it('voices has a header and a neural/classic column', async () => {
    const listed = await openvox(['voices', '--language', 'en'], env);
    expect(listed.code).toBe(0);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    expect(header).toBe('id\tlanguage\tgender\tquality\tcategory\tstatus\tname');
    const quality = new Map(rows.map((row) => [row.split('\t')[0], row.split('\t')[3]]));
    expect(quality.get('en-us-joe')).toBe('neural');
    expect(quality.get('en-us-slt')).toBe('classic');
    expect(rows.every((row) => ['neural', 'classic'].includes(row.split('\t')[3]))).toBe(true);
  });

  it('voices available and voices install without a network say why, with a specific --json code', async () => {
    const port = await closedPort();
    const offline = {
      PIPER_VOICES_URL: `http://127.0.0.1:${port}/piper/`,
      KOKORO_VOICES_URL: `http://127.0.0.1:${port}/kokoro/voices-v1.0.bin`,
      MODELS_DIR: path.join(dir, 'models'),
    };
    const listed = await openvox(['voices', 'available'], offline);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toBe(
      `openvox: cannot read the Piper voice index http://127.0.0.1:${port}/piper/voices.json: ECONNREFUSED 127.0.0.1:${port} (connection refused: nothing listens there) (set PIPER_VOICES_URL to a mirror when this machine is offline)\n`,
    );
    const json = await openvox(['voices', 'available', '--json'], offline);
    expect(json.json().error).toMatchObject({ code: 'connection_refused', cause: `ECONNREFUSED 127.0.0.1:${port}` });

    // A Kokoro style goes beside the model (only its presence is checked before the download).
    await mkdir(path.join(offline.MODELS_DIR, KOKORO_DIR), { recursive: true });
    await writeFile(path.join(offline.MODELS_DIR, KOKORO_DIR, KOKORO_MODEL), '');
    const kokoro = await openvox(['voices', 'install', 'kokoro:af_bella', '--json'], offline);
    expect(kokoro.code).toBe(1);
    expect(kokoro.json().error).toMatchObject({ code: 'connection_refused' });
    expect(kokoro.json().error.message).toContain(`ECONNREFUSED 127.0.0.1:${port}`);

    // A host DNS cannot find (.invalid never resolves; a resolver out of reach answers EAI_AGAIN, the same kind).
    const unknownHost = await openvox(['voices', 'available', '--json'], {
      ...offline,
      PIPER_VOICES_URL: 'http://openvox-no-such-host.invalid/',
    });
    expect(unknownHost.json().error).toMatchObject({
      code: 'host_not_found',
      cause: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN) openvox-no-such-host\.invalid$/),
    });
    // The API unreachable: the same reasons and codes.
    const noApi = await openvox(['usage', '--json'], { OPENVOX_URL: `http://127.0.0.1:${port}` });
    expect(noApi.json().error).toMatchObject({ code: 'connection_refused', cause: `ECONNREFUSED 127.0.0.1:${port}` });
  });

  it('say --voice takes OpenAI’s names, speaks with the voice /v1/audio/voices gives each, and says what makes it neural', async () => {
    const aliases = (await call(api.url, 'GET', '/v1/audio/voices/', undefined, access)).body.data.filter(
      (voice: { category: string }) => voice.category === 'openai',
    );
    const nova = aliases.find((voice: { id: string }) => voice.id === 'nova');
    const output = path.join(dir, 'nova.mp3');
    const said = await openvox(['say', 'Hello from nova.', '--voice', 'Nova', '-o', output, '--json'], env);
    expect(said.code).toBe(0);
    expect(said.json()).toMatchObject({
      voice_id: nova.voice_id,
      voice: { source: 'openai', openai_name: 'nova', neural: nova.neural, install: nova.install ?? null },
    });
    const entry = await call(api.url, 'GET', `/api/v1/tts/history/${said.json().id}/`, undefined, access);
    expect(entry.body.voice_id).toBe(nova.voice_id);

    const text = await openvox(['say', 'Hello again.', '--voice', 'nova', '-o', path.join(dir, 'nova2.mp3')], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`(voice ${nova.voice_id} for nova, `);
    if (nova.neural) expect(text.stderr).not.toContain('to make it neural');
    else
      expect(text.stderr).toContain(
        `note: nova speaks with ${nova.voice_id} here, a classic voice; to make it neural, the operator runs: ${nova.install.command}\n`,
      );

    // voices openai: every name, its voice, and the install command of each classic one.
    const table = await openvox(['voices', 'openai'], env);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toBe('name\tgender\tvoice\tquality\tto make it neural');
    expect(rows).toHaveLength(aliases.length);
    expect(rows).toContain(
      [
        'nova',
        'female',
        nova.voice_id,
        nova.neural ? 'neural' : 'classic',
        nova.neural ? '-' : nova.install.command,
      ].join('\t'),
    );
  }, 120_000);

  it('say without --voice speaks with the account’s default voice, and says why a chosen one is passed over', async () => {
    const patched = await call(api.url, 'PATCH', '/api/v1/auth/profile/', { default_voice_id: 'en-us-slt' }, access);
    expect(patched.status).toBe(200);
    const chosen = await openvox(['say', 'My default voice.', '-o', path.join(dir, 'default.wav'), '--json'], env);
    expect(chosen.code).toBe(0);
    expect(chosen.json()).toMatchObject({ voice_id: 'en-us-slt', voice: { source: 'account', notice: null } });

    const clone = await createVoice(deps, { id: accountId }, { name: 'My narrator' });
    expect((await call(api.url, 'PATCH', '/api/v1/auth/profile/', { default_voice_id: clone }, access)).status).toBe(
      200,
    );
    expect((await call(api.url, 'POST', `/api/v1/voices/${clone}/revoke-consent/`, undefined, access)).status).toBe(
      200,
    );
    const passedOver = await openvox(['say', 'The clone is gone.', '-o', path.join(dir, 'fallback.wav')], env);
    expect(passedOver.code).toBe(0);
    expect(passedOver.stderr).toMatch(/^note: Your default voice "My narrator" .*consent revoked.*speaks instead/m);
    const profile = (await call(api.url, 'GET', '/api/v1/auth/profile/', undefined, access)).body;
    expect(passedOver.stdout).toContain(`(voice ${profile.default_voice.id}, `);
    expect((await openvox(['usage'], env)).stdout).toContain(`note: ${profile.default_voice.notice}`);
    await call(api.url, 'PATCH', '/api/v1/auth/profile/', { default_voice_id: null }, access);
  }, 120_000);

  it('history download gets a synthesis’ audio again, in the format it was made in', async () => {
    const first = path.join(dir, 'again.mp3');
    const said = await openvox(['say', 'Download me again.', '--voice', 'en-us-slt', '-o', first, '--json'], env);
    const { id } = said.json();

    const history = await openvox(['history', '--limit', '3'], env);
    expect(history.stdout.split('\n')[0]).toBe('id\tcreated\tstatus\tvoice\tcharacters\ttext');
    expect(history.stdout).toMatch(
      new RegExp(`^${id}\t[-0-9: ]+\tcompleted\ten-us-slt\t18\t"Download me again\\."$`, 'm'),
    );

    const copy = path.join(dir, 'copy.mp3');
    const downloaded = await openvox(['history', 'download', id, '-o', copy, '--json'], env);
    expect(downloaded.code).toBe(0);
    expect(downloaded.json()).toMatchObject({ id, output: copy, format: 'mp3', voice_id: 'en-us-slt' });
    expect(await readFile(copy)).toEqual(await readFile(first));

    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const here = await openvox(['history', 'download', id], env);
      expect(here.stdout).toBe(
        `wrote ${path.join(dir, `openvox-${id}.mp3`)}: MP3, ${said.json().duration_seconds.toFixed(1)} s of audio, ${said.json().bytes} bytes (voice en-us-slt)\n`,
      );
      expect((await stat(path.join(dir, `openvox-${id}.mp3`))).size).toBe(said.json().bytes);
    } finally {
      process.chdir(cwd);
    }

    // Another format's extension would lie about the content: a usage error, nothing written.
    const wrong = await openvox(['history', 'download', id, '-o', path.join(dir, 'copy.wav')], env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`synthesis ${id} was made as MP3: name the file .mp3`);
    await expect(stat(path.join(dir, 'copy.wav'))).rejects.toThrow('ENOENT');
    const unknown = await openvox(['history', 'download', '00000000-0000-4000-8000-000000000000', '--json'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.json().error).toMatchObject({ status: 404 });
  }, 120_000);

  it.each([[['history', 'download']], [['history', 'list']], [['voices', 'openai']]])(
    'openvox %j --help explains itself',
    async (args) => {
      const help = await openvox([...args, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Usage: openvox/);
    },
  );

  it('usage shows the billing period and the calendar month apart, as the API gives them', async () => {
    const summary = (await openvox(['usage', '--json'], env)).json();
    const { billing_period: billing, usage } = summary;
    expect(billing).toEqual({ start: expect.any(String), end: expect.any(String) });
    expect(usage.period_start).toMatch(/^\d{4}-\d\d-01T00:00:00\.000Z$/);
    const text = (await openvox(['usage'], env)).stdout;
    expect(text).toContain(`billing period: ${billing.start.slice(0, 10)} to ${billing.end.slice(0, 10)}; on `);
    const lastDay = new Date(Date.parse(usage.period_end) - 86_400_000).toISOString().slice(0, 10);
    expect(text).toContain(
      `this month (${usage.period_start.slice(0, 10)} to ${lastDay}): ${usage.syntheses} syntheses`,
    );
    expect(text).not.toContain('this period');
  });
});
