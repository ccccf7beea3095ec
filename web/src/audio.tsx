import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, get, request } from './api';
import { ErrorMessage } from './ui';

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
 * blob and played from an object URL. With word timestamps (200 from
 * .../timestamps/), the text is shown with the spoken word highlighted.
 */
export function AudioPlayer({ id, format, text, autoFocus = false }: { id: string; format: string; text?: string; autoFocus?: boolean }) {
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
      get<{ words: Word[] }>(`tts/history/${id}/timestamps/`, controller.signal)
        .then((answer) => setWords(answer.words))
        // 404 (no timestamps for this synthesis or this server) or 409: play without highlighting.
        .catch((failure) => failure instanceof ApiError || controller.signal.aborted || undefined);
    }
    return () => {
      controller.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [id]);

  useEffect(() => {
    if (url && autoFocus) audio.current?.focus();
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
      <audio ref={audio} controls src={url} onTimeUpdate={onTime} onEnded={() => setCurrent(-1)} aria-label="Synthesized speech" data-testid="audio" />
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
