import { call } from '../helpers/http';
import { eventually } from '../helpers/eventually';
import { createAccount, createSynthesis, type TestAccount } from '../helpers/factories';
import { useStack } from '../helpers/stack';

/** Two chunks (over 400 characters), so there is progress between start and end. */
const TEXT = Array.from(
  { length: 10 },
  (_, i) => `Sentence number ${i + 1} keeps the listener waiting a little longer.`,
).join(' ');

/** Reads a Server-Sent Events stream to its end: every event with its name and parsed data. */
async function readEvents(response: Response) {
  const text = await response.text();
  return text
    .split('\n\n')
    .map((block) => block.split('\n').filter((line) => !line.startsWith(':')))
    .filter((lines) => lines.length > 0 && lines[0] !== '')
    .map((lines) => ({
      event: lines.find((line) => line.startsWith('event: '))?.slice(7),
      data: JSON.parse(lines.find((line) => line.startsWith('data: '))!.slice(6)),
    }));
}

describe.each([
  ['/api/v1', 'id', (id: string) => `/api/v1/tts/history/${id}/status/`],
  ['/api', 'task_id', (id: string) => `/api/tts/status/${id}/`],
])('live status over Server-Sent Events in the %s family', (family, idKey, statusPath) => {
  const { deps, api } = useStack({ worker: true });
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await createAccount(deps, { credits: 10_000 });
  });

  it('streams status and progress events until the synthesis has ended, then closes', async () => {
    const accepted = await call(
      api.url,
      'POST',
      `${family}/tts/synthesize/`,
      { text: TEXT, voice_id: 'en-us-flite-slt' },
      owner.access,
    );
    expect(accepted.status).toBe(202);
    const id = accepted.body[idKey];
    const response = await fetch(`${api.url}${statusPath(id)}`, {
      headers: { Authorization: `Bearer ${owner.access}`, Accept: 'text/event-stream' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readEvents(response);
    expect(events.every((event) => event.event === 'status' && event.data[idKey] === id)).toBe(true);
    // At least where it stood when asked, and the end.
    expect(events.length).toBeGreaterThan(1);
    const progress = events.map((event) => event.data.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(events.at(-1)!.data).toMatchObject({ status: 'completed', progress: 1, audio_url: expect.any(String) });
    // Each event is a change: no two alike.
    expect(new Set(events.map((event) => JSON.stringify(event.data))).size).toBe(events.length);
  });

  it('answers an unknown id with 404 before any stream starts', async () => {
    const response = await fetch(`${api.url}${statusPath('00000000-0000-4000-8000-000000000000')}`, {
      headers: { Authorization: `Bearer ${owner.access}`, Accept: 'text/event-stream' },
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/problem\+json/);
  });
});

describe('status streams an account can hold', () => {
  const { deps, api } = useStack({
    worker: false,
    env: { SSE_MAX_STREAMS_PER_ACCOUNT: '3', SSE_MAX_STREAMS_PER_IP: '5' },
  });

  it('answers 429 past SSE_MAX_STREAMS_PER_ACCOUNT, and again 200 once one has closed; the address cap counts every account', async () => {
    const [owner, other] = await Promise.all([
      createAccount(deps, { credits: 10_000 }),
      createAccount(deps, { credits: 10_000 }),
    ]);
    // Rows with no workflow behind them: they stay processing and their streams stay open.
    const accepted = { body: { id: await createSynthesis(deps, owner, { status: 'processing' }) } };
    const otherAccepted = { body: { id: await createSynthesis(deps, other, { status: 'processing' }) } };
    const open = (who: TestAccount, id: string) => {
      const abort = new AbortController();
      const response = fetch(`${api.url}/api/v1/tts/history/${id}/status/`, {
        headers: { Authorization: `Bearer ${who.access}`, Accept: 'text/event-stream' },
        signal: abort.signal,
      });
      return { response, close: () => abort.abort() };
    };
    const streams = [open(owner, accepted.body.id), open(owner, accepted.body.id), open(owner, accepted.body.id)];
    expect((await Promise.all(streams.map((stream) => stream.response))).map((response) => response.status)).toEqual([
      200, 200, 200,
    ]);
    const refused = await open(owner, accepted.body.id).response;
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    // Another account from the same address: two more fit under the address's cap of 5, the third does not.
    const others = [open(other, otherAccepted.body.id), open(other, otherAccepted.body.id)];
    expect((await Promise.all(others.map((stream) => stream.response))).map((response) => response.status)).toEqual([
      200, 200,
    ]);
    expect((await open(other, otherAccepted.body.id).response).status).toBe(429);

    streams[0].close();
    let again: Response | undefined;
    await eventually('a stream slot to free', async () => {
      again = await open(owner, accepted.body.id).response;
      return again.status === 200;
    });
    for (const stream of [...streams, ...others]) stream.close();
    await again?.body?.cancel();
  });
});
