import { useEffect, useState } from 'preact/hooks';
import { request } from './api';
import { ErrorMessage } from './ui';
import type { Voice } from './types';

/**
 * Catalog previews: one plays at a time, page-wide. Each button shows
 * whether its voice is the one playing (Play / Stop); starting another
 * preview stops the one before.
 */
interface Playing {
  voiceId: string;
  audio: HTMLAudioElement | null;
  url: string | null;
  /** Set once the audio really plays (the `playing` event), not merely asked for. */
  started: boolean;
}
let playing: Playing | null = null;
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((listener) => listener());

export function stopPreview(): void {
  if (!playing) return;
  playing.audio?.pause();
  if (playing.url) URL.revokeObjectURL(playing.url);
  playing = null;
  notify();
}

async function playPreview(voice: Voice): Promise<void> {
  stopPreview();
  const mine: Playing = { voiceId: voice.id, audio: null, url: null, started: false };
  playing = mine;
  notify();
  // Fetched as a blob, like every other audio of the API (the page's policy plays audio from blob: only).
  const blob = await (await request('GET', voice.preview_url!)).blob();
  if (playing !== mine) return;
  mine.url = URL.createObjectURL(blob);
  mine.audio = new Audio(mine.url);
  mine.audio.onplaying = () => {
    mine.started = true;
    notify();
  };
  mine.audio.onended = () => playing === mine && stopPreview();
  try {
    await mine.audio.play();
  } catch (error) {
    if (playing === mine) stopPreview();
    throw error;
  }
}

/**
 * A Play / Stop button for a voice's catalog preview. Its accessible name
 * names the voice; `short` shows only "Play" or "Stop" (the name stays whole
 * for screen readers), for lists where the voice's name is beside it.
 */
export function PreviewButton({ voice, short = false }: { voice: Voice; short?: boolean }) {
  const [, setRound] = useState(0);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const listener = () => setRound((round) => round + 1);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (playing?.voiceId === voice.id) stopPreview();
    };
  }, [voice.id]);
  const mine = playing?.voiceId === voice.id ? playing : null;
  const toggle = async () => {
    setError(null);
    if (mine) return stopPreview();
    try {
      await playPreview(voice);
    } catch (failure) {
      setError(failure);
    }
  };
  const verb = mine ? 'Stop' : 'Play';
  const rest = mine ? ` the preview of ${voice.name}` : ` a preview of ${voice.name}`;
  return (
    <>
      <button
        type="button"
        class={mine ? 'preview playing' : 'preview'}
        onClick={toggle}
        data-state={mine ? (mine.started ? 'playing' : 'loading') : 'stopped'}
      >
        <span aria-hidden="true" class="preview-icon">
          {mine ? '■' : '▶'}
        </span>{' '}
        {verb}
        {short ? <span class="visually-hidden">{rest}</span> : rest}
      </button>
      <ErrorMessage error={error} />
    </>
  );
}
