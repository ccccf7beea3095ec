import os from 'node:os';
import { execFile, spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Io, runCli } from '../../cli/program';
import { markAccountDeleted } from '../../db/privacy';
import { addMonthsUtc } from '../../lib/billingPeriod';
import { PASSWORD, uniqueEmail, waitForVerificationToken } from '../helpers/accounts';
import { call } from '../helpers/http';
import { makeSample } from '../helpers/samples';
import { useStack } from '../helpers/stack';

const run = promisify(execFile);

describe('openvox CLI', () => {
  const { deps, api } = useStack({ worker: true });
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'openvox-cli-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** One command line, in process, against the test database (admin) or the test API (user). */
  async function openvox(args: string[], env: NodeJS.ProcessEnv = {}, io: Pick<Io, 'prompt' | 'readStdin'> = {}) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      out: (text) => (stdout += text),
      err: (text) => (stderr += text),
      env: {
        ...process.env,
        TEMPORAL_TASK_QUEUE: deps.config.TEMPORAL_TASK_QUEUE,
        MAIL_DIR: deps.config.MAIL_DIR,
        OPENVOX_CONFIG: path.join(dir, 'none.json'),
        ...env,
      },
      tty: false,
      ...io,
    });
    return { code, stdout, stderr, json: () => JSON.parse(stdout) };
  }

  const balanceOf = async (email: string) =>
    Number((await deps.db('accounts').where({ email }).first('credit_balance')).credit_balance);

  describe('admin commands (PostgreSQL directly)', () => {
    it('user create --verified makes an account that can log in, credited once with the free plan', async () => {
      const email = uniqueEmail('cli');
      const created = await openvox([
        'user',
        'create',
        email,
        '--password',
        PASSWORD,
        '--name',
        'Cli User',
        '--verified',
        '--json',
      ]);
      expect(created.code).toBe(0);
      expect(created.json()).toMatchObject({
        email,
        name: 'Cli User',
        plan: 'free',
        email_verified: true,
        credit_balance: 35000,
        credits_granted: 35000,
      });
      const login = await call(api.url, 'POST', '/api/v1/auth/login/', { email, password: PASSWORD });
      expect(login.status).toBe(200);
      const ledger = await deps.db('credit_ledger').where({ account_id: created.json().id });
      expect(ledger).toHaveLength(1);
      expect(ledger[0]).toMatchObject({ kind: 'grant', reference: 'signup:free-plan' });
    });

    it('user create without --verified mails the verification link, and user verify verifies and credits once', async () => {
      const email = uniqueEmail('cli');
      const created = await openvox(['user', 'create', email, '--json']);
      expect(created.code).toBe(0);
      expect(created.json()).toMatchObject({ email_verified: false, credit_balance: 0 });
      expect(created.json().password).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      await waitForVerificationToken(deps.config.MAIL_DIR, email);

      const verified = await openvox(['user', 'verify', email]);
      expect(verified.code).toBe(0);
      expect(verified.stdout).toContain('35000 credits granted');
      const again = await openvox(['user', 'verify', email, '--json']);
      expect(again.json()).toMatchObject({ email_verified: true, credits_granted: 0, credit_balance: 35000 });
      expect(await balanceOf(email)).toBe(35000);
    });

    it('credits grant writes one ledger grant and the balance; the same reference again changes nothing', async () => {
      const email = uniqueEmail('cli');
      await openvox(['user', 'create', email, '--verified']);
      const first = await openvox(['credits', 'grant', email, '1000', '--reason', 'support ticket 42', '--json']);
      expect(first.code).toBe(0);
      expect(first.json()).toMatchObject({
        applied: true,
        amount: 1000,
        credit_balance: 36000,
        reference: 'admin:support ticket 42',
      });
      const repeat = await openvox(['credits', 'grant', email, '1000', '--reason', 'support ticket 42']);
      expect(repeat.code).toBe(0);
      expect(repeat.stdout).toContain('already granted');
      const other = await openvox([
        'credits',
        'grant',
        email,
        '500',
        '--reason',
        'goodwill',
        '--reference',
        'goodwill-2026-11',
      ]);
      expect(other.stdout).toContain('granted 500 credits');
      expect(await balanceOf(email)).toBe(36500);
      const account = await deps.db('accounts').where({ email }).first('id');
      const grants = await deps.db('credit_ledger').where({ account_id: account.id, kind: 'grant' }).orderBy('id');
      expect(grants.map((row) => [row.reference, Number(row.amount)])).toEqual([
        ['signup:free-plan', 35000],
        ['admin:support ticket 42', 1000],
        ['admin:goodwill-2026-11', 500],
      ]);
    });

    it('records who did what: each admin change with its operator, in admin_actions, listed by openvox audit', async () => {
      const email = uniqueEmail('cli');
      const as = { OPENVOX_OPERATOR: 'ada (support)' };
      await openvox(['user', 'create', email, '--verified'], as);
      await openvox(['credits', 'grant', email, '250', '--reason', 'audit check'], as);
      await openvox(['credits', 'grant', email, '250', '--reason', 'audit check'], as); // a repeat changes nothing, so no record
      await openvox(['plan', 'set', email, 'starter'], as);
      const account = await deps.db('accounts').where({ email }).first('id');
      const actions = await deps
        .db('admin_actions')
        .where({ account_id: account.id })
        .orderBy('id')
        .select('operator', 'command', 'details');
      expect(actions).toEqual([
        {
          operator: 'ada (support)',
          command: 'user create',
          details: { plan: 'free', verified: true, credits_granted: 35000 },
        },
        {
          operator: 'ada (support)',
          command: 'credits grant',
          details: { amount: 250, reference: 'admin:audit check' },
        },
        { operator: 'ada (support)', command: 'plan set', details: { from: 'free', to: 'starter' } },
      ]);
      // No email in the trail: it outlives the account (the id is cleared at erasure).
      expect(JSON.stringify(actions)).not.toContain(email);
      const audit = await openvox(['audit', '--limit', '1000', '--json']);
      expect(audit.code).toBe(0);
      expect(
        audit
          .json()
          .filter((action: { account_id: string }) => action.account_id === account.id)
          .map((action: { command: string }) => action.command),
      ).toEqual(['plan set', 'credits grant', 'user create']);
      // Without OPENVOX_OPERATOR: the OS user at this host.
      const unverified = uniqueEmail('cli');
      await openvox(['user', 'create', unverified], { OPENVOX_OPERATOR: '' });
      await openvox(['user', 'verify', unverified], { OPENVOX_OPERATOR: '' });
      const other = await deps.db('accounts').where({ email: unverified }).first('id');
      const verifiedBy = await deps
        .db('admin_actions')
        .where({ account_id: other.id, command: 'user verify' })
        .first('operator', 'details');
      expect(verifiedBy).toEqual({
        operator: `${os.userInfo().username}@${os.hostname()}`,
        details: { credits_granted: 35000 },
      });
    });

    it('credits grant refuses a missing reason, a non-number and an unknown account', async () => {
      const email = uniqueEmail('cli');
      await openvox(['user', 'create', email, '--verified']);
      const noReason = await openvox(['credits', 'grant', email, '10']);
      expect(noReason.code).toBe(2);
      // One line saying what is missing and where the usage is, not the whole help.
      expect(noReason.stderr).toBe("error: required option '--reason <text>' not specified\n(add --help for usage)\n");
      expect(await balanceOf(email)).toBe(35000);
      expect((await openvox(['credits', 'grant', email, 'ten', '--reason', 'x'])).code).toBe(2);
      const unknown = await openvox(['credits', 'grant', uniqueEmail('nobody'), '10', '--reason', 'x']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('no account with email');
    });

    it('credits grant --help shows --reason as required, in the usage line and its description', async () => {
      const help = (await openvox(['credits', 'grant', '--help'])).stdout;
      expect(help).toMatch(/^Usage: openvox credits grant <email> <credits> --reason <text> \[options\]$/m);
      expect(help).toMatch(/--reason <text> +required: /);
    });

    it('plan set changes the plan and names the plans on a typo', async () => {
      const email = uniqueEmail('cli');
      await openvox(['user', 'create', email, '--verified']);
      const changed = await openvox(['plan', 'set', email, 'creator', '--json']);
      expect(changed.json()).toMatchObject({ email, plan: 'creator', credit_balance: 35000 });
      const typo = await openvox(['plan', 'set', email, 'platinum']);
      expect(typo.code).toBe(1);
      expect(typo.stderr).toContain('plans: free, starter, creator, pro');
    });

    it('users list shows accounts with their balance and usage', async () => {
      const email = uniqueEmail('cli');
      await openvox(['user', 'create', email, '--verified']);
      const listed = await openvox(['users', 'list', '--email', email, '--json']);
      expect(listed.json()).toEqual([
        expect.objectContaining({
          email,
          plan: 'free',
          credit_balance: 35000,
          usage: expect.objectContaining({ syntheses: 0, credits_used: 0, cloned_voices: 0 }),
        }),
      ]);
      const table = await openvox(['users', 'list', '--email', email]);
      expect(table.stdout.split('\n')[0].split('\t')).toContain('audio');
      expect(table.stdout.split('\n')[1].split('\t')[8]).toBe('0.0 s');
    });

    it('users list says which accounts their owners deleted', async () => {
      const email = uniqueEmail('cli');
      const created = (await openvox(['user', 'create', email, '--verified', '--json'])).json();
      await markAccountDeleted(deps.db, created.id, { erasedSignupRetentionDays: 365 });
      const listed = (await openvox(['users', 'list', '--limit', '1000', '--json'])).json();
      const row = listed.find((account: { id: string }) => account.id === created.id);
      // Its email is erased; the row stays (the ledger refers to it), and says so.
      expect(row).toMatchObject({ deleted_at: expect.any(String) });
      expect(row.email).not.toBe(email);
      const table = (await openvox(['users', 'list', '--limit', '1000'])).stdout.split('\n');
      expect(table.find((line) => line.startsWith(`${row.email}\t`))?.split('\t')[2]).toBe('deleted');
      expect(
        table
          .find((line) =>
            line.startsWith(`${listed.find((account: { deleted_at: string | null }) => !account.deleted_at).email}\t`),
          )
          ?.split('\t')[2],
      ).toMatch(/^(verified|unverified)$/);
    });
  });

  describe('user commands (the HTTP API with an API key)', () => {
    let email: string;
    let env: NodeJS.ProcessEnv;

    beforeAll(async () => {
      email = uniqueEmail('cli-user');
      await openvox(['user', 'create', email, '--password', PASSWORD, '--verified']);
      const login = await call(api.url, 'POST', '/api/v1/auth/login/', { email, password: PASSWORD });
      const key = await call(api.url, 'POST', '/api/v1/auth/api-keys/', { name: 'cli test' }, login.body.access);
      env = { OPENVOX_URL: api.url, OPENVOX_API_KEY: key.body.key };
    });

    it('say writes the audio, reports progress on stderr and charges the text', async () => {
      const output = path.join(dir, 'hello.mp3');
      const said = await openvox(
        ['say', 'Hello from the command line.', '-o', output, '--voice', 'en-us-slt', '--json'],
        env,
      );
      expect(said.code).toBe(0);
      expect(said.json()).toMatchObject({ output, format: 'mp3', credits_charged: 28 });
      const audio = await readFile(output);
      expect(audio.length).toBe(said.json().bytes);
      expect(audio.subarray(0, 3).toString('latin1') === 'ID3' || audio[0] === 0xff).toBe(true);

      const text = path.join(dir, 'in.txt');
      await writeFile(text, 'A second line, read from a file.');
      const fromFile = await openvox(['say', '--file', text, '-o', path.join(dir, 'second.wav')], env);
      expect(fromFile.code).toBe(0);
      // No --voice: the catalog's first English voice, the neural one installed here.
      expect(fromFile.stdout).toMatch(
        /^wrote .*second\.wav: WAV, \d+\.\d s of audio, \d+ bytes \(voice en-us-joe, 32 credits\)\n$/,
      );
      expect(fromFile.stderr).toMatch(/completed \[#+\] 100%\n$/);
      expect((await readFile(path.join(dir, 'second.wav'))).subarray(0, 4).toString('latin1')).toBe('RIFF');
    });

    it('say reports an API error with the problem’s detail and code, and exits 1', async () => {
      const failed = await openvox(['say', 'Hello', '--voice', 'no-such-voice', '--json'], env);
      expect(failed.code).toBe(1);
      expect(failed.json().error).toEqual({
        code: 'validation_error',
        status: 400,
        errors: { voice_id: ['Unknown voice.'] },
        message: 'voice_id: Unknown voice. (400 validation_error)',
      });
      const text = await openvox(['say', 'Hello', '--voice', 'no-such-voice'], env);
      expect(text.stderr).toBe('openvox: voice_id: Unknown voice. (400 validation_error)\n');
      // A port nothing listens on: one the system gave a server just closed.
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      const unreachable = await openvox(['usage'], { ...env, OPENVOX_URL: `http://127.0.0.1:${port}` });
      expect(unreachable.code).toBe(1);
      expect(unreachable.stderr).toMatch(
        new RegExp(`^openvox: cannot reach http://127\\.0\\.0\\.1:${port}: ECONNREFUSED`),
      );
    });

    it('say takes the format from -o’s extension; --format wins; an unknown extension is a usage error that sends nothing', async () => {
      const before = await deps.db('syntheses').count({ count: '*' }).first();
      const unknown = await openvox(['say', 'Hello', '-o', path.join(dir, 'speech.txt')], env);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain(
        'cannot tell an audio format from .txt: name the file .wav, .mp3, .ogg, .flac, or give --format',
      );
      const badFormat = await openvox(['say', 'Hello', '--format', 'aiff'], env);
      expect(badFormat.code).toBe(2);
      expect(badFormat.stderr).toContain('Allowed choices are wav, mp3, ogg, flac');
      expect(await deps.db('syntheses').count({ count: '*' }).first()).toEqual(before);

      const ogg = path.join(dir, 'named.flac');
      const explicit = await openvox(
        ['say', 'Explicit.', '--voice', 'en-us-slt', '--format', 'ogg', '-o', ogg, '--json'],
        env,
      );
      expect(explicit.json()).toMatchObject({ format: 'ogg', output: ogg });
      expect((await readFile(ogg)).subarray(0, 4).toString('latin1')).toBe('OggS');
      const flac = path.join(dir, 'chapter.FLAC');
      expect(
        (await openvox(['say', 'Upper case.', '--voice', 'en-us-slt', '-o', flac, '--json'], env)).json().format,
      ).toBe('flac');
      expect((await readFile(flac)).subarray(0, 4).toString('latin1')).toBe('fLaC');
    });

    it('say without -o writes openvox-<id>.<format> in the working directory and says where, in full', async () => {
      const cwd = process.cwd();
      process.chdir(dir);
      try {
        const said = await openvox(['say', 'Where did it go?', '--voice', 'en-us-slt', '--format', 'mp3'], env);
        expect(said.code).toBe(0);
        const written = /^wrote (\S+): MP3, /.exec(said.stdout)?.[1];
        expect(written).toMatch(
          new RegExp(`^${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/openvox-[0-9a-f-]{36}\\.mp3$`),
        );
        expect((await stat(written!)).size).toBeGreaterThan(0);
      } finally {
        process.chdir(cwd);
      }
    });

    it('history lists the syntheses, newest first', async () => {
      const history = await openvox(['history', '--json'], env);
      expect(history.code).toBe(0);
      expect(history.json().map((entry: any) => entry.text)).toEqual([
        'Where did it go?',
        'Upper case.',
        'Explicit.',
        'A second line, read from a file.',
        'Hello from the command line.',
      ]);
    });

    it('usage shows the balance and this period’s usage', async () => {
      const usage = await openvox(['usage', '--json'], env);
      const spent = 28 + 32 + 'Explicit.'.length + 'Upper case.'.length + 'Where did it go?'.length;
      expect(usage.json()).toMatchObject({
        email,
        plan: 'free',
        credit_balance: 35000 - spent,
        usage: { syntheses: 5, credits_used: spent },
      });
      // Verified just now: the first billing period runs a month from now; today's usage is one day.
      const {
        billing_period: period,
        usage: { daily },
      } = usage.json();
      expect(new Date(period.start).getTime()).toBeLessThanOrEqual(Date.now());
      expect(period.end).toBe(addMonthsUtc(new Date(period.start), 1).toISOString());
      expect(daily).toEqual([
        {
          date: new Date().toISOString().slice(0, 10),
          syntheses: 5,
          credits_used: spent,
          audio_seconds: expect.any(Number),
        },
      ]);
      const text = (await openvox(['usage'], env)).stdout;
      expect(text).toContain(`${35000 - spent} available`);
      // Durations read as durations: tenths of a second, never a raw float.
      expect(text).toMatch(/, \d+\.\d s of audio, /);
      expect(text).toMatch(/^ {2}\d{4}-\d\d-\d\d: 5 syntheses, \d+ credits, \d+\.\d s of audio$/m);
      expect(text).not.toMatch(/\d\.\d{2,}/);
    });

    it('voices lists premade voices, filtered by language', async () => {
      const voices = await openvox(['voices', '--language', 'en', '--json'], env);
      expect(voices.code).toBe(0);
      expect(voices.json().map((voice: any) => voice.id)).toContain('en-us-slt');
      expect(voices.json().every((voice: any) => voice.language.startsWith('en'))).toBe(true);
    });

    it('clone uploads a sample with consent and waits until the voice is ready', async () => {
      const sample = path.join(dir, 'sample.wav');
      await writeFile(sample, await makeSample('wav'));
      expect((await openvox(['clone', sample, '--name', 'Mine'], env)).code).toBe(1); // no --consent
      const started = Date.now();
      const cloned = await openvox(['clone', sample, '--name', 'Mine', '--consent'], env);
      const seconds = (Date.now() - started) / 1000;
      expect(cloned.code).toBe(0);
      const [id, status] = cloned.stdout.split('\t');
      expect(status).toBe('ready');
      // Off a terminal: a line every 5 s at most (it polls every second), plus the first and the final one.
      const lines = cloned.stderr.trimEnd().split('\n');
      expect(lines.length).toBeLessThanOrEqual(Math.floor(seconds / 5) + 2);
      expect(lines[0]).toMatch(new RegExp(`^cloning ${id}: processing, \\d+\\.\\d s$`));
      expect(lines.at(-1)).toMatch(new RegExp(`^cloning ${id}: ready, (\\d+ min )?\\d+\\.\\d s$`));
      const mine = await openvox(['voices', '--category', 'cloned', '--json'], env);
      expect(mine.json()).toEqual([expect.objectContaining({ id, name: 'Mine', category: 'cloned', status: 'ready' })]);
      // A hang guard, no timing claim: a clone takes ~20 s on a quiet machine and over a minute on a busy one.
    }, 300_000);

    it('reads the URL and key from the config file when the environment has none', async () => {
      const configPath = path.join(dir, 'config.json');
      await writeFile(configPath, JSON.stringify({ url: env.OPENVOX_URL, api_key: env.OPENVOX_API_KEY }));
      const usage = await openvox(['usage', '--json'], {
        OPENVOX_CONFIG: configPath,
        OPENVOX_URL: undefined,
        OPENVOX_API_KEY: undefined,
      });
      expect(usage.json().email).toBe(email);
      const missing = await openvox(['usage'], { OPENVOX_URL: undefined, OPENVOX_API_KEY: undefined });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('no API key');
    });
  });

  describe('login, logout and keys (the HTTP API)', () => {
    let email: string;
    let home: string;
    /** A user's environment: no key or URL in it, the config under $XDG_CONFIG_HOME. */
    let env: NodeJS.ProcessEnv;
    let configFile: string;

    beforeAll(async () => {
      email = uniqueEmail('cli-login');
      await openvox(['user', 'create', email, '--password', PASSWORD, '--verified']);
    });
    beforeEach(async () => {
      home = await mkdtemp(path.join(dir, 'home-'));
      env = {
        XDG_CONFIG_HOME: home,
        OPENVOX_CONFIG: undefined,
        OPENVOX_URL: undefined,
        OPENVOX_API_KEY: undefined,
        OPENVOX_EMAIL: undefined,
        OPENVOX_PASSWORD: undefined,
      };
      configFile = path.join(home, 'openvox', 'config.json');
    });

    const stdin = (text: string) => ({ readStdin: async () => text });
    const keyWorks = async (key: string) =>
      (await fetch(`${api.url}/api/v1/auth/profile/`, { headers: { Authorization: `Bearer ${key}` } })).status;

    it('login --email --password-stdin stores a key for this machine (0600) that user commands then use', async () => {
      const login = await openvox(
        ['login', '--url', api.url, '--email', email, '--password-stdin'],
        env,
        stdin(`${PASSWORD}\n`),
      );
      expect(login.code).toBe(0);
      expect(login.stdout).toContain(`logged in to ${api.url} as ${email}: API key "openvox CLI on ${os.hostname()}"`);
      expect(login.stdout).toContain(configFile);
      const stored = JSON.parse(await readFile(configFile, 'utf8'));
      expect(stored).toEqual({
        url: api.url,
        api_key: expect.stringMatching(/^vk_/),
        api_key_id: expect.any(String),
        email,
      });
      expect((await stat(configFile)).mode & 0o777).toBe(0o600);
      expect((await stat(path.dirname(configFile))).mode & 0o777).toBe(0o700);
      // The key, not the login's session, is what stays: the account has it under the machine's name.
      const row = await deps.db('api_keys').where({ id: stored.api_key_id }).first('name');
      expect(row.name).toBe(`openvox CLI on ${os.hostname()}`);
      // No key, URL or config in the environment: the stored ones.
      const usage = await openvox(['usage', '--json'], env);
      expect(usage.code).toBe(0);
      expect(usage.json().email).toBe(email);
    });

    it('login asks on a terminal, the password without echo, and takes OPENVOX_EMAIL/OPENVOX_PASSWORD in a script', async () => {
      const asked: Array<[string, boolean]> = [];
      const prompt = async (question: string, { secret }: { secret: boolean }) => {
        asked.push([question, secret]);
        return secret ? PASSWORD : email;
      };
      expect((await openvox(['login', '--url', api.url], env, { prompt })).code).toBe(0);
      expect(asked).toEqual([
        ['Email: ', false],
        ['Password: ', true],
      ]);
      const fromEnv = await openvox(['login', '--json', '--key-name', 'ada’s laptop'], {
        ...env,
        OPENVOX_URL: api.url,
        OPENVOX_EMAIL: email,
        OPENVOX_PASSWORD: PASSWORD,
      });
      expect(fromEnv.code).toBe(0);
      expect(fromEnv.json()).toMatchObject({
        url: api.url,
        email,
        config: configFile,
        api_key: { name: 'ada’s laptop' },
      });
    });

    it('login on a real terminal asks for the email, then the password without echoing it', async () => {
      // util-linux's script gives the program a pseudo-terminal; what is typed goes through it.
      const tsx = path.join(__dirname, '../../node_modules/.bin/tsx');
      const child = spawn(
        'script',
        ['-qfec', `${tsx} ${path.join(__dirname, '../../cli/main.ts')} login --url ${api.url}`, '/dev/null'],
        {
          env: { ...process.env, ...env, OPENVOX_CONFIG: '' },
        },
      );
      let screen = '';
      child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
      const waitFor = async (text: string) => {
        while (!screen.includes(text)) {
          if (child.exitCode !== null) throw new Error(`exited before "${text}": ${screen}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      await waitFor('Email: ');
      child.stdin.write(`${email}\r`);
      await waitFor('Password: ');
      child.stdin.write(`${PASSWORD}\r`);
      expect(await exited).toBe(0);
      expect(screen).toContain(`logged in to ${api.url} as ${email}`);
      // Without the terminal's cursor codes: what a person sees.
      expect(screen.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')).toMatch(
        new RegExp(`Password: \\*{${PASSWORD.length}}(?!\\*)`),
      );
      expect(screen).not.toContain(PASSWORD);
      expect(JSON.parse(await readFile(configFile, 'utf8'))).toMatchObject({ url: api.url, email });
    }, 120_000);

    it('login without a terminal, flags or environment says what to give; a wrong password shows the API’s reason; nothing is stored', async () => {
      const noEmail = await openvox(['login', '--url', api.url], env);
      expect(noEmail.code).toBe(1);
      expect(noEmail.stderr).toBe('openvox: no email: not on a terminal, so give --email or set OPENVOX_EMAIL\n');
      const noPassword = await openvox(['login', '--url', api.url, '--email', email], env);
      expect(noPassword.stderr).toBe(
        'openvox: no password: not on a terminal, so give --password-stdin or set OPENVOX_PASSWORD\n',
      );
      const wrong = await openvox(
        ['login', '--url', api.url, '--email', email, '--password-stdin'],
        env,
        stdin('not the password'),
      );
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(/^openvox: .+ \(401 authentication_failed\)\n$/);
      await expect(stat(configFile)).rejects.toThrow('ENOENT');
    });

    it('a second login replaces the first one’s key; OPENVOX_API_KEY still wins over the stored key', async () => {
      await openvox(['login', '--url', api.url, '--email', email, '--password-stdin'], env, stdin(PASSWORD));
      const first = JSON.parse(await readFile(configFile, 'utf8'));
      const again = await openvox(['login', '--email', email, '--password-stdin'], env, stdin(PASSWORD));
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('revoked the key of the previous login');
      const second = JSON.parse(await readFile(configFile, 'utf8'));
      expect(second.url).toBe(api.url); // the stored URL, without --url
      expect(second.api_key).not.toBe(first.api_key);
      expect(await keyWorks(first.api_key)).toBe(401);
      expect(await keyWorks(second.api_key)).toBe(200);

      const other = uniqueEmail('cli-other');
      await openvox(['user', 'create', other, '--password', PASSWORD, '--verified']);
      const otherLogin = await call(api.url, 'POST', '/api/v1/auth/login/', { email: other, password: PASSWORD });
      const otherKey = (
        await call(api.url, 'POST', '/api/v1/auth/api-keys/', { name: 'other' }, otherLogin.body.access)
      ).body.key;
      expect((await openvox(['usage', '--json'], { ...env, OPENVOX_API_KEY: otherKey })).json().email).toBe(other);
      expect((await openvox(['usage', '--json'], env)).json().email).toBe(email);
    });

    it('logout revokes the stored key and removes it, keeping the URL; a second logout has nothing to do', async () => {
      await openvox(['login', '--url', api.url, '--email', email, '--password-stdin'], env, stdin(PASSWORD));
      const stored = JSON.parse(await readFile(configFile, 'utf8'));
      const logout = await openvox(['logout'], env);
      expect(logout.code).toBe(0);
      expect(logout.stdout).toBe(`revoked the API key of ${email} from ${configFile}\n`);
      expect(await keyWorks(stored.api_key)).toBe(401);
      expect(JSON.parse(await readFile(configFile, 'utf8'))).toEqual({ url: api.url });
      expect((await openvox(['logout'], env)).stdout).toBe(`not logged in: no API key in ${configFile}\n`);
      const usage = await openvox(['usage'], env);
      expect(usage.code).toBe(1);
      expect(usage.stderr).toContain('no API key: run openvox login');
    });

    it('logout of a key revoked elsewhere still removes it', async () => {
      await openvox(['login', '--url', api.url, '--email', email, '--password-stdin'], env, stdin(PASSWORD));
      const stored = JSON.parse(await readFile(configFile, 'utf8'));
      await deps.db('api_keys').where({ id: stored.api_key_id }).delete();
      const logout = await openvox(['logout'], env);
      expect(logout.code).toBe(0);
      expect(logout.stdout).toContain('(it no longer worked)');
      expect(JSON.parse(await readFile(configFile, 'utf8'))).toEqual({ url: api.url });
    });

    it('keys create prints the key alone on stdout; keys list shows it; keys revoke by prefix stops it', async () => {
      await openvox(['login', '--url', api.url, '--email', email, '--password-stdin'], env, stdin(PASSWORD));
      const created = await openvox(['keys', 'create', 'ci server'], env);
      expect(created.code).toBe(0);
      const key = created.stdout.trim();
      expect(created.stdout).toMatch(/^vk_[A-Za-z0-9_-]+\n$/);
      expect(created.stderr).toMatch(/^created API key "ci server" \(.+\); it is shown this once/);
      expect(await keyWorks(key)).toBe(200);

      const listed = await openvox(['keys', 'list', '--json'], env);
      const row = listed.json().find((entry: { name: string }) => entry.name === 'ci server');
      expect(row).toMatchObject({ prefix: key.slice(0, 12) });
      expect(listed.json().every((entry: object) => !('key' in entry))).toBe(true);
      const table = (await openvox(['keys'], env)).stdout;
      expect(table).toMatch(new RegExp(`^${row.id}\t${key.slice(0, 12)}…\t[-0-9: ]+\t[-0-9: ]+\tci server$`, 'm'));
      expect(table).toMatch(/\(this login\)$/m);

      const revoked = await openvox(['keys', 'revoke', `${key.slice(0, 12)}…`], env);
      expect(revoked.code).toBe(0);
      expect(revoked.stdout).toBe(`revoked ${row.id} "ci server"\n`);
      expect(await keyWorks(key)).toBe(401);
      const unknown = await openvox(['keys', 'revoke', row.id], env);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain(`no API key ${row.id}`);
      expect((await openvox(['keys', 'create', ' '], env)).stderr).toMatch(
        /^openvox: name: .+ \(400 validation_error\)\n$/,
      );
    });

    it('keys revoke of this machine’s login key also removes it from the config', async () => {
      await openvox(['login', '--url', api.url, '--email', email, '--password-stdin'], env, stdin(PASSWORD));
      const stored = JSON.parse(await readFile(configFile, 'utf8'));
      const revoked = await openvox(['keys', 'revoke', stored.api_key_id], env);
      expect(revoked.stdout).toContain(`it was this machine’s login, removed from ${configFile}`);
      expect(await keyWorks(stored.api_key)).toBe(401);
      expect(JSON.parse(await readFile(configFile, 'utf8'))).toEqual({ url: api.url });
    });
  });

  it.each([
    [[]],
    [['user']],
    [['user', 'create']],
    [['user', 'verify']],
    [['credits', 'grant']],
    [['plan', 'set']],
    [['users', 'list']],
    [['say']],
    [['voices']],
    [['history']],
    [['usage']],
    [['clone']],
    [['login']],
    [['logout']],
    [['keys']],
    [['keys', 'create']],
    [['keys', 'revoke']],
  ])('openvox %j --help explains itself', async (args) => {
    const help = await openvox([...args, '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: openvox/);
  });

  it('runs as a program: one entry, subcommands listed in its help', async () => {
    const tsx = path.join(__dirname, '../../node_modules/.bin/tsx');
    const { stdout } = await run(tsx, [path.join(__dirname, '../../cli/main.ts'), '--help']);
    for (const command of [
      'user',
      'users',
      'credits',
      'plan',
      'say',
      'voices',
      'history',
      'usage',
      'clone',
      'login',
      'logout',
      'keys',
    ])
      expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    const packageJson = JSON.parse(await readFile(path.join(__dirname, '../../package.json'), 'utf8'));
    expect(packageJson.bin).toEqual({ openvox: 'dist/cli/main.js' });
  });
});
