import { call } from '../helpers/http';
import { createAccount, type TestAccount } from '../helpers/factories';
import { useStack } from '../helpers/stack';

/** Two chunks (over 400 characters), so there is progress between start and end. */
const TEXT = Array.from({ length: 10 }, (_, i) => `Sentence number ${i + 1} keeps the listener waiting a little longer.`).join(' ');

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
    const accepted = await call(api.url, 'POST', `${family}/tts/synthesize/`, { text: TEXT, voice_id: 'en-us-flite-slt' }, owner.access);
    expect(accepted.status).toBe(202);
    const id = accepted.body[idKey];
    const response = await fetch(`${api.url}${statusPath(id)}`, { headers: { Authorization: `Bearer ${owner.access}`, Accept: 'text/event-stream' } });
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
