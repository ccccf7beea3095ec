import { ApplicationFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import { createActivities } from '../../activities';
import type { TimedWord } from '../../audio/timestamps';
import { wavSamplesOf } from '../../audio/wav';
import { Synthesis, type SynthesisRow } from '../../db/models/Synthesis';
import { sharedEngines } from '../../engines/registry';
import { createMailer } from '../../lib/mail';
import { pcmBytes, wavHeader } from '../../lib/wavFormat';
import { audioKey, timestampsKey } from '../../synthesis/objects';
import { readJsonObject, type StoredTimestamps } from '../../synthesis/timestamps';
import { createAccount, type TestAccount } from '../helpers/factories';
import { useStack } from '../helpers/stack';

/**
 * recordStreamSession, the step that turns a stream-input connection's
 * pieces into its one history entry, on real PostgreSQL and MinIO: pieces are
 * written as the synthesis workflow leaves them (rows, audio, word timestamps).
 */

const RATE = 24_000;
const VOICE = 'en-us-flite-slt';

/** A WAV of a tone (something to normalize, unlike silence). */
function toneWav(seconds: number): Buffer {
  const samples = Int16Array.from({ length: Math.round(seconds * RATE) }, (_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 220 * i) / RATE)),
  );
  return Buffer.concat([wavHeader(samples.length, RATE), pcmBytes(samples)]);
}

describe('recordStreamSession', () => {
  const { deps } = useStack();
  let owner: TestAccount;
  let activities: ReturnType<typeof createActivities>;
  beforeAll(async () => {
    owner = await createAccount(deps);
    activities = createActivities({
      config: deps.config,
      db: deps.db,
      storage: deps.storage,
      temporal: deps.temporal,
      mailer: createMailer(deps.config, deps.logger),
      engines: sharedEngines({ enableNonFree: false, modelsDir: deps.config.MODELS_DIR }),
    });
  });

  /** A piece of `sessionId` as its synthesis left it; a completed one has its audio (and words) stored. */
  async function piece(
    sessionId: string,
    index: number,
    text: string,
    status: SynthesisRow['status'],
    { seconds = 1, words }: { seconds?: number; words?: TimedWord[] } = {},
  ): Promise<SynthesisRow> {
    const id = randomUUID();
    const completed = status === 'completed';
    const key = audioKey(owner.id, id, 'wav');
    if (completed) {
      await deps.storage.put(key, toneWav(seconds), 'audio/wav');
      if (words)
        await deps.storage.put(timestampsKey(owner.id, id), Buffer.from(JSON.stringify({ words })), 'application/json');
    }
    const characters = [...text].length;
    await Synthesis.query(deps.db).insert({
      id,
      account_id: owner.id,
      voice_id: VOICE,
      text,
      characters,
      spoken_characters: characters,
      speed: 1,
      pitch: 0,
      emotion: 'neutral',
      output_format: 'wav',
      streaming: true,
      status,
      progress: completed ? 1 : 0,
      credits_charged: completed ? characters : 0,
      duration_seconds: completed ? seconds : null,
      audio_key: completed ? key : null,
      audio_bytes: completed ? seconds * RATE * 2 + 44 : null,
      error: status === 'failed' ? { code: 'engine_failed', message: 'The engine failed.' } : null,
      part_of: sessionId,
      part_index: index,
      completed_at: status === 'processing' ? null : new Date(),
    });
    return (await Synthesis.query(deps.db).findById(id))!;
  }

  it('waits while a piece still runs: it fails, to be retried', async () => {
    const sessionId = randomUUID();
    await piece(sessionId, 0, 'Already said.', 'completed');
    await piece(sessionId, 1, 'Still rendering.', 'processing');
    const failure = await activities.recordStreamSession({ sessionId, accountId: owner.id }).catch((error) => error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'PiecesRunning', nonRetryable: false });
    expect(await Synthesis.query(deps.db).findById(sessionId)).toBeUndefined();
  });

  it('records the pieces heard as one entry: their text and charge, their audio joined, their words moved', async () => {
    const sessionId = randomUUID();
    const first = await piece(sessionId, 0, 'Hello there.', 'completed', {
      seconds: 1,
      words: [
        { word: 'Hello', start: 0.1, end: 0.4, char_start: 0, char_end: 5 },
        { word: 'there', start: 0.45, end: 0.8, char_start: 6, char_end: 11 },
      ],
    });
    const second = await piece(sessionId, 1, 'Bye now.', 'completed', {
      seconds: 2,
      words: [
        { word: 'Bye', start: 0.2, end: 0.5, char_start: 0, char_end: 3 },
        { word: 'now', start: 0.6, end: 0.9, char_start: 4, char_end: 7 },
      ],
    });
    // A piece the client never heard (canceled when the connection closed): not in the entry, not charged.
    await piece(sessionId, 2, 'Never heard.', 'canceled');

    expect(await activities.recordStreamSession({ sessionId, accountId: owner.id })).toBe('recorded');
    const entry = (await Synthesis.query(deps.db).findById(sessionId))!;
    const text = 'Hello there. Bye now.';
    expect(entry).toMatchObject({
      account_id: owner.id,
      status: 'completed',
      text,
      characters: 20,
      credits_charged: 20,
      output_format: 'wav',
      part_of: null,
      streaming: true,
    });
    // One file: 1 s, the pause between pieces, 2 s.
    const bytes: Buffer[] = [];
    for await (const part of await deps.storage.get(entry.audio_key!)) bytes.push(part as Buffer);
    const { samples } = wavSamplesOf(Buffer.concat(bytes), 'entry');
    const pause = entry.duration_seconds! - 3;
    expect(samples.length / RATE).toBeCloseTo(entry.duration_seconds!, 3);
    expect(pause).toBeGreaterThan(0.1);
    expect(pause).toBeLessThan(1);
    const { words } = (await readJsonObject<StoredTimestamps>(deps.storage, timestampsKey(owner.id, sessionId)))!;
    expect(words.map((word) => [...text].slice(word.char_start, word.char_end).join(''))).toEqual([
      'Hello',
      'there',
      'Bye',
      'now',
    ]);
    expect(words[2].start).toBeCloseTo(1 + pause + 0.2, 2);
    // The pieces keep their rows (the charges' references) without their audio.
    for (const part of [first, second]) {
      expect((await Synthesis.query(deps.db).findById(part.id))!.audio_key).toBeNull();
      expect(await deps.storage.size(part.audio_key!)).toBeNull();
      expect(await deps.storage.size(timestampsKey(owner.id, part.id))).toBeNull();
    }

    // Again (a retry after the entry was recorded): the same entry, nothing else.
    expect(await activities.recordStreamSession({ sessionId, accountId: owner.id })).toBe('recorded');
    expect(await Synthesis.query(deps.db).findById(sessionId)).toEqual(entry);

    // Deleting the entry takes its pieces out of history with it, and its audio out of storage.
    await activities.removeSynthesis({ synthesisId: sessionId });
    const parts = await Synthesis.query(deps.db).where({ part_of: sessionId });
    expect(parts.every((part) => part.deleted_at !== null)).toBe(true);
    expect(await deps.storage.size(entry.audio_key!)).toBeNull();
  });

  it('records a failed entry when no piece was heard and one failed; nothing when none was heard or failed', async () => {
    const failedSession = randomUUID();
    await piece(failedSession, 0, 'It broke here.', 'failed');
    expect(await activities.recordStreamSession({ sessionId: failedSession, accountId: owner.id })).toBe('recorded');
    expect(await Synthesis.query(deps.db).findById(failedSession)).toMatchObject({
      status: 'failed',
      text: 'It broke here.',
      credits_charged: 0,
      audio_key: null,
      error: { code: 'engine_failed', message: 'The engine failed.' },
    });

    const silentSession = randomUUID();
    await piece(silentSession, 0, 'Left before the audio.', 'canceled');
    expect(await activities.recordStreamSession({ sessionId: silentSession, accountId: owner.id })).toBe('nothing');
    expect(await Synthesis.query(deps.db).findById(silentSession)).toBeUndefined();
  });
});
