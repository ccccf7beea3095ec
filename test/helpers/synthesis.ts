import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { analyseAudio, type AudioAnalysis, probeFormat } from '../../audio/analysis';
import { call } from './http';

/** Polls a status URL until the synthesis is no longer queued or processing. */
export async function waitForSynthesis(baseUrl: string, statusUrl: string, token: string, timeoutMs = 90_000): Promise<any> {
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
