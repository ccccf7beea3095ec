import { ApiError, get, request } from './api';
import type { Synthesis } from './types';

const ENDED = new Set(['completed', 'failed', 'canceled']);
const POLL_MS = 1000;

/**
 * Follows a synthesis until it ends, calling `onStatus` at each change. Uses
 * the status endpoint's Server-Sent Events (read with fetch, since
 * EventSource cannot send the Authorization header); polls when the stream is
 * not available or breaks.
 */
export async function followSynthesis(
  id: string,
  onStatus: (status: Synthesis) => void,
  signal: AbortSignal,
): Promise<Synthesis> {
  const path = `tts/history/${id}/status/`;
  try {
    const response = await request('GET', path, { headers: { Accept: 'text/event-stream' }, signal });
    if (response.body && (response.headers.get('Content-Type') ?? '').includes('text/event-stream')) {
      const last = await readEvents(response.body, onStatus);
      if (last && ENDED.has(last.status)) return last;
    } else {
      const status = (await response.json()) as Synthesis;
      onStatus(status);
      if (ENDED.has(status.status)) return status;
    }
  } catch (error) {
    if (signal.aborted || error instanceof ApiError) throw error;
    // A broken stream: fall through to polling.
  }
  for (;;) {
    const status = await get<Synthesis>(path, signal);
    onStatus(status);
    if (ENDED.has(status.status)) return status;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function readEvents(
  body: ReadableStream<Uint8Array>,
  onStatus: (status: Synthesis) => void,
): Promise<Synthesis | null> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let last: Synthesis | null = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return last;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      if (event === 'status' && data) {
        last = JSON.parse(data) as Synthesis;
        onStatus(last);
      } else if (event === 'error' && data) {
        const problem = JSON.parse(data) as { code: string; message: string };
        throw new ApiError({ status: 0, code: problem.code, detail: problem.message });
      }
    }
  }
}
