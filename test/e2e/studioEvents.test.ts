import { randomUUID } from 'node:crypto';
import { requestsBelow } from '../helpers/http';
import { eventually } from '../helpers/eventually';
import { useStack, useAccount } from '../helpers/stack';

/**
 * What a Studio conversion tells the outside while it runs and when it ends
 * (with the whole stack): its progress as Server-Sent Events, the
 * `project.*` webhook events, and a block's audio on demand (rendered and
 * charged once, then reused by a conversion).
 */

/** Each project's own words: audio is kept per account by content, so equal texts would share it. */
const markdown = () =>
  `# One\n\nIt was night.\n\nThe rain fell on ${randomUUID().slice(0, 8)}.\n\n# Two\n\nMorning came.\n`;
const ALLOW = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Reads a Server-Sent Events answer to its end. */
async function readEvents(response: Response): Promise<SseEvent[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((part) => part.startsWith('event:'))
    .map((part) => {
      const [eventLine, dataLine] = part.split('\n');
      return { event: eventLine.slice('event: '.length), data: JSON.parse(dataLine.slice('data: '.length)) };
    });
}

describe('Studio conversion events and block audio', () => {
  const { deps, api } = useStack({ worker: true, env: ALLOW });
  const owner = useAccount(deps, { credits: 10_000 });
  const stranger = useAccount(deps);
  const req = requestsBelow(api, '/api/v1/projects/', owner);
  const auth = (account = owner) => ({ Authorization: `Bearer ${account.access}` });

  async function newProject(): Promise<string> {
    const id = (await req('POST', '', { name: `Book ${randomUUID()}` })).body.id as string;
    expect((await req('PATCH', `${id}/`, { default_voice_id: 'en-us-espeak-m' })).status).toBe(200);
    expect((await req('POST', `${id}/content/`, { format: 'markdown', text: markdown() })).status).toBe(200);
    return id;
  }
  const balance = async () => {
    const row = await deps.db('accounts').where({ id: owner.id }).first();
    return { available: Number(row.credit_balance), reserved: Number(row.credits_reserved) };
  };

  it('streams the progress as SSE until the end, and announces each chapter and the completion as webhook events', async () => {
    const hooks = requestsBelow(api, '/api/v1/webhooks/', owner);
    const endpoint = await hooks('POST', '', {
      url: 'http://127.0.0.1:9/hook',
      events: ['project.conversion.completed', 'project.conversion.failed', 'project.chapter.converted'],
    });
    expect(endpoint.status).toBe(201);
    const id = await newProject();
    const started = await req('POST', `${id}/convert/`, {});
    expect(started.status).toBe(202);
    const sid = started.body.id as string;

    const stream = await fetch(`${api.url}/api/v1/projects/${id}/snapshots/${sid}/events/`, {
      headers: { ...auth(), Accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readEvents(stream);
    const statuses = events.map((one) => one.data.status);
    expect(events.every((one) => one.event === 'status')).toBe(true);
    expect(statuses[statuses.length - 1]).toBe('completed');
    const progress = events.map((one) => one.data.progress as number);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress[progress.length - 1]).toBe(1);

    // Another account's snapshot id is not found, streamed or not.
    const hidden = await fetch(`${api.url}/api/v1/projects/${id}/snapshots/${sid}/events/`, {
      headers: { ...auth(stranger), Accept: 'text/event-stream' },
    });
    expect(hidden.status).toBe(404);

    const deliveries = async () =>
      (await deps.db('webhook_deliveries').where({ endpoint_id: endpoint.body.id }).select('event_type', 'body')) as {
        event_type: string;
        body: string;
      }[];
    await eventually('the events to be announced', async () => (await deliveries()).length === 3);
    const announced = await deliveries();
    expect(announced.map((one) => one.event_type).sort()).toEqual([
      'project.chapter.converted',
      'project.chapter.converted',
      'project.conversion.completed',
    ]);
    const completed = JSON.parse(announced.find((one) => one.event_type === 'project.conversion.completed')!.body);
    expect(completed.data).toMatchObject({ id: sid, project_id: id, status: 'completed', progress: 1 });
    const chapters = announced
      .filter((one) => one.event_type === 'project.chapter.converted')
      .map((one) => JSON.parse(one.body).data);
    expect(chapters.map((one) => one.chapter.title).sort()).toEqual(['One', 'Two']);
    expect(chapters.every((one) => one.snapshot_id === sid && one.project_id === id)).toBe(true);
  }, 300_000);

  it("gives a block's audio, rendering it on demand once (charged), and a conversion reuses it", async () => {
    const id = await newProject();
    const chapters = (await req('GET', `${id}/chapters/`)).body.results as { id: string }[];
    const blocks = (await req('GET', `${id}/chapters/${chapters[0].id}/blocks/`)).body.results as {
      id: string;
      characters: number;
    }[];
    const block = blocks[blocks.length - 1];
    const path = `/api/v1/projects/${id}/chapters/${chapters[0].id}/blocks/${block.id}/audio/`;
    const before = await balance();
    const needed = async () => (await req('GET', `${id}/`)).body.credits_needed as number;
    const neededBefore = await needed();

    const first = await fetch(`${api.url}${path}`, { headers: auth() });
    expect(first.status).toBe(202);
    expect(first.headers.get('location')).toBe(path);
    expect(await first.json()).toEqual({ status: 'rendering', characters: block.characters });
    // Asked again while it renders: the same render, not a second charge.
    const again = await fetch(`${api.url}${path}`, { headers: auth() });
    expect([200, 202]).toContain(again.status);
    await again.arrayBuffer();

    let audio: Response | undefined;
    await eventually(
      'the block to be rendered',
      async () => {
        audio = await fetch(`${api.url}${path}`, { headers: auth() });
        if (audio.status === 200) return true;
        await audio.arrayBuffer();
        return false;
      },
      120_000,
    );
    expect(audio!.headers.get('content-type')).toBe('audio/wav');
    const wav = Buffer.from(await audio!.arrayBuffer());
    expect(wav.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(wav.length).toBeGreaterThan(1000);
    const after = await balance();
    expect(after).toEqual({ available: before.available - block.characters, reserved: before.reserved });
    const part = await fetch(`${api.url}${path}`, { headers: { ...auth(), Range: 'bytes=0-3' } });
    expect([part.status, Buffer.from(await part.arrayBuffer()).toString('ascii')]).toEqual([206, 'RIFF']);

    // The block is current: the project's estimate no longer counts it, and a conversion reuses it.
    expect(await needed()).toBe(neededBefore - block.characters);
    const converted = await req('POST', `${id}/convert/`, { chapter_ids: [chapters[0].id] });
    // It renders the chapter's other blocks and assembles it: on a loaded machine, far more than the default 10 s.
    await eventually(
      'the conversion to end',
      async () => {
        const snapshot = (await req('GET', `${id}/snapshots/${converted.body.id}/`)).body;
        return snapshot.status === 'completed';
      },
      120_000,
    );
    const snapshot = (await req('GET', `${id}/snapshots/${converted.body.id}/`)).body;
    expect(snapshot.chapters[0].blocks_reused).toBeGreaterThanOrEqual(1);
    expect(snapshot.blocks_rendered).toBe(0);

    // Another account cannot reach it.
    expect((await fetch(`${api.url}${path}`, { headers: auth(stranger) })).status).toBe(404);
  }, 300_000);

  it('refuses a block render the balance cannot cover (402), reserving nothing', async () => {
    const id = await newProject();
    const chapters = (await req('GET', `${id}/chapters/`)).body.results as { id: string }[];
    const blocks = (await req('GET', `${id}/chapters/${chapters[0].id}/blocks/`)).body.results as { id: string }[];
    // The last block holds the project's own words: no audio of it exists.
    const block = blocks[blocks.length - 1];
    await deps.db('accounts').where({ id: owner.id }).update({ credit_balance: 1 });
    const before = await balance();
    const refused = await fetch(
      `${api.url}/api/v1/projects/${id}/chapters/${chapters[0].id}/blocks/${block.id}/audio/`,
      {
        headers: auth(),
      },
    );
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([402, 'insufficient_credits']);
    expect(await balance()).toEqual(before);
  });
});
