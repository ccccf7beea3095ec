import path from 'node:path';
import { finishAudio, renderChunk } from '../audio';
import { findPremadeVoice } from '../engines/catalog';
import { createEngines } from '../engines/registry';
import type { IsolatedStack, StackAccount } from '../scripts/isolatedStack';
import { followEvents, median, ONE_SENTENCE, rawEngine } from './goals';
import { table } from './report';

/**
 * The light-load goal's path, one request at a time: a one-sentence
 * synthesis submitted and followed by Server-Sent Events, with the times of
 * its workflow's history events (the synthesis and its credit capture) and
 * the client's own (202, each status event) after the client's POST. Then the
 * activity's body taken apart in this process on the same sentence: the raw
 * engine, renderChunk (engine + trim + resample), finishAudio to WAV
 * (loudness, limiter) and to MP3 (plus ffmpeg's encode and true-peak check).
 */

type Event = { eventTime?: { seconds?: unknown; nanos?: number | null } | null } & Record<string, unknown>;
const eventMs = (event: Event) =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + Math.round((event.eventTime?.nanos ?? 0) / 1e6);

export async function sseTimelines(
  stack: IsolatedStack,
  accounts: StackAccount[],
  voiceId: string,
  runs: number,
  say: (text: string) => void,
): Promise<void> {
  const raw = await rawEngine(stack, voiceId, ONE_SENTENCE, 5, stack.dataDir);
  say(`raw engine, one sentence (${voiceId}): ${raw.map((ms) => ms.toFixed(0)).join(', ')} ms`);
  const header = [
    'run',
    '202',
    'wf started',
    '1st task done',
    'render scheduled',
    'started',
    'done',
    'capture initiated',
    'capture started',
    'capture done',
    'parent wf done',
    'SSE processing',
    'SSE completed',
  ];
  const rows: number[][] = [];
  for (let i = 0; i < runs; i++) {
    const account = accounts[i % accounts.length];
    const auth = { Authorization: `Bearer ${account.token}` };
    const posted = Date.now();
    const response = await fetch(`${stack.apiUrl}/api/v1/tts/synthesize/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...auth },
      body: JSON.stringify({ text: ONE_SENTENCE, voice_id: voiceId }),
    });
    const accepted = (await response.json()) as { id: string; status_url: string };
    const acceptedAt = Date.now();
    const seen = new Map<string, number>();
    await followEvents(
      await fetch(`${stack.apiUrl}${accepted.status_url}`, { headers: { ...auth, Accept: 'text/event-stream' } }),
      (_event, data) => {
        const { status } = JSON.parse(data) as { status: string };
        seen.set(status, Date.now());
        return ['completed', 'failed', 'canceled'].includes(status);
      },
    );
    // The record step may end after the client heard of the completion: the histories once both workflows have.
    await stack.temporal.workflow.getHandle(`synthesis:${accepted.id}`).result();
    const history = async (workflowId: string) =>
      ((await stack.temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? []) as Event[];
    const [parent, capture] = await Promise.all([
      history(`synthesis:${accepted.id}`),
      history(`credits:capture:${accepted.id}`),
    ]);
    const at = (events: Event[], key: string, nth = 0) => {
      const found = events.filter((event) => event[key]);
      const event = nth < 0 ? found.at(nth) : found[nth];
      return event ? eventMs(event) - posted : NaN;
    };
    rows.push([
      i,
      acceptedAt - posted,
      at(parent, 'workflowExecutionStartedEventAttributes'),
      at(parent, 'workflowTaskCompletedEventAttributes'),
      at(parent, 'activityTaskScheduledEventAttributes'),
      at(parent, 'activityTaskStartedEventAttributes'),
      at(parent, 'activityTaskCompletedEventAttributes'),
      at(parent, 'startChildWorkflowExecutionInitiatedEventAttributes'),
      at(parent, 'childWorkflowExecutionStartedEventAttributes'),
      at(capture, 'workflowExecutionCompletedEventAttributes'),
      at(parent, 'workflowExecutionCompletedEventAttributes'),
      (seen.get('processing') ?? NaN) - posted,
      (seen.get('completed') ?? NaN) - posted,
    ]);
  }
  const p50 = header.slice(1).map((_, column) => median(rows.map((row) => row[column + 1])));
  say(
    `\nOne-sentence synthesis followed by SSE, ms after the client's POST (${voiceId}, ${runs} runs, one at a time; parent ${'events'}` +
      ` from the synthesis workflow's history, capture from credits:capture:<id>'s):\n\n` +
      table(header, [...rows.map((row) => row.map((ms) => ms.toFixed(0))), ['p50', ...p50.map((ms) => ms.toFixed(0))]]),
  );
  const span = (from: number, to: number) => median(rows.map((row) => row[to] - row[from])).toFixed(0);
  say(
    `SSE completed p50 minus raw engine p50: +${(p50.at(-1)! - median(raw)).toFixed(0)} ms. Medians of the parts: POST → render started ${p50[4].toFixed(0)} ms;` +
      ` the render activity (started → done) ${span(5, 6)} ms; render done → capture initiated ${span(6, 7)}, → capture done ${span(6, 9)}, → SSE completed ${span(6, 12)} ms`,
  );

  // The activity's body in this process, same sentence, warm.
  const voice = findPremadeVoice(voiceId)!;
  const engines = createEngines({ modelsDir: stack.config.MODELS_DIR });
  const chunk = path.join(stack.dataDir, 'trace-chunk.wav');
  const time = async (work: () => Promise<unknown>) => {
    await work();
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await work();
      times.push(performance.now() - started);
    }
    return median(times);
  };
  const rendered = await time(() =>
    renderChunk({ voice, text: ONE_SENTENCE, emotion: 'neutral', outPath: chunk, engines }),
  );
  const finish = (format: 'wav' | 'mp3') =>
    time(() =>
      finishAudio({
        chunks: [chunk],
        speed: 1,
        pitch: 0,
        emotion: 'neutral',
        format,
        outPath: path.join(stack.dataDir, `trace-out.${format}`),
      }),
    );
  const [wav, mp3] = [await finish('wav'), await finish('mp3')];
  say(
    `\nThe render activity's body in process (p50 of 5, warm): raw engine ${median(raw).toFixed(0)} ms; renderChunk ${rendered.toFixed(0)} ms` +
      ` (trim, resample, word timing: +${(rendered - median(raw)).toFixed(0)}); finishAudio wav ${wav.toFixed(0)} ms (loudness, limiter); mp3 ${mp3.toFixed(0)} ms` +
      ` (ffmpeg encode + true-peak check: +${(mp3 - wav).toFixed(0)})\n`,
  );
}
