import https from 'node:https';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { historyTable, openAiHint, openAiTable, usageText, voicesTable } from '../../cli/listings';
import { networkFailure } from '../../cli/network';
import { voiceNotes } from '../../cli/voiceChoice';
import type { HistoryEntryJson, OpenAiVoiceJson, ProfileJson, VoiceJson } from '../../cli/wire';

const voice = (over: Partial<VoiceJson>): VoiceJson => ({
  id: 'en-us-joe',
  name: 'Joe',
  category: 'premade',
  language: 'en-US',
  gender: 'male',
  description: '',
  status: 'ready',
  error: null,
  similarity: null,
  closest_premade: null,
  engine: 'piper',
  quality: 'neural',
  word_timestamps: true,
  licence: null,
  preview_url: null,
  created_at: '2026-11-01T00:00:00.000Z',
  ...over,
});

describe('voicesTable', () => {
  it('has a header and says neural or classic per voice; a clone still processing has no quality yet', () => {
    const table = voicesTable([
      voice({}),
      voice({ id: 'en-us-slt', name: 'SLT', gender: 'female', engine: 'festival', quality: 'classic' }),
      voice({ id: 'c0ffee', name: 'Mine\u001b[2J', category: 'cloned', status: 'processing', quality: null }),
    ]).split('\n');
    expect(table).toEqual([
      'id\tlanguage\tgender\tquality\tcategory\tstatus\tname',
      'en-us-joe\ten-US\tmale\tneural\tpremade\tready\tJoe',
      'en-us-slt\ten-US\tfemale\tclassic\tpremade\tready\tSLT',
      // A name the user typed cannot drive the terminal.
      'c0ffee\ten-US\tmale\t-\tcloned\tprocessing\tMine\\x1b[2J',
    ]);
    expect(voicesTable([])).toBe('no voices match');
  });
});

describe('OpenAI names', () => {
  const alias = (over: Partial<OpenAiVoiceJson>): OpenAiVoiceJson => ({
    id: 'nova',
    name: 'nova',
    language: 'en-US',
    gender: 'female',
    category: 'openai',
    voice_id: 'en-us-slt',
    neural: false,
    install: {
      key: 'kokoro:af_bella',
      voice_id: 'en-us-kokoro-bella',
      command: 'openvox voices install kokoro:af_bella',
    },
    ...over,
  });

  it('openAiTable lists the names with their voice and the install command of a classic one', () => {
    expect(
      openAiTable([
        alias({}),
        alias({ id: 'echo', name: 'echo', gender: 'male', voice_id: 'en-us-joe', neural: true, install: null }),
        alias({ id: 'en-us-joe', category: 'premade' }),
      ]).split('\n'),
    ).toEqual([
      'name\tgender\tvoice\tquality\tto make it neural',
      'nova\tfemale\ten-us-slt\tclassic\topenvox voices install kokoro:af_bella',
      'echo\tmale\ten-us-joe\tneural\t-',
    ]);
  });

  it('a classic name gets the hint, a neural one none', () => {
    expect(openAiHint(alias({}))).toBe(
      'nova speaks with en-us-slt here, a classic voice; to make it neural, the operator runs: openvox voices install kokoro:af_bella',
    );
    expect(openAiHint(alias({ neural: true, install: null }))).toBeNull();
  });

  it('say’s notes: the default voice’s notice and the install hint, escaped', () => {
    expect(
      voiceNotes({
        voice_id: 'en-us-slt',
        source: 'openai',
        openai_name: 'nova',
        neural: false,
        install: alias({}).install!,
        notice: null,
      }),
    ).toEqual([`note: ${openAiHint(alias({}))}`]);
    expect(
      voiceNotes({
        voice_id: 'en-us-joe',
        source: 'service',
        openai_name: null,
        neural: null,
        install: null,
        notice: 'Your default voice "Mine\n" was deleted',
      }),
    ).toEqual(['note: Your default voice "Mine\\n" was deleted']);
  });
});

it('historyTable has a header, the progress of a running synthesis and the text’s start', () => {
  const entry = {
    id: '7d3c1d8e-0000-4000-8000-000000000001',
    status: 'completed',
    progress: 1,
    created_at: '2026-11-28T10:11:12.345Z',
    voice_id: 'en-us-joe',
    characters: 12,
    text: 'Hello there.',
  } as HistoryEntryJson;
  expect(
    historyTable([
      { ...entry, status: 'processing', progress: 0.42 },
      { ...entry, text: 'A long text that goes on and on, past forty characters.' },
    ]).split('\n'),
  ).toEqual([
    'id\tcreated\tstatus\tvoice\tcharacters\ttext',
    `${entry.id}\t2026-11-28 10:11:12\tprocessing 42%\ten-us-joe\t12\t"Hello there."`,
    `${entry.id}\t2026-11-28 10:11:12\tcompleted\ten-us-joe\t12\t"A long text that goes on and on, past fo…"`,
  ]);
  expect(historyTable([])).toBe('no syntheses');
});

describe('usageText', () => {
  const profile = {
    email: 'ada@example.com',
    subscription_tier: 'free',
    credit_balance: 34871,
    credits_reserved: 0,
    billing_period: { start: '2026-11-15T09:00:00.000Z', end: '2026-12-15T09:00:00.000Z' },
    default_voice: { id: 'en-us-joe', name: 'Joe', source: 'service', notice: null },
    usage: {
      period_start: '2026-11-01T00:00:00.000Z',
      period_end: '2026-12-01T00:00:00.000Z',
      credits_used: 129,
      characters_synthesized: 129,
      syntheses: 3,
      syntheses_failed: 0,
      audio_seconds: 9.43,
      cloned_voices: 1,
      cloned_voices_limit: 3,
      daily: [{ date: '2026-11-28', syntheses: 3, credits_used: 129, audio_seconds: 9.43 }],
    },
  } as unknown as ProfileJson;

  it('separates the billing period (the refill) from the calendar month the usage counts', () => {
    expect(usageText(profile).split('\n')).toEqual([
      'ada@example.com (plan free)',
      'credits: 34871 available, 0 reserved',
      "billing period: 2026-11-15 to 2026-12-15; on 2026-12-15 the credits are topped up to the plan's monthly credits and a new period starts",
      'default voice: Joe (en-us-joe, the service default)',
      'this month (2026-11-01 to 2026-11-30): 3 syntheses, 0 failed, 129 credits, 9.4 s of audio, 1/3 cloned voices',
      '  2026-11-28: 3 syntheses, 129 credits, 9.4 s of audio',
    ]);
  });

  it('says when there is no billing period yet, and why a chosen default voice is passed over', () => {
    const text = usageText({
      ...profile,
      billing_period: null,
      default_voice: { id: 'en-us-joe', name: 'Joe', source: 'service', notice: 'Your default voice was deleted.' },
    });
    expect(text).toContain('billing period: none yet; credits are granted when the email address is verified');
    expect(text).toContain('note: Your default voice was deleted.');
    expect(
      usageText({ ...profile, default_voice: { id: 'x', name: 'Mine', source: 'account', notice: null } }),
    ).toContain('default voice: Mine (x, your choice)');
  });
});

describe('networkFailure', () => {
  const failureOf = async (url: string, timeoutMs = 10_000) => {
    try {
      await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      return networkFailure(error);
    }
    throw new Error(`${url} answered`);
  };

  it('names a refused connection with its address', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    expect(await failureOf(`http://127.0.0.1:${port}/voices.json`)).toEqual({
      code: 'connection_refused',
      cause: `ECONNREFUSED 127.0.0.1:${port}`,
      detail: `ECONNREFUSED 127.0.0.1:${port} (connection refused: nothing listens there)`,
    });
  });

  it('names a host DNS does not know', async () => {
    // .invalid never resolves (RFC 6761); a resolver that cannot be reached says EAI_AGAIN, the same kind.
    const failure = await failureOf('http://openvox-no-such-host.invalid/voices.json');
    expect(failure).toMatchObject({
      code: 'host_not_found',
      cause: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN) openvox-no-such-host\.invalid$/),
    });
  });

  it('names a TLS failure with its code and words', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'openvox-tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          path.join(dir, 'key.pem'),
          '-out',
          path.join(dir, 'cert.pem'),
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
        ],
        { stdio: 'pipe' },
      );
      const server = https.createServer(
        { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) },
        (_request, response) => response.end('{}'),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        expect(await failureOf(`https://127.0.0.1:${port}/voices.json`)).toEqual({
          code: 'tls_failed',
          cause: 'DEPTH_ZERO_SELF_SIGNED_CERT',
          detail: 'DEPTH_ZERO_SELF_SIGNED_CERT (TLS failed: self-signed certificate)',
        });
      } finally {
        server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names a timeout, and looks through causes and AggregateErrors', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      expect(await failureOf(`http://127.0.0.1:${port}/`, 200)).toMatchObject({ code: 'timed_out' });
    } finally {
      silent.close();
    }
    const refused = (address: string) =>
      Object.assign(new Error(`connect ECONNREFUSED ${address}:3000`), { code: 'ECONNREFUSED', address, port: 3000 });
    const wrapped = new Error('cannot read the index', {
      cause: new TypeError('fetch failed', { cause: new AggregateError([refused('::1'), refused('127.0.0.1')]) }),
    });
    expect(networkFailure(wrapped)).toMatchObject({ code: 'connection_refused', cause: 'ECONNREFUSED [::1]:3000' });
    expect(networkFailure(new Error('not a network failure'))).toBeNull();
    expect(networkFailure(new TypeError('fetch failed', { cause: new Error('bad port') }))).toEqual({
      code: 'network_error',
      cause: 'bad port',
      detail: 'bad port',
    });
  });
});
