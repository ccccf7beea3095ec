import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { analyseAudio, type AudioAnalysis, probeFormat } from '../../audio/analysis';
import { call } from './http';

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
export const FORMAT_CASES: [format: string, contentType: string, container: string, codec: string][] = [
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
export function expectPlausibleAudio(
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
