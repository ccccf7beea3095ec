import type { Readable } from 'node:stream';
import { pauseSamples, OUTPUT_SAMPLE_RATE, type Voicing } from '../audio/finish';
import { deliveredWords, type TimedWord } from '../audio/timestamps';
import { readWavInfo } from '../audio/wav';
import { isMissingObject, type Storage } from '../lib/storage';
import { chunkWordsKey } from './objects';

/**
 * Word timestamps beside a synthesis's audio. Each rendered chunk's words
 * (chunk time) wait next to the chunk, under the synthesis's work prefix, so
 * they go with the chunks; the finish joins them into the delivered audio's
 * time and stores one JSON object next to the audio, which every path that
 * removes the audio removes too.
 */

/** What the timestamps endpoint serves. */
export interface StoredTimestamps {
  words: TimedWord[];
}

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** A stored JSON object, or null when it is not (or not yet) there: one GET, no HEAD before it. */
export async function readJsonObject<T>(storage: Storage, key: string): Promise<T | null> {
  let stream: Readable;
  try {
    stream = await storage.get(key);
  } catch (error) {
    if (isMissingObject(error)) return null;
    throw error;
  }
  return JSON.parse((await readAll(stream)).toString('utf8')) as T;
}

/** Keeps one chunk's words (nothing when its engine gave no timing). */
export async function storeChunkWords(
  storage: Storage,
  synthesisId: string,
  index: number,
  words: TimedWord[] | undefined,
): Promise<void> {
  if (words)
    await storage.put(chunkWordsKey(synthesisId, index), Buffer.from(JSON.stringify(words)), 'application/json');
}

/** Every chunk's words, or undefined for a chunk without (its engine gives no timing). */
export async function loadChunkWords(
  storage: Storage,
  synthesisId: string,
  count: number,
): Promise<Array<TimedWord[] | undefined>> {
  return Promise.all(
    Array.from(
      { length: count },
      async (_, index) => (await readJsonObject<TimedWord[]>(storage, chunkWordsKey(synthesisId, index))) ?? undefined,
    ),
  );
}

/**
 * Joins the chunks' words into the delivered audio's time (finishAudio's
 * join: each chunk's length, the pause between) and stores them; when a
 * chunk has no timing there are no timestamps, and nothing is stored.
 */
export async function storeTimestamps(
  storage: Storage,
  key: string,
  input: {
    text: string;
    /** Each chunk's text in `text`, or null for a chunk whose words index `text` already (SSML). */
    chunkTexts: ReadonlyArray<string | null>;
    chunkPaths: readonly string[];
    words: ReadonlyArray<TimedWord[] | undefined>;
    voicing: Voicing;
    /** The pause finishAudio put between chunks, seconds (absent: its default at the voicing's rate). */
    pauseSeconds?: number;
  },
): Promise<boolean> {
  const { words } = input;
  if (words.length !== input.chunkTexts.length || words.some((chunk) => chunk === undefined)) return false;
  const seconds = await Promise.all(input.chunkPaths.map(async (chunk) => (await readWavInfo(chunk)).durationSeconds));
  const pause = pauseSamples({ ...input.voicing, pauseSeconds: input.pauseSeconds }) / OUTPUT_SAMPLE_RATE;
  const chunks = input.chunkTexts.map((text, index) => ({ text, seconds: seconds[index], words: words[index]! }));
  const stored: StoredTimestamps = { words: deliveredWords(input.text, chunks, pause) };
  await storage.put(key, Buffer.from(JSON.stringify(stored)), 'application/json');
  return true;
}
