import { useEffect, useRef, useState } from 'preact/hooks';
import { get, onSessionChange, type Page, request } from './api';
import type { Synthesis, Voice } from './types';
import { ErrorMessage } from './ui';

/** The voices the account can see, read once (a voice missing from it, such as a new clone, reads it again). */
let voices: Promise<Map<string, Voice>> | null = null;
onSessionChange(() => {
  voices = null;
});
async function readVoices(): Promise<Map<string, Voice>> {
  const map = new Map<string, Voice>();
  for (let page = 1; ; page++) {
    const answer = await get<Page<Voice>>(`voices/?page=${page}&page_size=100`);
    for (const voice of answer.results) map.set(voice.id, voice);
    if (!answer.next) return map;
  }
}
async function findVoice(id: string, again = true): Promise<Voice | undefined> {
  voices ??= readVoices().catch((failure: unknown) => {
    voices = null;
    throw failure;
  });
  const voice = (await voices).get(id);
  if (voice || !again) return voice;
  voices = null;
  return findVoice(id, false);
}

/** Whether the synthesis has word timestamps: only where its voice's engine reports timing (else the API answers 409). */
async function hasTimestamps(id: string, signal: AbortSignal): Promise<boolean> {
  const entry = await get<Synthesis>(`tts/history/${id}/`, signal);
  const voice = entry.voice_id ? await findVoice(entry.voice_id) : undefined;
  return voice?.word_timestamps === true;
}

interface Word {
  word: string;
  start: number;
  end: number;
  char_start: number;
  char_end: number;
}

/**
 * Plays and offers for download the audio of a completed synthesis. The audio
 * endpoint wants the Authorization header, so the bytes are fetched as a
 * blob and played from an object URL. Where the voice has word timestamps
 * (its `word_timestamps`), the text is shown with the spoken word highlighted.
 */
export function AudioPlayer({
  id,
  format,
  text,
  autoFocus = false,
  autoPlay = false,
}: {
  id: string;
  format: string;
  text?: string;
  autoFocus?: boolean;
  autoPlay?: boolean;
}) {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [words, setWords] = useState<Word[] | null>(null);
  const [current, setCurrent] = useState(-1);
  const audio = useRef<HTMLAudioElement>(null);

  useEffect(() => {
    const controller = new AbortController();
    let objectUrl: string | null = null;
    request('GET', `tts/history/${id}/audio/`, { signal: controller.signal })
      .then((response) => response.blob())
      .then((blob) => {
        objectUrl = URL.createObjectURL(blob);
        setUrl(objectUrl);
      })
      .catch((failure) => controller.signal.aborted || setError(failure));
    if (text) {
      hasTimestamps(id, controller.signal)
        .then((has) => (has ? get<{ words: Word[] }>(`tts/history/${id}/timestamps/`, controller.signal) : null))
        .then((answer) => answer && setWords(answer.words))
        // Without them (a synthesis made before they were kept, a deleted voice) it plays without highlighting.
        .catch(() => undefined);
    }
    return () => {
      controller.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [id]);

  useEffect(() => {
    if (url && autoFocus) audio.current?.focus();
    // Asked for with a click ("Play"): it plays at once, no second click on the player. A refusal leaves the controls.
    if (url && autoPlay) audio.current?.play().catch(() => undefined);
  }, [url]);

  const onTime = () => {
    if (!words || !audio.current) return;
    const time = audio.current.currentTime;
    setCurrent(words.findIndex((word) => time >= word.start && time < word.end));
  };

  if (error) return <ErrorMessage error={error} />;
  if (!url) return <p role="status">Loading audio…</p>;
  return (
    <div class="player">
      <audio
        ref={audio}
        controls
        src={url}
        onTimeUpdate={onTime}
        onEnded={() => setCurrent(-1)}
        aria-label="Synthesized speech"
        data-testid="audio"
      />
      <a class="button" href={url} download={`openvox-${id}.${format}`}>
        Download {format.toUpperCase()}
      </a>
      {words && text && <Transcript text={text} words={words} current={current} />}
    </div>
  );
}

function Transcript({ text, words, current }: { text: string; words: Word[]; current: number }) {
  const parts = [];
  let cursor = 0;
  // char_start/char_end count code points of the text as sent.
  const chars = [...text];
  words.forEach((word, index) => {
    if (word.char_start > cursor) parts.push(chars.slice(cursor, word.char_start).join(''));
    parts.push(
      <span key={index} class={index === current ? 'word current' : 'word'}>
        {chars.slice(word.char_start, word.char_end).join('')}
      </span>,
    );
    cursor = Math.max(cursor, word.char_end);
  });
  if (cursor < chars.length) parts.push(chars.slice(cursor).join(''));
  return (
    <p class="transcript" aria-label="Transcript">
      {parts}
    </p>
  );
}
