import { randomUUID } from 'node:crypto';

import { createAccount, createSynthesis, createVoice, type TestAccount } from '../helpers/factories';
import { useStack } from '../helpers/stack';
import {
  fetchAndMeasure,
  itRendersEveryFormat,
  startJobs,
  SYNTHESIS_FAMILIES,
  synthesizeAndWait,
  waitForSynthesis,
} from '../helpers/synthesis';
import { BAD_PAGE_QUERIES, call, expectProblem, readReply, type Reply } from '../helpers/http';

/**
 * The synthesis request contract of API.md ("Text to speech", "Projects",
 * "Conventions") against the real stack: validation, credits, formats, Range,
 * ownership, history and the project link, in both path families.
 */

const VOICE = 'en-us-slt';
const SENTENCE = 'The quick brown fox jumps over the lazy dog.';
/** Long enough (~5 s) for stable duration and pitch measurements. */
const MEASURED =
  'Speech synthesis turns written words into sound for every listener. The quick brown fox jumps over the lazy dog.';
const FIFTY = 'Fifty characters of text are spoken by this voice.';
const FORTY_THREE = 'The quick brown fox jumps over the lazy dog';
/** `length` code points of readable text (no whitespace at either end). */
const textOf = (length: number) =>
  'Hello world, this is a longer text. '
    .repeat(Math.ceil(length / 36) + 1)
    .slice(0, length)
    .replace(/\s$/, 'x');

/** A 400 validation_error whose `errors` names exactly `fields`, and whose detail names the first one. */
function expectFieldError(reply: Reply, ...fields: string[]) {
  expectProblem(reply, 400, 'validation_error');
  expect(Object.keys(reply.body.errors ?? {}).sort()).toEqual([...fields].sort());
  for (const field of fields) expect(reply.body.errors[field]).toEqual([expect.any(String)]);
  expect(reply.body.detail).toMatch(new RegExp(`^(${fields.join('|')}): `));
}

const { deps, api } = useStack({ worker: true });

/** What a rejected request must not change: the account's credits, its syntheses and its ledger. */
async function footprint(accountId: string) {
  const account = await deps.db('accounts').where({ id: accountId }).first('credit_balance', 'credits_reserved');
  const [{ syntheses }] = await deps
    .db('syntheses')
    .where({ account_id: accountId })
    .count<{ syntheses: string }[]>({ syntheses: '*' });
  const [{ ledger }] = await deps
    .db('credit_ledger')
    .where({ account_id: accountId })
    .count<{ ledger: string }[]>({ ledger: '*' });
  return {
    credit_balance: Number(account.credit_balance),
    credits_reserved: Number(account.credits_reserved),
    syntheses: Number(syntheses),
    ledger: Number(ledger),
  };
}

const ledgerOf = async (accountId: string, reference: string) =>
  (
    await deps.db('credit_ledger').where({ account_id: accountId, reference }).orderBy('id').select('kind', 'amount')
  ).map((row: { kind: string; amount: string }) => [row.kind, Number(row.amount)]);

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

describe.each(SYNTHESIS_FAMILIES)('synthesis requests in the %s family', (family, idKey, statusPath, audioPath) => {
  const req = (method: string, path: string, body: unknown, who: TestAccount) =>
    call(api.url, method, `${family}${path}`, body, who.access);
  /** GET of a full path (status and audio paths carry the family already). */
  const get = (path: string, who: TestAccount) => call(api.url, 'GET', path, undefined, who.access);
  const submit = (who: TestAccount, body: unknown) => req('POST', '/tts/synthesize/', body, who);
  const entryPath = (id: string) => `/tts/history/${id}/`;
  /** The answers of status, audio, entry GET and entry DELETE for `id`, asked in turn by `who`. */
  const askEveryEndpoint = async (id: string, who: TestAccount) => [
    await get(statusPath(id), who),
    await get(audioPath(id), who),
    await req('GET', entryPath(id), undefined, who),
    await req('DELETE', entryPath(id), undefined, who),
  ];
  const rawPost = async (who: TestAccount, text: string): Promise<Reply> => {
    const response = await fetch(`${api.url}${family}/tts/synthesize/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${who.access}` },
      body: text,
    });
    return readReply(response);
  };
  const fetchAudio = async (id: string, who: TestAccount, range?: string) => {
    const response = await fetch(`${api.url}${audioPath(id)}`, {
      headers: { Authorization: `Bearer ${who.access}`, ...(range && { Range: range }) },
    });
    return { response, bytes: Buffer.from(await response.arrayBuffer()) };
  };

  /** Submits (expecting 202) and polls to the end. */
  const synthesize = (who: TestAccount, body: Record<string, unknown>) =>
    synthesizeAndWait(api.url, who.access, body, { family });

  describe('rejecting bad input', () => {
    let owner: TestAccount;
    let stranger: TestAccount;
    let strangersProject: string;
    const strangersVoice = randomUUID();
    const processingVoice = randomUUID();
    beforeAll(async () => {
      [owner, stranger] = await Promise.all([createAccount(deps), createAccount(deps)]);
      strangersProject = (await req('POST', '/projects/', { name: 'Not yours' }, stranger)).body.id;
      // Cloned voices as the cloning workflow leaves them: another account's ready one, and one of the owner's still processing.
      await Promise.all([
        createVoice(deps, stranger, { id: strangersVoice, name: 'Not yours', status: 'ready' }),
        createVoice(deps, owner, { id: processingVoice, name: 'Still cloning', status: 'processing' }),
      ]);
    });

    const base = { text: SENTENCE, voice_id: VOICE };
    const cases: Array<[string, () => unknown, string]> = [
      ['speed 0.49', () => ({ ...base, speed: 0.49 }), 'speed'],
      ['speed 2.01', () => ({ ...base, speed: 2.01 }), 'speed'],
      ['speed "fast"', () => ({ ...base, speed: 'fast' }), 'speed'],
      ['speed null', () => ({ ...base, speed: null }), 'speed'],
      ['pitch -12.5', () => ({ ...base, pitch: -12.5 }), 'pitch'],
      ['pitch 13', () => ({ ...base, pitch: 13 }), 'pitch'],
      ['pitch "x"', () => ({ ...base, pitch: 'x' }), 'pitch'],
      ['emotion "furious"', () => ({ ...base, emotion: 'furious' }), 'emotion'],
      ['emotion 1', () => ({ ...base, emotion: 1 }), 'emotion'],
      ['output_format "aac"', () => ({ ...base, output_format: 'aac' }), 'output_format'],
      ['output_format "WAV"', () => ({ ...base, output_format: 'WAV' }), 'output_format'],
      ['voice_id missing', () => ({ text: SENTENCE }), 'voice_id'],
      ['voice_id ""', () => ({ ...base, voice_id: '' }), 'voice_id'],
      ['voice_id unknown', () => ({ ...base, voice_id: 'xx-nowhere-nobody' }), 'voice_id'],
      ['voice_id 123', () => ({ ...base, voice_id: 123 }), 'voice_id'],
      ["voice_id another account's cloned voice", () => ({ ...base, voice_id: strangersVoice }), 'voice_id'],
      [
        'project_id an unknown uuid',
        () => ({ ...base, project_id: '7d3c2f9a-1b2c-4d5e-8f90-123456789abc' }),
        'project_id',
      ],
      ['project_id not a uuid', () => ({ ...base, project_id: 'not-a-uuid' }), 'project_id'],
      ["project_id another account's project", () => ({ ...base, project_id: strangersProject }), 'project_id'],
      ['text missing', () => ({ voice_id: VOICE }), 'text'],
      ['text ""', () => ({ ...base, text: '' }), 'text'],
      ['text whitespace only', () => ({ ...base, text: '  \n\t\u00a0 ' }), 'text'],
      ['text punctuation only', () => ({ ...base, text: '?!... —' }), 'text'],
      ['text containing NUL', () => ({ ...base, text: 'Hello\u0000world' }), 'text'],
      ['text of 50 000 characters', () => ({ ...base, text: textOf(50_000) }), 'text'],
      ['text of 5001 characters on the free plan', () => ({ ...base, text: textOf(5001) }), 'text'],
      ['text a number', () => ({ ...base, text: 42 }), 'text'],
      ['an unknown field', () => ({ ...base, colour: 'red' }), 'colour'],
    ];

    it.each(cases)(
      '%s -> 400 validation_error naming the field; nothing reserved or recorded',
      async (_, body, field) => {
        const before = await footprint(owner.id);
        expectFieldError(await submit(owner, body()), field);
        expect(await footprint(owner.id)).toEqual(before);
      },
    );

    it("answers another account's project_id with the same message as an unknown one", async () => {
      const unknown = await submit(owner, { ...base, project_id: '7d3c2f9a-1b2c-4d5e-8f90-123456789abc' });
      const foreign = await submit(owner, { ...base, project_id: strangersProject });
      expect(foreign.body.errors).toEqual(unknown.body.errors);
      expect(foreign.body.detail).toBe(unknown.body.detail);
    });

    it("answers another account's cloned voice_id with the same message as an unknown one", async () => {
      const unknown = await submit(owner, { ...base, voice_id: randomUUID() });
      const foreign = await submit(owner, { ...base, voice_id: strangersVoice });
      expectFieldError(unknown, 'voice_id');
      expect(foreign.body.errors).toEqual(unknown.body.errors);
      expect(foreign.body.detail).toBe(unknown.body.detail);
    });

    it('answers 409 voice_not_ready for a cloned voice still processing; nothing reserved or recorded', async () => {
      const before = await footprint(owner.id);
      expectProblem(await submit(owner, { ...base, voice_id: processingVoice }), 409, 'voice_not_ready');
      expect(await footprint(owner.id)).toEqual(before);
    });

    it('rejects a body with no members, naming both required fields', async () => {
      const before = await footprint(owner.id);
      expectFieldError(await rawPost(owner, '{}'), 'text', 'voice_id');
      expect(await footprint(owner.id)).toEqual(before);
    });

    it.each(['[]', JSON.stringify([base])])(
      'rejects the array body %s with 400 validation_error; nothing recorded',
      async (text) => {
        const before = await footprint(owner.id);
        const reply = await rawPost(owner, text);
        expectProblem(reply, 400, 'validation_error');
        expect(await footprint(owner.id)).toEqual(before);
      },
    );

    // A scalar JSON body is parseable JSON but not an object. The shared body parser refuses it
    // in strict mode, and test/e2e/conventions.test.ts pins that answer as invalid_json; either
    // 400 code tells the client the body is unusable.
    it.each(['"hello"', '42', 'null', 'true'])(
      'rejects the scalar body %s with 400; nothing recorded',
      async (text) => {
        const before = await footprint(owner.id);
        const reply = await rawPost(owner, text);
        expect(reply.status).toBe(400);
        expect(['validation_error', 'invalid_json']).toContain(reply.body.code);
        expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(await footprint(owner.id)).toEqual(before);
      },
    );

    it('accepts exactly 5000 characters after trimming, and deleting it at once releases the reservation', async () => {
      const account = await createAccount(deps, { credits: 6000 });
      const accepted = await submit(account, { text: `  ${textOf(5000)}\n `, voice_id: VOICE });
      expect(accepted.status).toBe(202);
      expect(accepted.body.characters).toBe(5000);
      const id = accepted.body[idKey];
      expect(accepted.body.status_url).toBe(statusPath(id));
      expect(accepted.headers.get('location')).toBe(statusPath(id));
      expect((await req('DELETE', entryPath(id), undefined, account)).status).toBe(204);
      expect((await get(statusPath(id), account)).status).toBe(404);
      const ledger = await eventually(
        () => ledgerOf(account.id, id),
        (rows) => rows.length >= 2,
      );
      expect(ledger).toEqual([
        ['reserve', 5000],
        ['release', 5000],
      ]);
      expect(await footprint(account.id)).toMatchObject({ credit_balance: 6000, credits_reserved: 0 });
    });

    it.each([
      ['speed 0.5', { speed: 0.5 }],
      ['speed 2.0', { speed: 2.0 }],
      ['pitch -12', { pitch: -12 }],
      ['pitch 12', { pitch: 12 }],
      ['project_id null', { project_id: null }],
    ])('accepts the boundary value %s with 202', async (_, extra) => {
      const accepted = await submit(owner, { ...base, ...extra });
      expect(accepted.status).toBe(202);
      expect((await req('DELETE', entryPath(accepted.body[idKey]), undefined, owner)).status).toBe(204);
    });

    it.each([
      ['an emoji counts as one character', 'Hi 😀', 4],
      ['a decomposed e + combining acute counts as one after NFC', 'Cafe\u0301', 4],
      ['surrounding whitespace is not counted', ' \n Hello \t ', 5],
    ])('%s (202 characters and the reservation)', async (_, text, characters) => {
      const accepted = await submit(owner, { text, voice_id: VOICE });
      expect(accepted.status).toBe(202);
      expect(accepted.body.characters).toBe(characters);
      const id = accepted.body[idKey];
      expect((await ledgerOf(owner.id, id))[0]).toEqual(['reserve', characters]);
      expect((await req('DELETE', entryPath(id), undefined, owner)).status).toBe(204);
    });
  });

  describe('credits', () => {
    it('answers 402 insufficient_credits when the balance is below the cost, reserving and recording nothing', async () => {
      const poor = await createAccount(deps, { credits: 10 });
      const before = await footprint(poor.id);
      expect(before).toEqual({ credit_balance: 10, credits_reserved: 0, syntheses: 0, ledger: 0 });
      expect(FORTY_THREE).toHaveLength(43);
      expectProblem(await submit(poor, { text: FORTY_THREE, voice_id: VOICE }), 402, 'insufficient_credits');
      expect(await footprint(poor.id)).toEqual(before);
      expect((await req('GET', '/tts/history/', undefined, poor)).body.count).toBe(0);
    });

    it('accepts exactly as many parallel submissions as the balance covers, never overdraws, and charges each accepted one once', async () => {
      const account = await createAccount(deps, { credits: 300 });
      expect(FIFTY).toHaveLength(50);
      const replies = await Promise.all(
        Array.from({ length: 10 }, () => submit(account, { text: FIFTY, voice_id: VOICE })),
      );
      const accepted = replies.filter((reply) => reply.status === 202);
      const refused = replies.filter((reply) => reply.status !== 202);
      expect(accepted).toHaveLength(6);
      expect(refused).toHaveLength(4);
      for (const reply of refused) expectProblem(reply, 402, 'insufficient_credits');
      const ids = accepted.map((reply) => reply.body[idKey] as string);

      // One statement, so balance, reservations and captures are one consistent snapshot.
      const snapshot = async () => {
        const { rows } = await deps.db.raw(
          `select a.credit_balance, a.credits_reserved,
                  (select coalesce(sum(l.amount), 0) from credit_ledger l where l.account_id = a.id and l.kind = 'capture') as captured
             from accounts a where a.id = ?`,
          [account.id],
        );
        return {
          balance: Number(rows[0].credit_balance),
          reserved: Number(rows[0].credits_reserved),
          captured: Number(rows[0].captured),
        };
      };
      const finals: any[] = [];
      for (const id of ids) {
        const sample = await snapshot();
        expect(sample.balance).toBeGreaterThanOrEqual(0);
        expect(sample.balance + sample.reserved + sample.captured).toBe(300);
        finals.push(await waitForSynthesis(api.url, statusPath(id), account.access, 110_000));
      }
      const completed = finals.filter((status) => status.status === 'completed');
      expect(completed).toHaveLength(6);
      expect(completed.map((status) => status.credits_charged)).toEqual(Array(completed.length).fill(50));
      const charged = 50 * completed.length;

      const end = await snapshot();
      expect(end).toEqual({ balance: 300 - charged, reserved: 0, captured: charged });
      for (const [index, id] of ids.entries()) {
        expect(await ledgerOf(account.id, id)).toEqual([
          ['reserve', 50],
          [finals[index].status === 'completed' ? 'capture' : 'release', 50],
        ]);
      }
      expect((await footprint(account.id)).ledger).toBe(12);

      const profile = await req('GET', '/auth/profile/', undefined, account);
      expect(profile.status).toBe(200);
      expect(profile.body).toMatchObject({ credit_balance: 300 - charged, credits_reserved: 0 });
      expect(profile.body.usage).toMatchObject({
        syntheses: completed.length,
        syntheses_failed: 0,
        characters_synthesized: charged,
        credits_used: charged,
      });
      const seconds = completed.reduce((sum, status) => sum + status.duration_seconds, 0);
      expect(profile.body.usage.audio_seconds).toBeGreaterThan(0);
      expect(profile.body.usage.audio_seconds).toBeCloseTo(seconds, 1);
    }, 150_000);
  });

  describe('formats and audio', () => {
    let owner: TestAccount;
    const jobs = new Map<string, Promise<{ id: string; done: any }>>();
    const job = (name: string) => jobs.get(name)!;
    beforeAll(async () => {
      owner = await createAccount(deps);
      const bodies: Record<string, Record<string, unknown>> = {
        wav: { text: MEASURED, voice_id: VOICE, output_format: 'wav' },
        mp3: { text: MEASURED, voice_id: VOICE, output_format: 'mp3' },
        ogg: { text: MEASURED, voice_id: VOICE, output_format: 'ogg' },
        flac: { text: MEASURED, voice_id: VOICE, output_format: 'flac' },
        speed2: { text: MEASURED, voice_id: VOICE, speed: 2.0 },
        pitch12: { text: MEASURED, voice_id: VOICE, pitch: 12 },
      };
      startJobs(bodies, (body) => synthesize(owner, body), jobs);
    });

    itRendersEveryFormat(
      'serves %s as %s, probing as %s/%s, with a plausible, audible duration',
      { api, token: () => owner.access, job, idKey, seconds: [3, 15], fields: (id) => ({ audio_url: audioPath(id) }) },
      async (audio, { done }) => {
        expect(Number(audio.response.headers.get('content-length'))).toBe(audio.bytes.length);
        expect(audio.response.headers.get('accept-ranges')).toBe('bytes');
        // Every format carries the same speech: the durations agree with the WAV's.
        const wav = (await job('wav')).done;
        expect(Math.abs(done.duration_seconds - wav.duration_seconds)).toBeLessThan(0.15);
      },
    );

    it('speed 2.0 gives at most 0.55x the duration of the same text at speed 1.0', async () => {
      const [normal, fast] = await Promise.all([job('wav'), job('speed2')]);
      const [a, b] = await Promise.all([
        fetchAndMeasure(api.url, normal.done.audio_url, owner.access),
        fetchAndMeasure(api.url, fast.done.audio_url, owner.access),
      ]);
      const ratio = b.analysis.durationSeconds / a.analysis.durationSeconds;
      expect(ratio).toBeLessThanOrEqual(0.55);
      expect(ratio).toBeGreaterThan(0.4);
      expect(b.analysis.silenceRatio).toBeLessThan(0.6);
    }, 120_000);

    it('pitch +12 about doubles the median F0 (1.8-2.2x)', async () => {
      const [normal, high] = await Promise.all([job('wav'), job('pitch12')]);
      const [a, b] = await Promise.all([
        fetchAndMeasure(api.url, normal.done.audio_url, owner.access),
        fetchAndMeasure(api.url, high.done.audio_url, owner.access),
      ]);
      expect(a.analysis.f0MedianHz).not.toBeNull();
      expect(b.analysis.f0MedianHz).not.toBeNull();
      const ratio = b.analysis.f0MedianHz! / a.analysis.f0MedianHz!;
      expect(ratio).toBeGreaterThanOrEqual(1.8);
      expect(ratio).toBeLessThanOrEqual(2.2);
      // Pitch leaves the tempo alone.
      expect(Math.abs(b.analysis.durationSeconds - a.analysis.durationSeconds)).toBeLessThan(0.5);
    }, 120_000);
  });

  describe('audio Range and readiness', () => {
    let owner: TestAccount;
    let id: string;
    let full: Buffer;
    beforeAll(async () => {
      owner = await createAccount(deps);
      ({ id } = await synthesize(owner, { text: SENTENCE, voice_id: VOICE }));
      const whole = await fetchAudio(id, owner);
      expect(whole.response.status).toBe(200);
      full = whole.bytes;
      expect(full.length).toBeGreaterThan(1000);
    }, 120_000);

    it('serves bytes=0-99 as 206 with Content-Range, Content-Length 100 and the same bytes as the full body', async () => {
      const { response, bytes } = await fetchAudio(id, owner, 'bytes=0-99');
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes 0-99/${full.length}`);
      expect(response.headers.get('content-length')).toBe('100');
      expect(response.headers.get('content-type')).toBe('audio/wav');
      expect(bytes.equals(full.subarray(0, 100))).toBe(true);
    });

    it('serves the open-ended range bytes=100- up to the last byte', async () => {
      const { response, bytes } = await fetchAudio(id, owner, 'bytes=100-');
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes 100-${full.length - 1}/${full.length}`);
      expect(Number(response.headers.get('content-length'))).toBe(full.length - 100);
      expect(bytes.equals(full.subarray(100))).toBe(true);
    });

    it('serves the suffix range bytes=-50 as the last 50 bytes', async () => {
      const { response, bytes } = await fetchAudio(id, owner, 'bytes=-50');
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes ${full.length - 50}-${full.length - 1}/${full.length}`);
      expect(response.headers.get('content-length')).toBe('50');
      expect(bytes.equals(full.subarray(full.length - 50))).toBe(true);
    });

    it('clamps a range ending past the size to the last byte', async () => {
      const { response, bytes } = await fetchAudio(id, owner, `bytes=10-${full.length * 2}`);
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes 10-${full.length - 1}/${full.length}`);
      expect(bytes.equals(full.subarray(10))).toBe(true);
    });

    it.each([
      ['starting at the size', (size: number) => `bytes=${size}-`],
      ['starting beyond the size', (size: number) => `bytes=${size + 10}-${size + 20}`],
    ])('answers a range %s with 416 range_not_satisfiable and Content-Range bytes */<size>', async (_, range) => {
      const response = await fetch(`${api.url}${audioPath(id)}`, {
        headers: { Authorization: `Bearer ${owner.access}`, Range: range(full.length) },
      });
      const body = (await response.json()) as any;
      expect(response.status).toBe(416);
      expect(body.code).toBe('range_not_satisfiable');
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.headers.get('content-range')).toBe(`bytes */${full.length}`);
    });

    it('answers 409 not_ready for the audio of a synthesis still queued or processing', async () => {
      for (const length of [3000, 4900]) {
        const accepted = await submit(owner, { text: textOf(length), voice_id: VOICE });
        expect(accepted.status).toBe(202);
        const longId = accepted.body[idKey] as string;
        let sawUnfinished = false;
        try {
          const status = await get(statusPath(longId), owner);
          if (status.body.status !== 'queued' && status.body.status !== 'processing') continue;
          sawUnfinished = true;
          expect(status.body).toMatchObject({ audio_url: null, duration_seconds: null, credits_charged: 0 });
          expectProblem(await get(audioPath(longId), owner), 409, 'not_ready');
        } finally {
          // Canceling it keeps the CPU for the other tests.
          expect((await req('DELETE', entryPath(longId), undefined, owner)).status).toBe(204);
        }
        if (sawUnfinished) {
          // Deleting a running synthesis cancels it and releases its reservation.
          const ledger = await eventually(
            () => ledgerOf(owner.id, longId),
            (rows) => rows.length >= 2,
          );
          expect(ledger).toEqual([
            ['reserve', length],
            ['release', length],
          ]);
          return;
        }
      }
      throw new Error('even a 4900-character synthesis completed before its audio could be requested');
    }, 60_000);
  });

  describe('ownership', () => {
    let owner: TestAccount;
    let stranger: TestAccount;
    let id: string;
    let doomed: string;
    beforeAll(async () => {
      [owner, stranger] = await Promise.all([createAccount(deps), createAccount(deps)]);
      [{ id }, { id: doomed }] = await Promise.all([
        synthesize(owner, { text: SENTENCE, voice_id: VOICE }),
        synthesize(owner, { text: 'This one will be deleted.', voice_id: VOICE }),
      ]);
    }, 120_000);

    it('deletes its own completed entry with 204: gone from history, audio removed from storage, the charge kept', async () => {
      const { audio_key: key } = await deps.db('syntheses').where({ id: doomed }).first('audio_key');
      expect(await deps.storage.size(key)).toBeGreaterThan(0);
      expect((await req('DELETE', entryPath(doomed), undefined, owner)).status).toBe(204);
      expectProblem(await req('GET', entryPath(doomed), undefined, owner), 404, 'not_found');
      expectProblem(await get(audioPath(doomed), owner), 404, 'not_found');
      expectProblem(await req('DELETE', entryPath(doomed), undefined, owner), 404, 'not_found');
      expect(await deps.storage.size(key)).toBeNull();
      expect(await ledgerOf(owner.id, doomed)).toEqual([
        ['reserve', 25],
        ['capture', 25],
      ]);
    });

    it("answers 404 for another account's synthesis on status, audio, entry GET and DELETE, and leaves it unchanged", async () => {
      const before = await req('GET', entryPath(id), undefined, owner);
      expect(before.status).toBe(200);
      for (const reply of await askEveryEndpoint(id, stranger)) expectProblem(reply, 404, 'not_found');
      expect((await req('GET', '/tts/history/', undefined, stranger)).body.count).toBe(0);
      expect(await req('GET', entryPath(id), undefined, owner)).toMatchObject({ status: 200, body: before.body });
      expect((await fetchAudio(id, owner)).response.status).toBe(200);
    });

    it.each([
      'not-a-uuid',
      '12345',
      '7d3c2f9a1b2c4d5e8f90123456789abc',
      '7d3c2f9a-1b2c-4d5e-8f90-123456789abcd',
      '7d3c2f9a-1b2c-4d5e-8f90-123456789abc',
    ])('answers 404 for the malformed or unknown id %s on status, audio, entry GET and DELETE', async (bad) => {
      for (const reply of await askEveryEndpoint(bad, owner)) expectProblem(reply, 404, 'not_found');
    });
  });

  describe('history', () => {
    let owner: TestAccount;
    let otherVoice: string;
    let projectId: string;
    let first: { id: string; done: any };
    let second: { id: string; done: any };
    let failedId: string;
    const list = (query: string) => req('GET', `/tts/history/${query}`, undefined, owner);
    const ids = (reply: Reply) => reply.body.results.map((entry: Record<string, string>) => entry[idKey]);

    beforeAll(async () => {
      owner = await createAccount(deps);
      const voice = await deps
        .db('voices')
        .where({ category: 'premade', available: true })
        .whereNot({ id: VOICE })
        .orderBy('sort_order')
        .first('id');
      otherVoice = voice.id;
      projectId = (await req('POST', '/projects/', { name: 'History' }, owner)).body.id;
      // One after the other, so their creation order is certain even when one is resubmitted.
      first = await synthesize(owner, { text: 'The first entry.', voice_id: VOICE });
      second = await synthesize(owner, {
        text: 'The second entry.',
        voice_id: otherVoice,
        speed: 1.1,
        pitch: -2,
        emotion: 'calm',
        output_format: 'flac',
        project_id: projectId,
      });
      // A failed synthesis, written the way the workflow records one (no engine fails on demand).
      failedId = await createSynthesis(deps, owner, {
        voice_id: VOICE,
        text: 'It failed.',
        status: 'failed',
        error: JSON.stringify({ code: 'synthesis_failed', message: 'The speech engine could not render this text.' }),
        started_at: new Date(),
        completed_at: new Date(),
      });
    }, 120_000);

    it('lists newest first; each entry is the status object plus text, voice_id, speed, pitch, emotion, project_id and how the text was read', async () => {
      const read = { text_type: 'text', text_normalization: 'auto', pronunciation_dictionary_ids: [] };
      /** What an entry adds to a status object for `text`: by default asked of VOICE as it speaks, in no project. */
      const asked = (text: string, request: Record<string, unknown> = {}) => ({
        text,
        voice_id: VOICE,
        speed: 1,
        pitch: 0,
        emotion: 'neutral',
        project_id: null,
        ...request,
        ...read,
      });
      const page = await list('');
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ count: 3, next: null, previous: null });
      expect(ids(page)).toEqual([failedId, second.id, first.id]);
      const [failed, secondEntry, firstEntry] = page.body.results;
      expect(secondEntry).toEqual({
        ...second.done,
        ...asked('The second entry.', {
          voice_id: otherVoice,
          speed: 1.1,
          pitch: -2,
          emotion: 'calm',
          project_id: projectId,
        }),
      });
      expect(secondEntry).toMatchObject({
        status: 'completed',
        output_format: 'flac',
        audio_url: audioPath(second.id),
        credits_charged: 17,
      });
      expect(firstEntry).toEqual({ ...first.done, ...asked('The first entry.') });
      expect(failed).toEqual({
        [idKey]: failedId,
        status: 'failed',
        progress: expect.any(Number),
        created_at: expect.any(String),
        started_at: expect.any(String),
        completed_at: expect.any(String),
        characters: 10,
        credits_charged: 0,
        output_format: 'wav',
        duration_seconds: null,
        audio_url: null,
        eta_seconds: null,
        error: { code: 'synthesis_failed', message: expect.any(String) },
        ...asked('It failed.'),
      });
    });

    it('answers 409 not_ready for the audio of a failed synthesis', async () => {
      expectProblem(await get(audioPath(failedId), owner), 409, 'not_ready');
    });

    it('counts completed and failed syntheses of the period in the profile usage', async () => {
      const profile = await req('GET', '/auth/profile/', undefined, owner);
      expect(profile.body.usage).toMatchObject({
        syntheses: 2,
        syntheses_failed: 1,
        characters_synthesized: 33,
        credits_used: 33,
      });
      expect(profile.body.usage.audio_seconds).toBeCloseTo(
        first.done.duration_seconds + second.done.duration_seconds,
        1,
      );
      expect(profile.body).toMatchObject({ credit_balance: 35_000 - 33, credits_reserved: 0 });
    });

    it('returns one entry at history/<id>/ equal to its list entry', async () => {
      const page = await list('');
      for (const entry of page.body.results) {
        const one = await req('GET', entryPath(entry[idKey]), undefined, owner);
        expect(one.status).toBe(200);
        expect(one.body).toEqual(entry);
      }
    });

    it('paginates with count and next/previous, and answers a page past the end with 200 and no results', async () => {
      const page1 = await list('?page_size=2');
      expect(page1.body).toMatchObject({ count: 3, previous: null });
      expect(ids(page1)).toEqual([failedId, second.id]);
      expect(page1.body.next).toMatch(new RegExp(`^https?://[^/]+${family}/tts/history/\\?.*page=2`));
      const page2 = await list('?page_size=2&page=2');
      expect(page2.body).toMatchObject({ count: 3, next: null });
      expect(ids(page2)).toEqual([first.id]);
      expect(page2.body.previous).toMatch(new RegExp(`^https?://[^/]+${family}/tts/history/\\?.*page=1`));
      const past = await list('?page_size=2&page=7');
      expect(past.status).toBe(200);
      expect(past.body).toMatchObject({ count: 3, next: null, results: [] });
    });

    it.each(BAD_PAGE_QUERIES)('answers ?%s with 400 validation_error on %s', async (query, field) => {
      expectFieldError(await list(`?${query}`), field);
    });

    it('filters by status', async () => {
      expect(ids(await list('?status=completed'))).toEqual([second.id, first.id]);
      expect(ids(await list('?status=failed'))).toEqual([failedId]);
      const queued = await list('?status=queued');
      expect(queued.body).toMatchObject({ count: 0, results: [] });
      expect((await list('?status=completed')).body.count).toBe(2);
    });

    it('answers an unknown status filter with 400 validation_error on status', async () => {
      expectFieldError(await list('?status=done'), 'status');
    });

    it('filters by voice_id', async () => {
      expect(ids(await list(`?voice_id=${otherVoice}`))).toEqual([second.id]);
      expect(ids(await list(`?voice_id=${VOICE}`))).toEqual([failedId, first.id]);
      expect((await list('?voice_id=xx-nowhere-nobody')).body).toMatchObject({ count: 0, results: [] });
    });

    it('filters by project_id, also combined with status', async () => {
      expect(ids(await list(`?project_id=${projectId}`))).toEqual([second.id]);
      expect(ids(await list(`?project_id=${projectId}&status=failed`))).toEqual([]);
      expect((await list('?project_id=7d3c2f9a-1b2c-4d5e-8f90-123456789abc')).body.count).toBe(0);
    });

    it('filters by creation time: created_since inclusive, created_before exclusive, a bare date at midnight UTC', async () => {
      // Spread the three over three days, keeping their order (newest first: failed, second, first).
      const days = new Map([
        [first.id, '2026-01-10T12:00:00Z'],
        [second.id, '2026-02-10T12:00:00Z'],
        [failedId, '2026-03-10T12:00:00Z'],
      ]);
      for (const [id, day] of days) await deps.db('syntheses').where({ id }).update({ created_at: day });
      expect(ids(await list('?created_since=2026-02-10'))).toEqual([failedId, second.id]);
      expect(ids(await list('?created_before=2026-02-10T12:00:00Z'))).toEqual([first.id]);
      expect(ids(await list('?created_since=2026-02-10T12:00:00%2B00:00&created_before=2026-03-01'))).toEqual([
        second.id,
      ]);
      expect(ids(await list(`?created_since=2026-01-01&created_before=2026-04-01&voice_id=${VOICE}`))).toEqual([
        failedId,
        first.id,
      ]);
      expect((await list('?created_since=2026-04-01')).body).toMatchObject({ count: 0, results: [] });
      expectFieldError(await list('?created_since=yesterday'), 'created_since');
      expectFieldError(await list('?created_before=2026-13-01'), 'created_before');
    });
  });

  describe('a submission whose row commits late', () => {
    // The row commits before the workflow starts: a slow commit (a deferred trigger adds 0.5 s) must not lose the synthesis.
    let account: TestAccount;
    const trigger = `test_late_commit_${randomUUID().replace(/-/g, '')}`;
    beforeAll(async () => {
      account = await createAccount(deps);
      await deps.db.raw(
        `create function ${trigger}() returns trigger language plpgsql as $$ begin perform pg_sleep(0.5); return null; end $$`,
      );
      await deps.db.raw(
        `create constraint trigger ${trigger} after insert on syntheses deferrable initially deferred
           for each row when (new.account_id = '${account.id}') execute function ${trigger}()`,
      );
    });
    afterAll(async () => {
      await deps.db.raw(`drop trigger if exists ${trigger} on syntheses`);
      await deps.db.raw(`drop function if exists ${trigger}()`);
    });

    it('has the late-commit trigger in place for that one account', async () => {
      const { rows } = await deps.db.raw(`select tgname from pg_trigger where tgname = ?`, [trigger]);
      expect(rows).toHaveLength(1);
    });

    it('still completes the synthesis it accepted', async () => {
      const accepted = await submit(account, { text: SENTENCE, voice_id: VOICE });
      expect(accepted.status).toBe(202);
      const done = await waitForSynthesis(api.url, statusPath(accepted.body[idKey]), account.access, 20_000);
      expect(done).toMatchObject({ status: 'completed', error: null, credits_charged: SENTENCE.length });
    }, 40_000);
  });

  describe('the project link', () => {
    it("stores the caller's project_id, counts it in synthesis_count, and keeps the synthesis with project_id null when the project is deleted", async () => {
      const owner = await createAccount(deps);
      const project = await req('POST', '/projects/', { name: 'Chapter one' }, owner);
      expect(project.status).toBe(201);
      const projectId = project.body.id as string;

      const { id, done } = await synthesize(owner, { text: SENTENCE, voice_id: VOICE, project_id: projectId });
      expect(done.status).toBe('completed');
      expect((await req('GET', entryPath(id), undefined, owner)).body.project_id).toBe(projectId);
      expect((await req('GET', `/projects/${projectId}/`, undefined, owner)).body.synthesis_count).toBe(1);

      // An entry deleted from history no longer counts.
      const dropped = await submit(owner, { text: SENTENCE, voice_id: VOICE, project_id: projectId });
      expect(dropped.status).toBe(202);
      expect((await req('GET', `/projects/${projectId}/`, undefined, owner)).body.synthesis_count).toBe(2);
      expect((await req('DELETE', entryPath(dropped.body[idKey]), undefined, owner)).status).toBe(204);
      expect((await req('GET', `/projects/${projectId}/`, undefined, owner)).body.synthesis_count).toBe(1);

      expect((await req('DELETE', `/projects/${projectId}/`, undefined, owner)).status).toBe(204);
      expectProblem(await req('GET', `/projects/${projectId}/`, undefined, owner), 404, 'not_found');
      expect((await req('GET', '/projects/', undefined, owner)).body.count).toBe(0);
      const entry = await req('GET', entryPath(id), undefined, owner);
      expect(entry.status).toBe(200);
      expect(entry.body).toMatchObject({ [idKey]: id, status: 'completed', project_id: null });
      expect((await fetchAudio(id, owner)).response.status).toBe(200);
      expectFieldError(await submit(owner, { text: SENTENCE, voice_id: VOICE, project_id: projectId }), 'project_id');
    }, 120_000);
  });

  it('documents every text-to-speech path of the family in /api/openapi.json', async () => {
    const response = await fetch(`${api.url}/api/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { paths: Record<string, Record<string, unknown>> };
    const expected =
      family === '/api/v1'
        ? {
            '/api/v1/tts/synthesize/': ['post'],
            '/api/v1/tts/history/{id}/status/': ['get'],
            '/api/v1/tts/history/{id}/audio/': ['get'],
            '/api/v1/tts/history/': ['get'],
            '/api/v1/tts/history/{id}/': ['delete', 'get'],
          }
        : {
            '/api/tts/synthesize/': ['post'],
            '/api/tts/status/{id}/': ['get'],
            '/api/tts/audio/{id}/': ['get'],
            '/api/tts/history/': ['get'],
            '/api/tts/history/{id}/': ['delete', 'get'],
          };
    for (const [path, methods] of Object.entries(expected)) {
      expect({ path, methods: Object.keys(document.paths[path] ?? {}).sort() }).toEqual({ path, methods });
    }
  });
});
