import { call, expectProblem, postSpeech, readReply } from '../helpers/http';
import { createAccount, type TestAccount } from '../helpers/factories';
import { useStack } from '../helpers/stack';
import { synthesizeAndWait } from '../helpers/synthesis';

/**
 * What a dictionary's aliases make a text say is charged and bounded like the
 * text itself (synthesis/spokenLength.ts). The audit's case: "~" said as 499
 * characters turned a 10-character synthesis into 254 s of audio for 10
 * credits, and a 2,000-character preview into 999,501 characters.
 */

// 49 characters: the test renders what it says (the audit's 499 said 254 s of audio).
const LONG_ALIAS = 'and so on '.repeat(5).trim();

describe('the spoken length of a text', () => {
  const { deps, api } = useStack({ worker: true, env: { RATE_LIMIT_NORMALIZE_PER_MINUTE: '5' } });
  let owner: TestAccount;
  let dictionaryId: string;
  beforeAll(async () => {
    owner = await createAccount(deps, { credits: 20_000 });
    const created = await call(
      api.url,
      'POST',
      '/api/v1/pronunciation-dictionaries/',
      { name: 'Tilde', entries: [{ grapheme: '~', alias: LONG_ALIAS }] },
      owner.access,
    );
    expect(created.status).toBe(201);
    dictionaryId = created.body.id;
  });
  const profile = async () => (await call(api.url, 'GET', '/api/v1/auth/profile/', undefined, owner.access)).body;

  it('is charged: 25 written characters that say 1,177 (near the most one passage may say) cost 1,177 credits', async () => {
    const before = (await profile()).credit_balance;
    const { done } = await synthesizeAndWait(
      api.url,
      owner.access,
      { text: `a${'~'.repeat(24)}`, voice_id: 'en-us-espeak-m', pronunciation_dictionary_ids: [dictionaryId] },
      { timeoutMs: 120_000 },
    );
    expect(done).toMatchObject({ status: 'completed', characters: 25, credits_charged: 25 + 24 * 48 });
    expect((await profile()).credit_balance).toBe(before - (25 + 24 * 48));
  }, 180_000);

  it('must fit the plan: a text whose aliases say more than 5,000 characters is refused, nothing reserved', async () => {
    const before = await profile();
    // Six passages of 391 written characters, each saying 871: no passage says too much, the whole says 5,231.
    const sentence = `${'word '.repeat(76)}${'~'.repeat(10)}.`;
    const text = Array.from({ length: 6 }, () => sentence).join(' ');
    const body = { text, voice_id: 'en-us-espeak-m', pronunciation_dictionary_ids: [dictionaryId] };
    const reply = await call(api.url, 'POST', '/api/v1/tts/synthesize/', body, owner.access);
    expectProblem(reply, 400, 'validation_error');
    expect(reply.body.errors.text[0]).toMatch(
      /aliases this text says 5231 characters; the Free plan allows at most 5000/,
    );
    // The OpenAI-compatible route reads it the same way.
    const speech = await readReply(
      await postSpeech(api.url, owner.access, {
        model: 'tts-1',
        input: body.text,
        voice: 'en-us-espeak-m',
        pronunciation_dictionary_ids: [dictionaryId],
      }),
    );
    expect(speech.status).toBe(400);
    expect(JSON.stringify(speech.body)).toMatch(/aliases/);
    const after = await profile();
    expect([after.credit_balance, after.credits_reserved]).toEqual([before.credit_balance, before.credits_reserved]);
  });

  it('bounds each passage: a few characters whose aliases say more than 1,200 are refused, nothing reserved', async () => {
    const before = await profile();
    const reply = await call(
      api.url,
      'POST',
      '/api/v1/tts/synthesize/',
      { text: `a${'~'.repeat(30)}`, voice_id: 'en-us-espeak-m', pronunciation_dictionary_ids: [dictionaryId] },
      owner.access,
    );
    expectProblem(reply, 400, 'validation_error');
    expect(reply.body.errors.text[0]).toMatch(/one passage of this text says 1471 characters; at most 1200/);
    const after = await profile();
    expect([after.credit_balance, after.credits_reserved]).toEqual([before.credit_balance, before.credits_reserved]);
  });

  it('bounds the free preview the same way, and by the plan text limit, and rate-limits it', async () => {
    const normalize = (body: Record<string, unknown>) =>
      call(api.url, 'POST', '/api/v1/tts/normalize/', body, owner.access);
    const expanded = await normalize({ text: '~'.repeat(2000), pronunciation_dictionary_ids: [dictionaryId] });
    expectProblem(expanded, 400, 'validation_error');
    expect(expanded.body.errors.text[0]).toMatch(/aliases/);
    const long = await normalize({ text: 'a '.repeat(3000) });
    expectProblem(long, 400, 'validation_error');
    expect(long.body.errors.text[0]).toMatch(/at most 5000 characters on the Free plan/);
    const fine = await normalize({ text: 'a~', pronunciation_dictionary_ids: [dictionaryId] });
    expect(fine.status).toBe(200);
    expect(fine.body.spoken).toContain('and so on');
    // Five a minute here: the window may have turned during the test, so keep asking until one is refused.
    let refused = null;
    for (let i = 0; i < 12 && !refused; i++) {
      const reply = await normalize({ text: 'Hello.' });
      if (reply.status === 429) refused = reply;
    }
    expectProblem(refused!, 429, 'rate_limited');
    expect(refused!.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
  });
});
