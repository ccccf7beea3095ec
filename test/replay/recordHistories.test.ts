import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PASSWORD, uniqueEmail, waitForVerificationToken } from '../helpers/accounts';
import { call, postSpeech } from '../helpers/http';
import { createAccount } from '../helpers/factories';
import { silenceMp3 } from '../helpers/cloningInput';
import { makeSample, uploadSample } from '../helpers/samples';
import WebSocket from 'ws';
import { Synthesis } from '../../db/models/Synthesis';
import { streamSessionWorkflowId, voiceCloningWorkflowId } from '../../synthesis/contracts';
import { until } from '../helpers/eventually';
import { installKokoroModels } from '../helpers/kokoroMirror';
import { type TestDeps, useStack } from '../helpers/stack';
import { streamReadAfterCompletion, waitForSynthesis } from '../helpers/synthesis';

/**
 * Records the histories that test/integration/replay.test.ts replays. Runs only
 * with RECORD_HISTORIES=1 (`RECORD_HISTORIES=1 npx jest test/replay`), after a
 * deliberate, compatible change to a workflow; commit the files it writes.
 */
const record = process.env.RECORD_HISTORIES === '1' ? describe : describe.skip;
const DIR = path.join(__dirname, 'histories');

/** Writes a workflow's history as the Temporal CLI shows it: the proto3 JSON that Worker.runReplayHistory reads. */
async function saveHistory(deps: TestDeps, name: string, workflowId: string) {
  const temporalCli = path.join(
    process.env.OPENVOX_BIN_DIR ?? path.join(homedir(), '.cache', 'openvox', 'bin'),
    'temporal',
  );
  const { stdout } = await promisify(execFile)(
    temporalCli,
    ['workflow', 'show', '--workflow-id', workflowId, '--output', 'json', '--address', deps.config.TEMPORAL_ADDRESS],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  await writeFile(path.join(DIR, `${name}.json`), stdout);
}

/** A streamed speech request (`pcm`) read to its end; the synthesis's id once its workflow has completed. */
async function streamedToTheEnd(
  { api, deps }: { api: { url: string }; deps: TestDeps },
  who: { access: string },
  voice: string,
  input: string,
): Promise<string> {
  const response = await postSpeech(api.url, who.access, { model: 'tts-1', voice, input, response_format: 'pcm' });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  const id = response.headers.get('x-synthesis-id')!;
  expect(await deps.temporal.workflow.getHandle(`synthesis:${id}`).result()).toBe('completed');
  return id;
}

record('record workflow histories for replay tests', () => {
  const { deps, api } = useStack({ worker: true, env: { VERIFICATION_TTL: '2' } });

  const save = (name: string, workflowId: string) => saveHistory(deps, name, workflowId);

  it('records a completed synthesis of several chunks, its capture, a one-chunk synthesis, a canceled one, its deletion and a refused one', async () => {
    const who = await createAccount(deps);
    const text = 'This sentence is one of many. '.repeat(30);
    const accepted = await call(
      api.url,
      'POST',
      '/api/v1/tts/synthesize/',
      { text, voice_id: 'en-us-slt', output_format: 'mp3' },
      who.access,
    );
    expect((await waitForSynthesis(api.url, accepted.body.status_url, who.access)).status).toBe('completed');
    await save('synthesis-completed', `synthesis:${accepted.body.id}`);
    await save('credit-capture', `credits:capture:${accepted.body.id}`);

    const short = await call(
      api.url,
      'POST',
      '/api/v1/tts/synthesize/',
      { text: 'One short sentence, rendered in one step.', voice_id: 'en-us-slt' },
      who.access,
    );
    expect((await waitForSynthesis(api.url, short.body.status_url, who.access)).status).toBe('completed');
    await save('synthesis-short-completed', `synthesis:${short.body.id}`);

    const doomed = await call(api.url, 'POST', '/api/v1/tts/synthesize/', { text, voice_id: 'en-us-slt' }, who.access);
    await call(api.url, 'DELETE', `/api/v1/tts/history/${doomed.body.id}/`, undefined, who.access);
    await deps.temporal.workflow
      .getHandle(`synthesis:${doomed.body.id}`)
      .result()
      .catch(() => undefined);
    await save('synthesis-canceled', `synthesis:${doomed.body.id}`);
    await deps.temporal.workflow.getHandle(`synthesis-deletion:${doomed.body.id}`).result();
    await save('synthesis-deletion', `synthesis-deletion:${doomed.body.id}`);

    const poor = await createAccount(deps, { credits: 3 });
    const refused = await call(
      api.url,
      'POST',
      '/api/v1/tts/synthesize/',
      { text: 'Too long for three credits.', voice_id: 'en-us-slt' },
      poor.access,
    );
    expect(refused.status).toBe(402);
    // Visibility is eventually consistent: wait for the refused synthesis's workflow to be listed.
    let workflowId: string | undefined;
    while (!workflowId) {
      for await (const execution of deps.temporal.workflow.list({ query: `Account = '${poor.id}'` }))
        workflowId = execution.workflowId;
      if (!workflowId) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await save('synthesis-insufficient', workflowId);
  });

  // Recorded after patched('capture-records-completion'): the histories above, from before it, keep replaying its
  // old path; these replay the new one (the capture's transaction records the completion).
  it('records a completed synthesis of several chunks and its capture, with the capture recording the completion', async () => {
    const who = await createAccount(deps);
    const accepted = await call(
      api.url,
      'POST',
      '/api/v1/tts/synthesize/',
      { text: 'This sentence is one of many. '.repeat(30), voice_id: 'en-us-slt', output_format: 'mp3' },
      who.access,
    );
    expect((await waitForSynthesis(api.url, accepted.body.status_url, who.access)).status).toBe('completed');
    expect(await deps.temporal.workflow.getHandle(`synthesis:${accepted.body.id}`).result()).toBe('completed');
    await save('synthesis-completed-capture-records-completion', `synthesis:${accepted.body.id}`);
    await save('credit-capture-records-completion', `credits:capture:${accepted.body.id}`);
  });

  it('records a completed voice cloning and one whose sample holds no speech', async () => {
    const who = await createAccount(deps);
    const clone = async (bytes: Buffer, filename: string) => {
      const fields = { name: 'Recorded voice', consent: 'true', language: 'en-US' };
      const accepted = await uploadSample(api.url, '/api/v1/voices/upload/', who.access, fields, {
        bytes,
        name: filename,
      });
      expect(accepted.status).toBe(202);
      const workflowId = voiceCloningWorkflowId(accepted.body.id);
      await deps.temporal.workflow.getHandle(workflowId).result();
      return { workflowId, voice: await deps.db('voices').where({ id: accepted.body.id }).first() };
    };
    const ready = await clone(await makeSample('wav', 'en-us+m3', 30), 'sample.wav');
    expect(ready.voice.status).toBe('ready');
    await save('voice-cloning-completed', ready.workflowId);
    const silent = await clone(await silenceMp3(20), 'silence.mp3');
    expect(silent.voice.status).toBe('failed');
    await save('voice-cloning-failed', silent.workflowId);
  });

  it('records a streamed synthesis of one sentence (rendered as a stored chunk, then finished)', async () => {
    const who = await createAccount(deps);
    const id = await streamedToTheEnd({ api, deps }, who, 'alloy', 'One sentence, streamed as it renders.');
    await save('synthesis-streamed-completed', `synthesis:${id}`);
  });

  it('records a streamed synthesis of three sentences rendered, stored and finished in one activity', async () => {
    const who = await createAccount(deps);
    const input = 'The first sentence goes out. The second follows it. The third ends the stream.';
    const id = await streamedToTheEnd({ api, deps }, who, 'alloy', input);
    await save('synthesis-streamed-one-activity', `synthesis:${id}`);
  });

  it('records a streamed synthesis whose client reads on after it completed (its chunks wait for the reader)', async () => {
    const who = await createAccount(deps);
    // Minutes of raw audio, more than the socket buffers hold: the API's reader waits on this client.
    const input = 'The chunks stay until the reader has read them all. '.repeat(70);
    const { id, readRest } = await streamReadAfterCompletion(api.url, who.access, 'en-us-espeak-m', input);
    await readRest();
    expect(await deps.temporal.workflow.getHandle(`synthesis:${id}`).result()).toBe('completed');
    await save('synthesis-streamed-reader-after-completion', `synthesis:${id}`);
  }, 300_000);

  it('records a stream-input connection of two pieces, recorded as one entry once it closed', async () => {
    const who = await createAccount(deps);
    const { key } = (await call(api.url, 'POST', '/api/v1/auth/api-keys/', { name: 'replay' }, who.access)).body;
    await new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(`${api.url.replace(/^http/, 'ws')}/v1/text-to-speech/en-us-flite-slt/stream-input`);
      ws.on('open', () => {
        ws.send(JSON.stringify({ text: ' ', xi_api_key: key }));
        ws.send(JSON.stringify({ text: 'The first piece is spoken. ' }));
        ws.send(JSON.stringify({ text: 'The second one ends it.', flush: true }));
        ws.send(JSON.stringify({ text: '' }));
      });
      ws.on('close', () => resolve());
      ws.on('error', reject);
    });
    let sessionId: string | undefined;
    await until('the connection to be recorded', async () => {
      sessionId = (await Synthesis.query(deps.db).where({ account_id: who.id }).whereNull('part_of').first())?.id;
      return sessionId !== undefined;
    });
    expect(await deps.temporal.workflow.getHandle(streamSessionWorkflowId(sessionId!)).result()).toBe('recorded');
    await save('stream-session-recorded', streamSessionWorkflowId(sessionId!));
  });

  it('records an account deletion that stops a running synthesis, and a history retention run', async () => {
    const who = await createAccount(deps);
    const running = await call(
      api.url,
      'POST',
      '/api/v1/tts/synthesize/',
      { text: 'This sentence is one of many. '.repeat(30), voice_id: 'en-us-slt' },
      who.access,
    );
    expect(running.status).toBe(202);
    expect(
      (await call(api.url, 'DELETE', '/api/v1/auth/profile/', { password: who.password }, who.access)).status,
    ).toBe(202);
    expect(await deps.temporal.workflow.getHandle(`account-deletion:${who.id}`).result()).toMatchObject({
      canceledJobs: 1,
    });
    // A new name since the history-erasure step (patched 'erase-workflow-histories'): account-deletion.json keeps the older path replayed.
    await save('account-deletion-erases-histories', `account-deletion:${who.id}`);

    const workflowId = `history-retention-replay-${who.id}`;
    await deps.temporal.workflow.execute('historyRetention', {
      workflowId,
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [{}],
    });
    await save('history-retention', workflowId);
  });

  it('records a verified signup and an expired one', async () => {
    const email = uniqueEmail('replay');
    const registered = await call(api.url, 'POST', '/api/v1/auth/register/', { email, password: PASSWORD });
    const token = await waitForVerificationToken(deps.config.MAIL_DIR, email);
    expect((await call(api.url, 'POST', '/api/v1/auth/verify-email/', { token })).status).toBe(200);
    await deps.temporal.workflow.getHandle(`signup:${registered.body.id}`).result();
    await save('signup-verified', `signup:${registered.body.id}`);

    const idle = await call(api.url, 'POST', '/api/v1/auth/register/', {
      email: uniqueEmail('replay-idle'),
      password: PASSWORD,
    });
    expect(await deps.temporal.workflow.getHandle(`signup:${idle.body.id}`).result()).toBe('expired');
    await save('signup-expired', `signup:${idle.body.id}`);
  });
});

record('record a webhook delivery for replay tests', () => {
  const { deps, api } = useStack({
    worker: true,
    env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
  });
  const save = (name: string, workflowId: string) => saveHistory(deps, name, workflowId);

  it('records a test ping delivered to a receiver that answers 204', async () => {
    const receiver = createServer((request, response) =>
      request.resume().on('end', () => response.writeHead(204).end()),
    );
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const who = await createAccount(deps);
      const { port } = receiver.address() as AddressInfo;
      const endpoint = await call(
        api.url,
        'POST',
        '/api/v1/webhooks/',
        { url: `http://127.0.0.1:${port}/hook`, events: ['voice.ready'] },
        who.access,
      );
      const ping = await call(api.url, 'POST', `/api/v1/webhooks/${endpoint.body.id}/test/`, undefined, who.access);
      expect(ping.status).toBe(202);
      const workflowId = `webhook-delivery:${ping.body.event_id}:${endpoint.body.id}`;
      expect(await deps.temporal.workflow.getHandle(workflowId).result()).toBe('delivered');
      await save('webhook-delivery', workflowId);
    } finally {
      receiver.close();
    }
  });
});

record('record a Studio conversion and a block render for replay tests', () => {
  const { deps, api } = useStack({ worker: true });

  it('records a completed two-chapter conversion (parent and a chapter child) and an on-demand block render', async () => {
    const who = await createAccount(deps, { credits: 10_000 });
    const base = '/api/v1/projects/';
    const project = await call(api.url, 'POST', base, { name: 'Replay book' }, who.access);
    const id = project.body.id as string;
    await call(api.url, 'PATCH', `${base}${id}/`, { default_voice_id: 'en-us-espeak-m' }, who.access);
    const text = '# One\n\nIt was night.\n\n# Two\n\nMorning came.\n';
    expect(
      (await call(api.url, 'POST', `${base}${id}/content/`, { format: 'markdown', text }, who.access)).status,
    ).toBe(200);
    const started = await call(api.url, 'POST', `${base}${id}/convert/`, {}, who.access);
    expect(started.status).toBe(202);
    const snapshotId = started.body.id as string;
    expect(await deps.temporal.workflow.getHandle(`project-conversion:${snapshotId}`).result()).toBe('completed');
    // Recorded after patched('chapter-assembly-beside-renders'); project-conversion-completed.json and
    // project-chapter-conversion.json are the same conversion recorded before it, kept to replay that path.
    await saveHistory(deps, 'project-conversion-beside-renders', `project-conversion:${snapshotId}`);
    const chapters = (await call(api.url, 'GET', `${base}${id}/chapters/`, undefined, who.access)).body.results;
    // Recorded after patched('block-renders-studio-queue'); project-chapter-conversion-announced.json is a chapter
    // recorded before it (its renders on the CPU queue), kept to replay that path.
    await saveHistory(
      deps,
      'project-chapter-conversion-studio-queue',
      `chapter-conversion:${snapshotId}:${chapters[0].id}`,
    );

    const [block] = (
      await call(api.url, 'GET', `${base}${id}/chapters/${chapters[0].id}/blocks/`, undefined, who.access)
    ).body.results;
    await call(
      api.url,
      'PATCH',
      `${base}${id}/chapters/${chapters[0].id}/blocks/${block.id}/`,
      { text: 'Night' },
      who.access,
    );
    const audioPath = `/api/v1/projects/${id}/chapters/${chapters[0].id}/blocks/${block.id}/audio/`;
    const asked = await fetch(`${api.url}${audioPath}`, { headers: { Authorization: `Bearer ${who.access}` } });
    expect(asked.status).toBe(202);
    // Its id names the block's hash: found by type in the visibility store, which lags a moment.
    let renderId: string | undefined;
    await until('the block render to be listed', async () => {
      for await (const execution of deps.temporal.workflow.list({
        query: `WorkflowType = 'blockAudioRender' AND Account = '${who.id}'`,
      }))
        renderId = execution.workflowId;
      return renderId !== undefined;
    });
    await asked.arrayBuffer();
    expect(await deps.temporal.workflow.getHandle(renderId!).result()).toBe('reserved');
    await saveHistory(deps, 'project-block-render', renderId!);
  });
});

// Recorded after patched('heavy-renders-own-queue'): a Kokoro voice's renders go to the heavy queue. Its own stack: the
// Kokoro model and an English style in a MODELS_DIR of its own.
record('record a Kokoro synthesis history for replay tests', () => {
  const { deps, api } = useStack({
    worker: true,
    database: 'kokoro_replay',
    models: (dir) => installKokoroModels(dir),
    env: { VOICE_PREVIEWS: 'false' },
    startTimeoutMs: 120_000,
  });

  it('records a streamed Kokoro synthesis of two sentences (its renders on the heavy queue)', async () => {
    const who = await createAccount(deps);
    const id = await streamedToTheEnd({ api, deps }, who, 'en-us-kokoro-alpha', 'Kokoro reads this. Then one more.');
    await saveHistory(deps, 'synthesis-kokoro-streamed-completed', `synthesis:${id}`);
  }, 600_000);
});
