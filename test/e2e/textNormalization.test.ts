import { call } from '../helpers/http';
import { createAccount, type TestAccount } from '../helpers/factories';
import { useStack } from '../helpers/stack';
import { waitForSynthesis } from '../helpers/synthesis';

/** One sentence per category of written forms, all in one text. */
const CATEGORIES = [
  'On 2026-03-04 at 10:30am, Dr. Smith paid $1,250.50 for 2.5 kg of apples.',
  'The WHO said 45% of people in the 1990s drove 5 km/h slower.',
  'Henry VIII, World War II and the 3rd of 5 chapters.',
  'Call +1 555 0100 or mail ada@example.com, e.g. before noon.',
  'It is 21 °C, prices rose 5-10% and €1.2bn vs. £3.50.',
].join(' ');

describe.each([['/api/v1'], ['/api']])('text normalization in the %s family', (family) => {
  const { deps, api } = useStack({ worker: true });
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await createAccount(deps, { credits: 20_000 });
  });
  const normalize = (body: Record<string, unknown>) =>
    call(api.url, 'POST', `${family}/tts/normalize/`, body, owner.access);

  it('previews the spoken form, every spoken word mapped to the span of the text it came from', async () => {
    const reply = await normalize({ text: 'It costs $5m.', voice_id: 'en-us-joe' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ spoken: 'It costs five million dollars.', applied: true, language: 'en-US' });
    expect(reply.body.words.slice(2)).toEqual([
      { word: 'five', source_start: 9, source_end: 12 },
      { word: 'million', source_start: 9, source_end: 12 },
      { word: 'dollars', source_start: 9, source_end: 12 },
    ]);
  });

  it('reads a numeric date by the voice’s (or the given) language, and `off` reads as written', async () => {
    expect((await normalize({ text: 'On 3/4/2026.', language: 'en-US' })).body.spoken).toMatch(/March fourth/);
    expect((await normalize({ text: 'On 3/4/2026.', language: 'en-GB' })).body.spoken).toMatch(/third of April/);
    expect((await normalize({ text: 'Am 3.4.2026.', language: 'de-DE' })).body.spoken).toMatch(/April/);
    const off = await normalize({ text: 'It costs $5m.', text_normalization: 'off' });
    expect(off.body).toMatchObject({ spoken: 'It costs $5m.', applied: false });
    expect(off.body.words.map((word: { word: string }) => word.word)).toEqual(['It', 'costs', '5m']);
    // A language the service does not normalize: read as written.
    expect((await normalize({ text: 'Ma 5 kg.', language: 'pl-PL' })).body).toMatchObject({
      spoken: 'Ma 5 kg.',
      applied: false,
    });
  });

  it('refuses voice_id with language, an unknown voice, a bad tag and a bad mode', async () => {
    for (const body of [
      { text: 'x', voice_id: 'en-us-joe', language: 'en' },
      { text: 'x', voice_id: 'no-such-voice' },
      { text: 'x', language: 'not a tag' },
      { text: 'x', text_normalization: 'maybe' },
      { text: '' },
    ]) {
      const reply = await normalize(body);
      expect([JSON.stringify(body), reply.status, reply.body.code]).toEqual([
        JSON.stringify(body),
        400,
        'validation_error',
      ]);
    }
  });

  it.each([['en-us-joe'], ['en-us-slt']])(
    'synthesizes every category with %s; credits count what was sent; word timestamps point into the sent text',
    async (voice) => {
      const accepted = await call(
        api.url,
        'POST',
        `${family}/tts/synthesize/`,
        { text: CATEGORIES, voice_id: voice },
        owner.access,
      );
      expect(accepted.status).toBe(202);
      const id = accepted.body.id ?? accepted.body.task_id;
      const statusPath = family === '/api/v1' ? `/api/v1/tts/history/${id}/status/` : `/api/tts/status/${id}/`;
      const done = await waitForSynthesis(api.url, statusPath, owner.access, 180_000);
      expect(done).toMatchObject({ status: 'completed', credits_charged: Array.from(CATEGORIES).length });
      const timestamps = await call(api.url, 'GET', `/api/v1/tts/history/${id}/timestamps/`, undefined, owner.access);
      expect(timestamps.status).toBe(200);
      const words: Array<{ word: string; start: number; end: number; char_start: number; char_end: number }> =
        timestamps.body.words;
      const chars = Array.from(CATEGORIES);
      for (const word of words) expect(chars.slice(word.char_start, word.char_end).join('')).toBe(word.word);
      // The written forms are words of the text, with the time it took to say them.
      const amount = words.find((word) => word.word === '1,250.50')!;
      const spelled = words.find((word) => word.word === 'WHO')!;
      expect(amount.end - amount.start).toBeGreaterThan(spelled.end - spelled.start);
      expect(words.at(-1)!.end).toBeLessThanOrEqual(done.duration_seconds + 0.05);
    },
    240_000,
  );
});
