import { ApplicationFailure, Context, heartbeat } from '@temporalio/activity';
import { readFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import type { ActivityDeps } from '.';
import { classifyFailures, inTempDir, unlessCanceled, withHeartbeat } from './work';
import { type Emotion, finishAudio, type OutputFormat, renderChunk, type Voicing } from '../audio';
import { Account } from '../db/models/Account';
import { SubscriptionPlan } from '../db/models/SubscriptionPlan';
import { Synthesis, type SynthesisRow } from '../db/models/Synthesis';
import {
  advanceProgress,
  type CompletedAudio,
  recordAudioRemoved,
  recordCompletion,
  recordDeleted,
  recordEnded,
  recordRendering,
  recordSlotTaken,
  notifyWatchers,
} from '../synthesis/lifecycle';
import { audioKey, chunkKey, chunkPrefix, removeSynthesisObjects, timestampsKey } from '../synthesis/objects';
import { creditsFor } from '../synthesis/cost';
import { compileLexicon } from '../text/lexicon';
import { PronunciationEntry } from '../db/models/PronunciationEntry';
import { asPremadeVoice, Voice } from '../db/models/Voice';
import type { PremadeVoice } from '../engines/catalog';
import { HEAVY_ENGINES } from '../engines/registry';
import { cloneFinishOptions } from '../audio/cloning';
import type { StoredVoiceProfile } from './cloning';
import { type FailureType, slotFreedSignal, synthesisWorkflowId } from '../synthesis/contracts';
import { spokenCharacters } from '../synthesis/spokenLength';
import type { UnchargedEnd } from '../synthesis/status';
import { createWebhookAnnouncer } from './webhooks';
import {
  chunkVoiceIds,
  type PlannedChunk,
  type SpeechPlan,
  speechPlanOf,
  storedSpeechPlan,
} from '../synthesis/speechPlan';
import { loadChunkWords, storeChunkWords, storeTimestamps } from '../synthesis/timestamps';
import type { TimedWord } from '../audio/timestamps';

export { CHUNK_CHARS } from '../synthesis/speechPlan';

export interface SynthesisSlot {
  started: boolean;
  /** How many chunks the text renders in. */
  chunkCount: number;
  /**
   * Its voice renders with a `high`-tier engine (Kokoro), whose renders run on the heavy queue
   * (synthesis/contracts.ts `heavyTaskQueue`). Absent in results recorded before that queue existed.
   */
  heavy?: boolean;
}

/** Whether a voice (a cloned one: its base voice) renders with a `high`-tier engine. */
async function rendersHeavy(trx: Knex.Transaction, voiceId: string): Promise<boolean> {
  const voice = await Voice.query(trx).findById(voiceId).select('engine', 'category', 'profile');
  const baseId = voice?.category === 'cloned' ? (voice.profile as { baseVoiceId?: string } | null)?.baseVoiceId : null;
  const base = baseId ? await Voice.query(trx).findById(baseId).select('engine') : voice;
  return base?.engine ? HEAVY_ENGINES.has(base.engine) : false;
}

/**
 * Takes one of the plan's concurrent-synthesis slots, atomically per account
 * (the account row is locked), in the caller's transaction. The synthesis
 * stays `queued` until its render starts on a worker (recordRendering). One
 * that holds a slot already keeps it. The slots held: the account's
 * processing syntheses and its queued ones that took a slot (`slot_taken_at`;
 * syntheses from before that column were made processing with the slot).
 */
export async function takeSynthesisSlot(trx: Knex.Transaction, synthesisId: string): Promise<SynthesisSlot> {
  const synthesis = await Synthesis.query(trx).findById(synthesisId);
  if (!synthesis) throw ApplicationFailure.nonRetryable(`synthesis ${synthesisId} does not exist`, 'SynthesisMissing');
  // Planned here, with the reservation, the first time: every later step reads this plan.
  const speechPlan = await speechPlanOf(trx, synthesis);
  const chunkCount = speechPlan.chunks.length;
  // On the heavy queue if any voice it speaks in renders there (an SSML <voice> may name another engine's voice).
  const heavy = (
    await Promise.all([synthesis.voice_id, ...chunkVoiceIds(speechPlan)].map((voiceId) => rendersHeavy(trx, voiceId)))
  ).some(Boolean);
  if (synthesis.status === 'processing' || (synthesis.status === 'queued' && synthesis.slot_taken_at !== null))
    return { started: true, chunkCount, heavy };
  if (synthesis.status !== 'queued')
    throw ApplicationFailure.nonRetryable(`synthesis is ${synthesis.status}`, 'SynthesisNotQueued');
  const account = await Account.query(trx)
    .findById(synthesis.account_id)
    .forUpdate()
    .select('subscription_tier')
    .throwIfNotFound();
  const plan = await SubscriptionPlan.query(trx)
    .findById(account.subscription_tier)
    .select('max_concurrent_syntheses')
    .throwIfNotFound();
  const [{ count }] = await Synthesis.query(trx)
    .where({ account_id: synthesis.account_id })
    .where((held) =>
      held
        .where({ status: 'processing' })
        .orWhere((waiting) => waiting.where({ status: 'queued' }).whereNotNull('slot_taken_at')),
    )
    .count({ count: '*' })
    .castTo<{ count: string }[]>();
  if (Number(count) >= plan.max_concurrent_syntheses) return { started: false, chunkCount, heavy };
  await recordSlotTaken(trx, synthesisId);
  return { started: true, chunkCount, heavy };
}

export interface FinishedAudio {
  audioKey: string;
  bytes: number;
  durationSeconds: number;
}

export function createSynthesisActivities(deps: ActivityDeps) {
  const { db, storage, temporal, engines, config } = deps;
  const webhooks = createWebhookAnnouncer(deps);
  /** Storage outages are waited out this long (STORAGE_RETRY_SECONDS); engine errors fail fast. */
  const classified = <T>(work: () => Promise<T>) => classifyFailures(config.STORAGE_RETRY_SECONDS * 1000, work);
  const loadSynthesis = async (synthesisId: string): Promise<SynthesisRow> => {
    const row = await Synthesis.query(db).findById(synthesisId);
    if (!row) throw ApplicationFailure.nonRetryable(`synthesis ${synthesisId} does not exist`, 'SynthesisMissing');
    return row;
  };
  /**
   * The premade voice that renders a synthesis's voice, and for a cloned voice
   * its profile (pitch, EQ and rate toward the sample), which voicingOf turns into the voicing.
   */
  const loadVoice = async (voiceId: string): Promise<{ base: PremadeVoice; profile: StoredVoiceProfile | null }> => {
    const voice = await Voice.query(db).findById(voiceId);
    // Revoked consent stops a clone at once, even for a job accepted before (it fails; nothing is charged).
    if (voice?.status === 'revoked')
      throw ApplicationFailure.nonRetryable(`voice ${voiceId} consent revoked`, 'VoiceUnavailable');
    const profile: StoredVoiceProfile | null = voice?.category === 'cloned' ? voice.profile : null;
    const base = profile ? await Voice.query(db).findById(profile.baseVoiceId) : voice;
    if (!base?.engine) throw ApplicationFailure.nonRetryable(`voice ${voiceId} cannot be rendered`, 'VoiceUnavailable');
    return {
      base: asPremadeVoice(base),
      profile,
    };
  };

  /** What the request asks of the voice; a cloned voice adds its rate, pitch and EQ toward the sample. */
  const voicingOf = (synthesis: SynthesisRow, profile: StoredVoiceProfile | null): Voicing => {
    const clone = profile
      ? cloneFinishOptions(profile, synthesis.speed)
      : { speed: synthesis.speed, profile: undefined };
    return {
      speed: clone.speed,
      pitch: synthesis.pitch,
      emotion: synthesis.emotion as Emotion,
      profile: clone.profile,
    };
  };

  /** A synthesis with what every render and finish step of it needs: its row, the voice that renders it, and the voicing. */
  const loadJob = async (synthesisId: string) => {
    const synthesis = await loadSynthesis(synthesisId);
    const [{ base: voice, profile }, entries] = await Promise.all([
      loadVoice(synthesis.voice_id),
      PronunciationEntry.lexiconOf(db, synthesis.pronunciation_dictionary_ids ?? []),
    ]);
    // Compiled once per job, not per chunk.
    const lexicon = entries.length > 0 ? compileLexicon(entries) : null;
    // Plain text meets its dictionaries at the render, not when it was submitted (an SSML plan holds its aliases):
    // an alias lengthened since must not make it say more than was charged.
    const allowed = synthesis.spoken_characters;
    if (lexicon && allowed !== null && synthesis.text_type === 'text') {
      if (spokenCharacters(synthesis.text, 'text', voice.language, lexicon) > allowed)
        throw ApplicationFailure.nonRetryable(
          `synthesis ${synthesisId}: its dictionaries now say more than ${allowed} characters`,
          'DictionaryChanged' satisfies FailureType,
        );
    }
    // The plan the slot stored (planned here only for a synthesis whose slot was taken before plans were stored).
    const plan: SpeechPlan = await speechPlanOf(db, synthesis, lexicon, voice.language);
    return { synthesis, voice, voicing: voicingOf(synthesis, profile), lexicon, plan };
  };
  type Job = Awaited<ReturnType<typeof loadJob>>;
  // A clone's voice is read for every chunk: its consent can be revoked mid-synthesis (that must stop it at once).
  const jobs = createJobCache(loadJob, (job) => job.voice.id === job.synthesis.voice_id);

  /**
   * The voice and voicing of one chunk: the synthesis's, or those of the voice an SSML <voice> gave it (read for
   * each chunk, like a clone's, so that revoked consent stops it; the API checked at submit that the account may use it).
   */
  const chunkVoice = async (job: Job, chunk: PlannedChunk) => {
    if (!chunk.voiceId || chunk.voiceId === job.synthesis.voice_id) return { voice: job.voice, voicing: job.voicing };
    const { base, profile } = await loadVoice(chunk.voiceId);
    return { voice: base, voicing: voicingOf(job.synthesis, profile) };
  };

  /** Renders one chunk of a synthesis's text with its voice and voicing. */
  const render = async (job: Job, chunk: PlannedChunk, outPath: string, signal: AbortSignal) => {
    const { synthesis, lexicon } = job;
    const { text, read } = chunk;
    const { voice, voicing } = await chunkVoice(job, chunk);
    return renderChunk({
      voice,
      text,
      ...(read && { read }),
      ...voicing,
      textNormalization: synthesis.text_normalization,
      lexicon,
      outPath,
      engines,
      signal,
    });
  };

  /** Joins rendered chunks, normalizes and encodes them, and stores the audio under its final key (and its word timestamps beside it). */
  const finishAndStore = async (
    { synthesis, voicing, plan }: Job,
    chunks: string[],
    dir: string,
    signal: AbortSignal,
    words: Array<TimedWord[] | undefined>,
  ): Promise<FinishedAudio> => {
    const outPath = path.join(dir, `out.${synthesis.output_format}`);
    // SSML chunks carry their own silence (breaks, sentences, paragraphs): no pause is added between them.
    const pause = plan.pauseSeconds === null ? {} : { pauseSeconds: plan.pauseSeconds };
    const result = await finishAudio({
      chunks,
      ...voicing,
      ...pause,
      format: synthesis.output_format as OutputFormat,
      outPath,
      signal,
    });
    unlessCanceled(signal);
    const key = audioKey(synthesis.account_id, synthesis.id, synthesis.output_format);
    const chunkTexts = plan.chunks.map((chunk) => (chunk.read ? null : chunk.text));
    const timing = { text: synthesis.text, chunkTexts, chunkPaths: chunks, words, voicing, ...pause };
    const audio = await readFile(outPath);
    // Side by side: both are read only once the synthesis is recorded, after this step has returned.
    await settledBoth(
      storage.put(key, audio, result.contentType),
      storeTimestamps(storage, timestampsKey(synthesis.account_id, synthesis.id), timing),
    );
    return { audioKey: key, bytes: result.bytes, durationSeconds: result.durationSeconds };
  };

  /**
   * Stores a rendered chunk and its words under keys derived from (synthesis, index), so a retry overwrites.
   * Side by side, one storage round trip on a streamed sentence's way to the listener: only the finish reads
   * the words, after the caller's store has returned.
   */
  const storeChunk = async (synthesisId: string, index: number, chunkPath: string, words?: TimedWord[]) => {
    const audio = await readFile(chunkPath);
    await settledBoth(
      storeChunkWords(storage, synthesisId, index, words),
      storage.put(chunkKey(synthesisId, index), audio, 'audio/wav'),
    );
  };

  /**
   * The synthesis's first `paths.length` stored chunks, fetched side by side into those files (files, not
   * memory: the longest texts make hundreds of megabytes of chunks), and their words.
   */
  const fetchChunks = async (synthesisId: string, paths: readonly string[]) => {
    await Promise.all(
      paths.map(async (chunk, index) =>
        pipeline(await storage.get(chunkKey(synthesisId, index)), createWriteStream(chunk)),
      ),
    );
    return loadChunkWords(storage, synthesisId, paths.length);
  };

  /**
   * The status endpoint's progress (a read of PostgreSQL costs the service far
   * less than asking Temporal on every poll), after each chunk (a sentence of
   * a longer text): progressThrough. The value only grows, a retry changes nothing.
   * One round trip: the update, then the notification (sent at commit, so after the row changed).
   */
  const reportProgress = (synthesisId: string, progress: number) => advanceProgress(db, synthesisId, progress);

  /**
   * Its render starts here, holding one of this worker's render slots: a queued synthesis is `processing` from
   * now. One statement per synthesis and worker (a kept job remembers it), none once it is processing.
   */
  const markRendering = async ({ synthesis }: Job) => {
    if (synthesis.status !== 'queued') return;
    await recordRendering(db, synthesis.id);
    synthesis.status = 'processing';
  };

  /** The oldest queued synthesis of the account learns that a slot is free (its workflow also polls). */
  const wakeNextQueued = async (accountId: string) => {
    const next = await Synthesis.query(db)
      .where({ account_id: accountId, status: 'queued' })
      // One that holds a slot already waits for a render slot, not for this.
      .whereNull('slot_taken_at')
      .orderBy('created_at')
      .select('id')
      .first();
    if (next)
      await temporal.workflow
        .getHandle(synthesisWorkflowId(next.id))
        .signal(slotFreedSignal)
        .catch(() => undefined);
  };

  return {
    /**
     * Takes one of the plan's concurrent-synthesis slots, atomically per
     * account (it becomes `processing` once its render starts). Returns how many chunks to render.
     */
    async acquireSynthesisSlot({ synthesisId }: { synthesisId: string }): Promise<SynthesisSlot> {
      return db
        .transaction((trx) => takeSynthesisSlot(trx, synthesisId))
        .finally(() => notifyWatchers(db, synthesisId));
    },

    /** Renders one chunk of the text and stores it under a key derived from (synthesis, index), so a retry overwrites. */
    async renderSynthesisChunk({
      synthesisId,
      index,
    }: {
      synthesisId: string;
      index: number;
    }): Promise<{ seconds: number }> {
      return classified(async () => {
        const job = await jobs.get(synthesisId);
        const chunks = job.plan.chunks;
        const chunk = chunks[index];
        if (chunk === undefined) throw ApplicationFailure.nonRetryable(`no chunk ${index}`, 'ChunkMissing');
        await markRendering(job);
        const result = await withHeartbeat((signal) =>
          inTempDir(async (dir) => {
            const outPath = path.join(dir, 'chunk.wav');
            const { durationSeconds, words } = await render(job, chunk, outPath, signal);
            unlessCanceled(signal);
            await storeChunk(synthesisId, index, outPath, words);
            return { seconds: durationSeconds };
          }),
        );
        // A streaming client fetches the chunk as soon as it hears of it (the same statement notifies).
        await reportProgress(synthesisId, progressThrough(chunks, index));
        return result;
      });
    },

    /** Joins the chunks, normalizes and encodes them, and stores the result. */
    async finishSynthesis({
      synthesisId,
      chunkCount,
    }: {
      synthesisId: string;
      chunkCount: number;
    }): Promise<FinishedAudio> {
      return classified(async () => {
        const job = await loadJob(synthesisId);
        return withHeartbeat((signal) =>
          inTempDir(async (dir) => {
            // Fetched side by side: this step runs alone after the renders, so its wall time is the synthesis's.
            const chunks = Array.from({ length: chunkCount }, (_, index) => path.join(dir, `chunk-${index}.wav`));
            const words = await fetchChunks(synthesisId, chunks);
            // The chunks stay until the synthesis is recorded: a retry of this step still finds them.
            return finishAndStore(job, chunks, dir, signal, words);
          }),
        );
      });
    },

    /**
     * A streamed synthesis in one step: its chunks (one per sentence) rendered
     * in text order, each stored and announced as it lands (the API's reader
     * fetches it), then joined, normalized, encoded and stored from the files
     * already here. One activity instead of one per sentence plus a finish:
     * no task round trip per sentence and no chunk fetched back. A sentence
     * is stored and announced while the next one renders (in order, one at a
     * time). A retry after a worker died resumes after the chunks its
     * heartbeats said were stored (fetched back, not rendered again), so a
     * listener's next sentence is the next one rendered.
     */
    async renderStreamedSynthesis({ synthesisId }: { synthesisId: string }): Promise<FinishedAudio> {
      return classified(async () => {
        const job = await loadJob(synthesisId);
        await markRendering(job);
        const { chunks } = job.plan;
        const resumed = Context.current().info.heartbeatDetails as { stored?: number } | undefined;
        let stored = Math.min(resumed?.stored ?? 0, chunks.length);
        return withHeartbeat(
          (signal) =>
            inTempDir(async (dir) => {
              const paths = chunks.map((_, index) => path.join(dir, `chunk-${index}.wav`));
              const words = await fetchChunks(synthesisId, paths.slice(0, stored));
              /** Stores one rendered sentence and tells the listener (the same statement notifies). */
              const storeSentence = async (index: number, sentenceWords: TimedWord[] | undefined) => {
                await storeChunk(synthesisId, index, paths[index], sentenceWords);
                await reportProgress(synthesisId, progressThrough(chunks, index));
                stored = index + 1;
                heartbeat({ stored });
              };
              /** The sentence being stored while the next renders; a failed store stops the renders (thrown below). */
              let storing: Promise<void> = Promise.resolve();
              let storeFailed = false;
              try {
                for (let index = stored; index < chunks.length && !storeFailed; index++) {
                  const rendered = await render(job, chunks[index], paths[index], signal);
                  unlessCanceled(signal);
                  words.push(rendered.words);
                  storing = storing.then(() => storeSentence(index, rendered.words));
                  storing.catch(() => {
                    storeFailed = true;
                  });
                }
                await storing;
              } finally {
                // Whatever ended the loop, no write is still in flight when the cleanup after a failure looks.
                await storing.catch(() => undefined);
              }
              // The chunks stay until the synthesis is recorded (and its reader has stopped).
              return finishAndStore(job, paths, dir, signal, words);
            }),
          () => ({ stored }),
        );
      });
    },

    /**
     * A text of one chunk (up to CHUNK_CHARS, most requests): render and
     * finish in one activity, with no chunk object stored and fetched back
     * and one task round trip fewer.
     */
    async renderShortSynthesis({ synthesisId }: { synthesisId: string }): Promise<FinishedAudio> {
      return classified(async () => {
        const job = await loadJob(synthesisId);
        const [chunk, ...rest] = job.plan.chunks;
        if (chunk === undefined || rest.length > 0)
          throw ApplicationFailure.nonRetryable('not a one-chunk text', 'ChunkMissing');
        await markRendering(job);
        return withHeartbeat((signal) =>
          inTempDir(async (dir) => {
            const chunkPath = path.join(dir, 'chunk.wav');
            const { words } = await render(job, chunk, chunkPath, signal);
            unlessCanceled(signal);
            return finishAndStore(job, [chunkPath], dir, signal, [words]);
          }),
        );
      });
    },

    /** `keepChunks`: a streamed synthesis whose reader may still need them (the workflow removes them later). */
    async recordSynthesisCompleted(
      input: { synthesisId: string; keepChunks?: boolean } & CompletedAudio,
    ): Promise<void> {
      const synthesis = await loadSynthesis(input.synthesisId);
      // The capture recorded it already (workflows/synthesis.ts, CAPTURE_COMPLETES); before that patch, this step does.
      if (synthesis.status !== 'completed') await recordCompletion(db, input.synthesisId, input, creditsFor(synthesis));
      await wakeNextQueued(synthesis.account_id);
      // Idempotent (stable event ids): a retry of this step announces nothing twice.
      await webhooks.synthesisEnded(input.synthesisId);
      // Last: the client sees the outcome at once, and a storage outage only delays the cleanup (this step retries).
      // A one-chunk text not streamed rendered in one step and stored no chunk: nothing to list.
      if (!input.keepChunks && storedChunks(synthesis, await storedSpeechPlan(db, input.synthesisId)))
        await storage.removePrefix(chunkPrefix(input.synthesisId));
      jobs.forget(input.synthesisId);
    },

    /** A completed streamed synthesis's chunks, once its reader no longer needs them. */
    async removeSynthesisChunks({ synthesisId }: { synthesisId: string }): Promise<void> {
      await storage.removePrefix(chunkPrefix(synthesisId));
    },

    /**
     * A deleted synthesis (it has ended): hidden from history (a stream's pieces with it), its audio and any chunk
     * gone from storage.
     */
    async removeSynthesis({ synthesisId }: { synthesisId: string }): Promise<void> {
      const synthesis = await loadSynthesis(synthesisId);
      await recordDeleted(db, synthesisId);
      await removeSynthesisObjects(storage, synthesis);
      await recordAudioRemoved(db, synthesisId);
    },

    /**
     * Ends a synthesis as failed or canceled, and removes every object it made. `keepObjects`: a cancel recorded
     * while its renders are still being stopped; the workflow calls this again, without it, once they have.
     * Recording is idempotent: an ended synthesis keeps how and when it ended.
     */
    async recordSynthesisEnded(input: {
      synthesisId: string;
      status: UnchargedEnd;
      error: SynthesisRow['error'];
      keepObjects?: boolean;
    }): Promise<void> {
      const synthesis = await loadSynthesis(input.synthesisId);
      await recordEnded(db, input.synthesisId, input.status, input.error);
      await wakeNextQueued(synthesis.account_id);
      await webhooks.synthesisEnded(input.synthesisId);
      jobs.forget(input.synthesisId);
      // Last: the client sees the outcome at once, and a storage outage only delays the cleanup (this step retries).
      if (!input.keepObjects) await removeSynthesisObjects(storage, synthesis);
    },
  };
}

/**
 * Two storage writes side by side, returning (or throwing the first failure)
 * only once both have settled: a cleanup after a failure must not race a
 * write still in flight, which would leave its object behind.
 */
async function settledBoth(a: Promise<unknown>, b: Promise<unknown>): Promise<void> {
  const failed = (await Promise.allSettled([a, b])).find(
    (result): result is PromiseRejectedResult => result.status === 'rejected',
  );
  if (failed) throw failed.reason;
}

/**
 * Whether the synthesis may have gone through stored chunks (the workflow renders a one-chunk text not streamed
 * in one step). With no plan stored (a synthesis older than stored plans), its prefix is listed.
 */
const storedChunks = (synthesis: SynthesisRow, plan: SpeechPlan | null) =>
  synthesis.streaming || plan === null || plan.chunks.length > 1;

/** The share of the progress bar the finish (join, loudness, encode, store) keeps, so that only completion is 1. */
const FINISH_SHARE = 0.05;

/**
 * The progress once chunk `index` has rendered, by characters: chunks start in index order, so chunk i done
 * means about every chunk up to i done (the status's ETA divides by it, so a long sentence weighs more).
 */
function progressThrough(chunks: readonly PlannedChunk[], index: number): number {
  let done = 0;
  let total = 0;
  chunks.forEach((chunk, at) => {
    total += chunk.text.length;
    if (at <= index) done += chunk.text.length;
  });
  return total === 0 ? 0 : ((1 - FINISH_SHARE) * done) / total;
}

/** Jobs kept while they render here: what a render reads of one with a premade voice never changes (text, voice, voicing). */
const JOBS_KEPT = 64;

/**
 * The chunks of one synthesis render one after another in the same worker:
 * its row and (premade) voice are read once, not once per chunk. Forgotten
 * when the synthesis is recorded, and the oldest go first past JOBS_KEPT.
 */
function createJobCache<J>(load: (synthesisId: string) => Promise<J>, keepable: (job: J) => boolean) {
  const kept = new Map<string, J>();
  return {
    async get(synthesisId: string): Promise<J> {
      const hit = kept.get(synthesisId);
      if (hit) return hit;
      const job = await load(synthesisId);
      if (keepable(job)) {
        if (kept.size >= JOBS_KEPT) kept.delete(kept.keys().next().value!);
        kept.set(synthesisId, job);
      }
      return job;
    },
    forget: (synthesisId: string) => void kept.delete(synthesisId),
  };
}
