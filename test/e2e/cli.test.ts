import os from 'node:os';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { runCli } from '../../cli/program';
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
  async function openvox(args: string[], env: NodeJS.ProcessEnv = {}) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      out: (text) => (stdout += text),
      err: (text) => (stderr += text),
      env: { ...process.env, TEMPORAL_TASK_QUEUE: deps.config.TEMPORAL_TASK_QUEUE, MAIL_DIR: deps.config.MAIL_DIR, OPENVOX_CONFIG: path.join(dir, 'none.json'), ...env },
      tty: false,
    });
    return { code, stdout, stderr, json: () => JSON.parse(stdout) };
  }

  const balanceOf = async (email: string) => Number((await deps.db('accounts').where({ email }).first('credit_balance')).credit_balance);

  describe('admin commands (PostgreSQL directly)', () => {
    it('user create --verified makes an account that can log in, credited once with the free plan', async () => {
      const email = uniqueEmail('cli');
      const created = await openvox(['user', 'create', email, '--password', PASSWORD, '--name', 'Cli User', '--verified', '--json']);
      expect(created.code).toBe(0);
      expect(created.json()).toMatchObject({ email, name: 'Cli User', plan: 'free', email_verified: true, credit_balance: 35000, credits_granted: 35000 });
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
      expect(first.json()).toMatchObject({ applied: true, amount: 1000, credit_balance: 36000, reference: 'admin:support ticket 42' });
      const repeat = await openvox(['credits', 'grant', email, '1000', '--reason', 'support ticket 42']);
      expect(repeat.code).toBe(0);
      expect(repeat.stdout).toContain('already granted');
      const other = await openvox(['credits', 'grant', email, '500', '--reason', 'goodwill', '--reference', 'goodwill-2026-11']);
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
      const actions = await deps.db('admin_actions').where({ account_id: account.id }).orderBy('id').select('operator', 'command', 'details');
      expect(actions).toEqual([
        { operator: 'ada (support)', command: 'user create', details: { plan: 'free', verified: true, credits_granted: 35000 } },
        { operator: 'ada (support)', command: 'credits grant', details: { amount: 250, reference: 'admin:audit check' } },
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
      const verifiedBy = await deps.db('admin_actions').where({ account_id: other.id, command: 'user verify' }).first('operator', 'details');
      expect(verifiedBy).toEqual({ operator: `${os.userInfo().username}@${os.hostname()}`, details: { credits_granted: 35000 } });
    });

    it('credits grant refuses a missing reason, a non-number and an unknown account', async () => {
      const email = uniqueEmail('cli');
      await openvox(['user', 'create', email, '--verified']);
      expect((await openvox(['credits', 'grant', email, '10'])).code).toBe(2);
      expect((await openvox(['credits', 'grant', email, 'ten', '--reason', 'x'])).code).toBe(2);
      const unknown = await openvox(['credits', 'grant', uniqueEmail('nobody'), '10', '--reason', 'x']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('no account with email');
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
      expect(listed.json()).toEqual([expect.objectContaining({ email, plan: 'free', credit_balance: 35000, usage: expect.objectContaining({ syntheses: 0, credits_used: 0, cloned_voices: 0 }) })]);
      const table = await openvox(['users', 'list', '--limit', '5']);
      expect(table.stdout.split('\n')[0]).toContain('balance');
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
      expect(table.find((line) => line.startsWith(`${listed.find((account: { deleted_at: string | null }) => !account.deleted_at).email}\t`))?.split('\t')[2]).toMatch(/^(verified|unverified)$/);
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
      const said = await openvox(['say', 'Hello from the command line.', '-o', output, '--voice', 'en-us-slt', '--json'], env);
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
      expect(fromFile.stdout).toMatch(/^wrote .*second\.wav \(en-us-joe, /);
      expect(fromFile.stderr).toMatch(/completed \[#+\] 100%/);
      expect((await readFile(path.join(dir, 'second.wav'))).subarray(0, 4).toString('latin1')).toBe('RIFF');
    });

    it('say reports an API error with its code and exits 1', async () => {
      const failed = await openvox(['say', 'Hello', '--voice', 'no-such-voice', '--json'], env);
      expect(failed.code).toBe(1);
      expect(failed.json().error.code).toBe('validation_error');
    });

    it('history lists the syntheses, newest first', async () => {
      const history = await openvox(['history', '--json'], env);
      expect(history.code).toBe(0);
      expect(history.json().map((entry: any) => entry.text)).toEqual(['A second line, read from a file.', 'Hello from the command line.']);
    });

    it('usage shows the balance and this period’s usage', async () => {
      const usage = await openvox(['usage', '--json'], env);
      expect(usage.json()).toMatchObject({ email, plan: 'free', credit_balance: 35000 - 28 - 32, usage: { syntheses: 2, credits_used: 60 } });
      // Verified just now: the first billing period runs a month from now; today's usage is one day.
      const {
        billing_period: period,
        usage: { daily },
      } = usage.json();
      expect(new Date(period.start).getTime()).toBeLessThanOrEqual(Date.now());
      expect(period.end).toBe(addMonthsUtc(new Date(period.start), 1).toISOString());
      expect(daily).toEqual([{ date: new Date().toISOString().slice(0, 10), syntheses: 2, credits_used: 60, audio_seconds: expect.any(Number) }]);
      expect((await openvox(['usage'], env)).stdout).toContain(`${35000 - 60} available`);
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
      const cloned = await openvox(['clone', sample, '--name', 'Mine', '--consent', '--json'], env);
      expect(cloned.code).toBe(0);
      expect(cloned.json()).toMatchObject({ name: 'Mine', category: 'cloned', status: 'ready' });
      const mine = await openvox(['voices', '--category', 'cloned', '--json'], env);
      expect(mine.json().map((voice: any) => voice.id)).toEqual([cloned.json().id]);
      // A hang guard, no timing claim: a clone takes ~20 s on a quiet machine and over a minute on a busy one.
    }, 300_000);

    it('reads the URL and key from the config file when the environment has none', async () => {
      const configPath = path.join(dir, 'config.json');
      await writeFile(configPath, JSON.stringify({ url: env.OPENVOX_URL, api_key: env.OPENVOX_API_KEY }));
      const usage = await openvox(['usage', '--json'], { OPENVOX_CONFIG: configPath, OPENVOX_URL: undefined, OPENVOX_API_KEY: undefined });
      expect(usage.json().email).toBe(email);
      const missing = await openvox(['usage'], { OPENVOX_URL: undefined, OPENVOX_API_KEY: undefined });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('no API key');
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
  ])('openvox %j --help explains itself', async (args) => {
    const help = await openvox([...args, '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: openvox/);
  });

  it('runs as a program: one entry, subcommands listed in its help', async () => {
    const tsx = path.join(__dirname, '../../node_modules/.bin/tsx');
    const { stdout } = await run(tsx, [path.join(__dirname, '../../cli/main.ts'), '--help']);
    for (const command of ['user', 'users', 'credits', 'plan', 'say', 'voices', 'history', 'usage', 'clone']) expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    const packageJson = JSON.parse(await readFile(path.join(__dirname, '../../package.json'), 'utf8'));
    expect(packageJson.bin).toEqual({ openvox: 'dist/cli/main.js' });
  });
});
