import { ApiError, get, request } from './api';
import type { Synthesis } from './types';

const ENDED = new Set(['completed', 'failed', 'canceled']);
const POLL_MS = 1000;

/**
 * Follows a job (a synthesis, a Studio conversion) until it ends, calling
 * `onStatus` at each change. Reads the Server-Sent Events at `events` (with
 * fetch, since EventSource cannot send the Authorization header), each a
 * `status` event carrying the job; polls `poll` when the stream is not
 * available or breaks. An `error` event ends it with that problem.
 */
export async function followJob<T extends { status: string }>(
  paths: { events: string; poll: string },
  onStatus: (status: T) => void,
  signal: AbortSignal,
): Promise<T> {
  try {
    const response = await request('GET', paths.events, { headers: { Accept: 'text/event-stream' }, signal });
    if (response.body && (response.headers.get('Content-Type') ?? '').includes('text/event-stream')) {
      const last = await readEvents<T>(response.body, onStatus);
      if (last && ENDED.has(last.status)) return last;
    } else {
      const status = (await response.json()) as T;
      onStatus(status);
      if (ENDED.has(status.status)) return status;
    }
  } catch (error) {
    // An `error` event (status 0) is the job's own word; a refused or broken stream falls through to polling,
    // which says it again if the job itself is gone.
    if (signal.aborted || (error instanceof ApiError && error.status === 0)) throw error;
  }
  for (;;) {
    const status = await get<T>(paths.poll, signal);
    onStatus(status);
    if (ENDED.has(status.status)) return status;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Follows a synthesis until it ends: its status endpoint streams events when asked for them. */
export function followSynthesis(
  id: string,
  onStatus: (status: Synthesis) => void,
  signal: AbortSignal,
): Promise<Synthesis> {
  const path = `tts/history/${id}/status/`;
  return followJob({ events: path, poll: path }, onStatus, signal);
}

async function readEvents<T>(body: ReadableStream<Uint8Array>, onStatus: (status: T) => void): Promise<T | null> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let last: T | null = null;
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
        last = JSON.parse(data) as T;
        onStatus(last);
      } else if (event === 'error' && data) {
        const problem = JSON.parse(data) as { code: string; message: string };
        throw new ApiError({ status: 0, code: problem.code, detail: problem.message });
      }
    }
  }
}
