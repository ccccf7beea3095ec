import { ApplicationFailure } from '@temporalio/activity';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ActivityDeps } from '.';
import { type Emotion, finishAudio, type OutputFormat } from '../audio';
import { ffmpeg, fileUrl, monoWavOutput } from '../audio/ffmpeg';
import { OUTPUT_SAMPLE_RATE, pauseSamples } from '../audio/finish';
import type { TimedWord } from '../audio/timestamps';
import { readWavInfo } from '../audio/wav';
import { Synthesis, type SynthesisRow, RUNNING_STATUSES } from '../db/models/Synthesis';
import type { StreamSessionInput } from '../synthesis/contracts';
import { audioKey, removeSynthesisObjects, timestampsKey } from '../synthesis/objects';
import { readJsonObject, type StoredTimestamps } from '../synthesis/timestamps';
import { inTempDir } from './work';
import { createWebhookAnnouncer } from './webhooks';

/**
 * A stream-input connection as one synthesis (workflows/streamSession.ts):
 * once it has ended and each of its pieces has ended, its entry is recorded
 * from them. The pieces were charged one by one as they were spoken; the
 * entry holds their text, their charge, and their audio joined into one file
 * (with its word timestamps), and the pieces' own audio goes.
 */

/** What a session's record made: its entry, or nothing (no piece was heard or failed: nothing to show). */
export type StreamSessionOutcome = 'recorded' | 'nothing';

const isRunning = (part: SynthesisRow) => (RUNNING_STATUSES as readonly string[]).includes(part.status);

export function createStreamSessionActivities(deps: ActivityDeps) {
  const { db, storage } = deps;
  const webhooks = createWebhookAnnouncer(deps);

  /** The parts' audio joined (finishAudio's pause between them) in the parts' format, and their words in its time. */
  const joinParts = (parts: SynthesisRow[]) =>
    inTempDir(async (dir) => {
      const first = parts[0];
      const format = first.output_format as OutputFormat;
      const voicing = { speed: first.speed, pitch: first.pitch, emotion: first.emotion as Emotion };
      const wavs: string[] = [];
      const seconds: number[] = [];
      for (const part of parts) {
        const source = path.join(dir, `stored-${part.part_index}.${part.output_format}`);
        await pipeline(await storage.get(part.audio_key!), createWriteStream(source));
        const wav = path.join(dir, `part-${part.part_index}.wav`);
        await ffmpeg(['-i', fileUrl(source), ...monoWavOutput(OUTPUT_SAMPLE_RATE, wav)]);
        wavs.push(wav);
        seconds.push((await readWavInfo(wav)).durationSeconds);
      }
      const outPath = path.join(dir, `out.${format}`);
      const result = await finishAudio({ chunks: wavs, ...voicing, format, outPath });
      const key = audioKey(first.account_id, first.part_of!, format);
      await storage.put(key, await readFile(outPath), result.contentType);
      const words = await joinedWords(parts, seconds, pauseSamples(voicing) / OUTPUT_SAMPLE_RATE);
      if (words) {
        const stored: StoredTimestamps = { words };
        await storage.put(
          timestampsKey(first.account_id, first.part_of!),
          Buffer.from(JSON.stringify(stored)),
          'application/json',
        );
      }
      return { key, bytes: result.bytes, durationSeconds: result.durationSeconds };
    });

  /**
   * Each part's words moved into the entry's time (`seconds`: each part's length, a pause between) and text (the
   * parts joined by one space; offsets in code points, as stored); none if a part has none.
   */
  const joinedWords = async (parts: SynthesisRow[], seconds: number[], pauseSeconds: number) => {
    const words: TimedWord[] = [];
    let offset = 0;
    let characters = 0;
    for (const [index, part] of parts.entries()) {
      const stored = await readJsonObject<StoredTimestamps>(storage, timestampsKey(part.account_id, part.id));
      if (!stored) return null;
      for (const word of stored.words)
        words.push({
          ...word,
          start: round(offset + word.start),
          end: round(offset + word.end),
          char_start: characters + word.char_start,
          char_end: characters + word.char_end,
        });
      offset += seconds[index] + pauseSeconds;
      characters += [...part.text].length + 1;
    }
    return words;
  };

  return {
    /**
     * Records a stream-input connection's entry once every piece it submitted
     * has ended (until then it fails, and Temporal retries it). Idempotent: a
     * retry after the entry was recorded only finishes announcing it and removing the pieces' audio.
     */
    async recordStreamSession({ sessionId }: StreamSessionInput): Promise<StreamSessionOutcome> {
      const parts = await Synthesis.query(db).where({ part_of: sessionId }).orderBy('part_index');
      const recorded = await Synthesis.query(db).findById(sessionId).select('id');
      if (!recorded) {
        if (parts.some(isRunning))
          throw ApplicationFailure.retryable('a piece of the connection is still running', 'PiecesRunning');
        const heard = parts.filter((part) => part.status === 'completed' && part.audio_key);
        const failed = parts.find((part) => part.status === 'failed');
        // Nothing heard and nothing failed (the client left before any audio): nothing was charged, nothing to show.
        if (heard.length === 0 && !failed) return 'nothing';
        const shown = heard.length > 0 ? heard : parts;
        const text = shown.map((part) => part.text).join(' ');
        const audio = heard.length > 0 ? await joinParts(heard) : null;
        const first = shown[0];
        await db.transaction(async (trx) => {
          await Synthesis.query(trx)
            .insert({
              id: sessionId,
              account_id: first.account_id,
              project_id: null,
              voice_id: first.voice_id,
              text,
              characters: shown.reduce((sum, part) => sum + part.characters, 0),
              spoken_characters: shown.reduce((sum, part) => sum + (part.spoken_characters ?? part.characters), 0),
              speed: first.speed,
              pitch: first.pitch,
              emotion: first.emotion,
              output_format: first.output_format,
              streaming: true,
              text_normalization: first.text_normalization,
              pronunciation_dictionary_ids: first.pronunciation_dictionary_ids,
              text_type: 'text',
              status: audio ? 'completed' : 'failed',
              progress: audio ? 1 : 0,
              credits_charged: heard.reduce((sum, part) => sum + Number(part.credits_charged), 0),
              duration_seconds: audio?.durationSeconds ?? null,
              audio_key: audio?.key ?? null,
              audio_bytes: audio?.bytes ?? null,
              error: audio ? null : failed!.error,
              created_at: first.created_at,
              started_at: first.started_at,
              completed_at: trx.fn.now(),
            })
            .onConflict('id')
            .ignore();
          // The entry holds the pieces' audio now: theirs goes below.
          await Synthesis.query(trx).patch({ audio_key: null }).where({ part_of: sessionId });
        });
      }
      // Also on a retry after the entry was recorded: the event's id is stable, so it goes out once.
      await webhooks.synthesisAnnounced(sessionId);
      for (const part of parts) await removeSynthesisObjects(storage, part);
      return 'recorded';
    },
  };
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;
