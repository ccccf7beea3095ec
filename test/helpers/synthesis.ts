import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { analyseAudio, type AudioAnalysis, probeFormat } from '../../audio/analysis';
import { call, postSpeech } from './http';

/** Polls a status URL until the synthesis is no longer queued or processing. */
export async function waitForSynthesis(
  baseUrl: string,
  statusUrl: string,
  token: string,
  timeoutMs = 90_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await call(baseUrl, 'GET', statusUrl, undefined, token);
    if (status !== 200) throw new Error(`status ${status}: ${JSON.stringify(body)}`);
    if (body.status !== 'queued' && body.status !== 'processing') return body;
    if (Date.now() > deadline) throw new Error(`still ${body.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/**
 * The synthesis endpoints' two path families, for describe.each: the prefix, the key of a synthesis's id, and
 * the status and audio paths of an id.
 */
export const SYNTHESIS_FAMILIES = [
  [
    '/api/v1',
    'id',
    (id: string) => `/api/v1/tts/history/${id}/status/`,
    (id: string) => `/api/v1/tts/history/${id}/audio/`,
  ],
  ['/api', 'task_id', (id: string) => `/api/tts/status/${id}/`, (id: string) => `/api/tts/audio/${id}/`],
] as const;

export type SynthesisFamily = (typeof SYNTHESIS_FAMILIES)[number][0];

/** Submits a synthesis in `family` (default /api/v1), expecting 202, and polls it to its end: its id and last status. */
export async function synthesizeAndWait(
  baseUrl: string,
  token: string,
  body: Record<string, unknown>,
  { family = '/api/v1', timeoutMs }: { family?: SynthesisFamily; timeoutMs?: number } = {},
): Promise<{ id: string; done: any }> {
  const [, idKey, statusPath] = SYNTHESIS_FAMILIES.find(([prefix]) => prefix === family)!;
  const accepted = await call(baseUrl, 'POST', `${family}/tts/synthesize/`, body, token);
  // The whole reply, so that a refusal shows its problem.
  expect({ status: accepted.status, body: accepted.body }).toMatchObject({ status: 202 });
  const id: string = accepted.body[idKey];
  return { id, done: await waitForSynthesis(baseUrl, statusPath(id), token, timeoutMs) };
}

/** Downloads audio and measures it: container, codec and the decoded signal. */
export async function fetchAndMeasure(baseUrl: string, audioUrl: string, token: string) {
  const response = await fetch(`${baseUrl}${audioUrl}`, { headers: { Authorization: `Bearer ${token}` } });
  const bytes = Buffer.from(await response.arrayBuffer());
  const dir = await mkdtemp(path.join(tmpdir(), 'openvox-audio-'));
  try {
    const file = path.join(dir, 'audio');
    await writeFile(file, bytes);
    const [format, analysis] = await Promise.all([probeFormat(file), analyseAudio(file)]);
    return { response, bytes, format, analysis: analysis as AudioAnalysis };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every output format: the Content-Type it is served with, and the container and codec ffprobe finds in it. */
const FORMAT_CASES: [format: string, contentType: string, container: string, codec: string][] = [
  ['wav', 'audio/wav', 'wav', 'pcm_s16le'],
  ['mp3', 'audio/mpeg', 'mp3', 'mp3'],
  ['ogg', 'audio/ogg', 'ogg', 'opus'],
  ['flac', 'audio/flac', 'flac', 'flac'],
];

/**
 * Starts every named job at once, so they render in parallel while the tests
 * await them one by one; a job's failure is reported by the test that awaits it.
 */
export function startJobs<T>(
  bodies: Record<string, Record<string, unknown>>,
  start: (body: Record<string, unknown>) => Promise<T>,
  into = new Map<string, Promise<T>>(),
): Map<string, Promise<T>> {
  for (const [name, body] of Object.entries(bodies)) {
    const pending = start(body);
    pending.catch(() => undefined);
    into.set(name, pending);
  }
  return into;
}

/**
 * What every served rendering must be, whatever its format: served with its
 * Content-Type, of its container and codec, of a duration within `seconds`
 * that agrees with the recorded one, and audible speech (not mostly silence).
 */
function expectPlausibleAudio(
  audio: Awaited<ReturnType<typeof fetchAndMeasure>>,
  done: { duration_seconds: number },
  expected: { contentType: string; container: string; codec: string; seconds: [min: number, max: number] },
): void {
  expect(audio.response.status).toBe(200);
  expect(audio.response.headers.get('content-type')).toBe(expected.contentType);
  expect(audio.format).toMatchObject({ container: expected.container, codec: expected.codec });
  expect(audio.analysis.durationSeconds).toBeGreaterThan(expected.seconds[0]);
  expect(audio.analysis.durationSeconds).toBeLessThan(expected.seconds[1]);
  expect(Math.abs(audio.analysis.durationSeconds - done.duration_seconds)).toBeLessThan(0.15);
  expect(audio.analysis.silenceRatio).toBeLessThan(0.6);
  expect(audio.analysis.activeRmsDb).toBeGreaterThan(-40);
}

type Rendering = { id: string; done: any };
type MeasuredAudio = Awaited<ReturnType<typeof fetchAndMeasure>>;

/**
 * One test per output format (FORMAT_CASES, `title` formatted with its row) over jobs named by their format (see
 * startJobs): each rendering completed in full in its format, with `fields` of its id too, and served to `token()`
 * as plausible audio of that format (expectPlausibleAudio, within `seconds`); then `also` checks what the suite adds.
 */
export function itRendersEveryFormat(
  title: string,
  suite: {
    api: { url: string };
    token: () => string;
    job: (format: string) => Promise<Rendering>;
    idKey: string;
    seconds: [min: number, max: number];
    fields: (id: string) => Record<string, unknown>;
  },
  also: (audio: MeasuredAudio, rendering: Rendering) => Promise<void>,
): void {
  it.each(FORMAT_CASES)(
    title,
    async (format, contentType, container, codec) => {
      const rendering = await suite.job(format);
      const { id, done } = rendering;
      expect(done).toMatchObject({
        [suite.idKey]: id,
        status: 'completed',
        progress: 1,
        output_format: format,
        error: null,
        ...suite.fields(id),
      });
      const audio = await fetchAndMeasure(suite.api.url, done.audio_url, suite.token());
      expectPlausibleAudio(audio, done, { contentType, container, codec, seconds: suite.seconds });
      await also(audio, rendering);
    },
    120_000,
  );
}

/**
 * A streamed `pcm` speech request whose client reads its first bytes, then reads nothing more until the synthesis
 * has completed (`done`, its final status); `readRest` reads the rest and answers how many bytes came in all.
 */
export async function streamReadAfterCompletion(url: string, token: string, voice: string, input: string) {
  const response = await postSpeech(url, token, { model: 'tts-1', voice, input, response_format: 'pcm' });
  expect(response.status).toBe(200);
  const id = response.headers.get('x-synthesis-id')!;
  const reader = response.body!.getReader();
  const first = (await reader.read()).value?.length ?? 0;
  const done = await waitForSynthesis(url, `/api/v1/tts/history/${id}/status/`, token);
  const readRest = async () => {
    let received = first;
    for (let part = await reader.read(); !part.done; part = await reader.read()) received += part.value.length;
    return received;
  };
  return { id, done, readRest };
}
