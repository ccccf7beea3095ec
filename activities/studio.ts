import { ApplicationFailure } from '@temporalio/activity';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ActivityDeps } from '.';
import { classifyFailures, inTempDir, unlessCanceled, withHeartbeat } from './work';
import { createWebhookAnnouncer } from './webhooks';
import { finishAudio, renderChunk } from '../audio';
import { BlockAudio } from '../db/models/BlockAudio';
import { reserve, settle } from '../db/ledger';
import { Project } from '../db/models/Project';
import { ProjectSnapshot, type SnapshotChapter } from '../db/models/ProjectSnapshot';
import { ProjectChapter } from '../db/models/ProjectChapter';
import { PronunciationEntry } from '../db/models/PronunciationEntry';
import { asPremadeVoice, Voice } from '../db/models/Voice';
import { splitText } from '../engines/text';
import { assembleBook, assembleChapter, type BookMetadata } from '../studio/assembly';
import { BlockVoiceMissingError, blockSpec } from '../studio/blockSpec';
import {
  accountBlockHashes,
  blockAudioCurrent,
  blocksInOrder,
  blockSpecContext,
  projectDictionaryIds,
  projectSettings,
} from '../studio/content';
import {
  blockAudioKey,
  type BlockAudioRef,
  blockRenderReference,
  type BlockRenderInput,
  type BlockRenderReservation,
  blockWordsKey,
  type ChapterPlan,
  type ChapterResult,
  type ConversionReservation,
  snapshotPrefix,
} from '../studio/conversion';
import { notifyWatchers } from '../synthesis/lifecycle';
import { CHUNK_CHARS } from '../synthesis/speechPlan';
import { compileLexicon } from '../text/lexicon';

/** Where a chapter's MP3 is stored: beside its WAV, under the snapshot. */
const chapterMp3Key = (wavKey: string) => wavKey.replace(/\.wav$/, '.mp3');

/** Pause between two segments (voices) of a block and between its chunks, seconds at speed 1. */
const SEGMENT_PAUSE_SECONDS = 0.25;

export function createStudioActivities(deps: ActivityDeps) {
  const { db, storage, config } = deps;
  const engines = deps.studioEngines ?? deps.engines;
  const classified = <T>(work: () => Promise<T>) => classifyFailures(config.STORAGE_RETRY_SECONDS * 1000, work);
  const webhooks = createWebhookAnnouncer(deps);
  /** Wakes the API's event streams following the snapshot (the same channel as a synthesis's: ids are UUIDs). */
  const changed = (snapshotId: string) => notifyWatchers(db, snapshotId);

  const loadProject = async (projectId: string) => {
    const project = await Project.query(db).findById(projectId);
    if (!project) throw ApplicationFailure.nonRetryable(`project ${projectId} does not exist`, 'ProjectMissing');
    return project;
  };

  /** The lexicon a project's blocks are read with: the project's dictionaries, then the account's (as blockSpecContext hashes them). */
  const lexiconOf = async (project: Project) => {
    const entries = await PronunciationEntry.lexiconOf(db, await projectDictionaryIds(db, project));
    return entries.length > 0 ? compileLexicon(entries) : null;
  };

  const loadVoice = async (voiceId: string) => {
    const voice = await Voice.query(db).findById(voiceId);
    if (voice?.status === 'revoked')
      throw ApplicationFailure.nonRetryable(`voice ${voiceId} consent revoked`, 'VoiceUnavailable');
    const profile = voice?.category === 'cloned' ? (voice.profile as { baseVoiceId?: string } | null) : null;
    const base = profile?.baseVoiceId ? await Voice.query(db).findById(profile.baseVoiceId) : voice;
    if (!base?.engine) throw ApplicationFailure.nonRetryable(`voice ${voiceId} cannot be rendered`, 'VoiceUnavailable');
    return asPremadeVoice(base);
  };

  /** How one block of the project renders as it is now (its voices, text and hash). */
  const specOfBlock = async (project: Project, blockId: string) => {
    const [block] = await blocksInOrder(db, project.id).where('project_blocks.id', blockId);
    if (!block) throw ApplicationFailure.nonRetryable(`block ${blockId} does not exist`, 'BlockMissing');
    return blockSpec(projectSettings(project), block, await blockSpecContext(db, project, [block]));
  };

  /** Records a rendered block's audio under its hash: the block (and any of the account's with that hash) is current. */
  const recordAudio = (
    trx: Parameters<typeof BlockAudio.record>[0],
    audio: { accountId: string; hash: string; audioKey: string; durationMs: number; characters: number },
  ) =>
    BlockAudio.record(trx, {
      account_id: audio.accountId,
      content_hash: audio.hash,
      audio_key: audio.audioKey,
      duration_ms: audio.durationMs,
      characters: audio.characters,
    });

  /** Downloads an object into a file (files, not memory: a chapter's audio can be large). */
  const download = async (key: string, file: string) => pipeline(await storage.get(key), createWriteStream(file));

  return {
    /**
     * The conversion's first step, in one transaction: refuses while another
     * conversion of the project runs (`conflict`), estimates the characters
     * of the blocks whose audio is not current, reserves them
     * (`conversion:<snapshot>`, or `insufficient`) and records the snapshot
     * `queued`. Retried, it finds its snapshot and reservation and answers the same.
     */
    async reserveConversion(input: {
      snapshotId: string;
      accountId: string;
      projectId: string;
      chapterIds: string[] | null;
    }): Promise<ConversionReservation> {
      return db.transaction(async (trx) => {
        const project = await Project.query(trx).findById(input.projectId).forUpdate();
        if (!project || project.account_id !== input.accountId)
          throw ApplicationFailure.nonRetryable(`project ${input.projectId} does not exist`, 'ProjectMissing');
        const existing = await ProjectSnapshot.query(trx).findById(input.snapshotId);
        const chapters = await ProjectChapter.query(trx).modify('ofProject', project.id).select('id');
        const wanted = input.chapterIds
          ? input.chapterIds.filter((id) => chapters.some((chapter) => chapter.id === id))
          : chapters.map((chapter) => chapter.id);
        const blocks = await blocksInOrder(trx, project.id, wanted);
        const current = await blockAudioCurrent(trx, project, blocks);
        const estimate = blocks.reduce((sum, block) => sum + (current.get(block.id) ? 0 : block.characters), 0);
        if (existing) return { outcome: 'reserved', chapterIds: existing.chapter_ids ?? wanted, estimate };
        if (await ProjectSnapshot.running(trx, project.id)) return { outcome: 'conflict' };
        if (!(await ProjectSnapshot.reserve(trx, input.accountId, input.snapshotId, estimate)))
          return { outcome: 'insufficient', estimate };
        await ProjectSnapshot.query(trx).insert({
          id: input.snapshotId,
          project_id: project.id,
          account_id: input.accountId,
          status: 'queued',
          chapter_ids: wanted,
        });
        return { outcome: 'reserved', chapterIds: wanted, estimate };
      });
    },

    /** A chapter's blocks in order, each with its blockSpec hash and, when current, its stored audio. */
    async planConversionChapter(input: {
      snapshotId: string;
      accountId: string;
      projectId: string;
      chapterId: string;
    }): Promise<ChapterPlan> {
      const project = await loadProject(input.projectId);
      const chapter = await ProjectChapter.query(db).findById(input.chapterId);
      if (!chapter || chapter.project_id !== project.id)
        throw ApplicationFailure.nonRetryable(`chapter ${input.chapterId} does not exist`, 'ChapterMissing');
      const blocks = await blocksInOrder(db, project.id, [chapter.id]);
      const context = await blockSpecContext(db, project, blocks);
      const settings = projectSettings(project);
      const specs = blocks.map((block) => {
        try {
          return { block, spec: blockSpec(settings, block, context) };
        } catch (error) {
          if (error instanceof BlockVoiceMissingError)
            throw ApplicationFailure.nonRetryable(error.message, 'BlockVoiceMissing');
          throw error;
        }
      });
      const keys = await BlockAudio.keysOf(
        db,
        project.account_id,
        specs.map(({ spec }) => spec.hash),
      );
      return {
        chapterId: chapter.id,
        title: chapter.title,
        index: chapter.index,
        blocks: specs.map(({ block, spec }) => ({
          blockId: block.id,
          kind: block.kind,
          hash: spec.hash,
          characters: spec.characters,
          audioKey: keys.get(spec.hash) ?? null,
        })),
      };
    },

    /**
     * Renders one block (CPU queue): each segment in its voice, in chunks,
     * joined with short pauses into a WAV (the chunks' 24 kHz mono), stored
     * under `blocks/<account>/<hash>.wav` with its words beside it. The key is
     * the hash: a retry, or another conversion, overwrites the same audio.
     */
    async renderBlock(input: {
      /** The conversion (or on-demand render) it is for: in the activity's input, for the Temporal UI. */
      snapshotId: string;
      accountId: string;
      projectId: string;
      blockId: string;
      /** The hash it was planned under (the render's own, from the block as it is now, is what it returns). */
      hash: string;
    }) {
      const project = await loadProject(input.projectId);
      const spec = await specOfBlock(project, input.blockId);
      const lexicon = await lexiconOf(project);
      const audioKey = blockAudioKey(input.accountId, spec.hash);
      return classified(() =>
        withHeartbeat((signal) =>
          inTempDir(async (dir) => {
            const chunks: string[] = [];
            // The block's words in its time: each chunk's words after the chunks and pauses before it.
            const words: { word: string; startMs: number; endMs: number }[] = [];
            let offsetSeconds = 0;
            for (const segment of spec.segments) {
              const voice = await loadVoice(segment.voiceId);
              for (const text of splitText(segment.text, CHUNK_CHARS)) {
                const outPath = path.join(dir, `chunk-${chunks.length}.wav`);
                const result = await renderChunk({
                  voice,
                  text,
                  speed: spec.speed,
                  emotion: 'neutral',
                  textNormalization: spec.textNormalization,
                  lexicon,
                  outPath,
                  engines,
                  signal,
                });
                if (chunks.length > 0) offsetSeconds += SEGMENT_PAUSE_SECONDS / spec.speed;
                chunks.push(outPath);
                for (const word of result.words ?? [])
                  words.push({
                    word: word.word,
                    startMs: Math.round((offsetSeconds + word.start) * 1000),
                    endMs: Math.round((offsetSeconds + word.end) * 1000),
                  });
                offsetSeconds += result.durationSeconds;
              }
            }
            const outPath = path.join(dir, 'block.wav');
            const finished = await finishAudio({
              chunks,
              speed: spec.speed,
              pitch: 0,
              emotion: 'neutral',
              format: 'wav',
              outPath,
              pauseSeconds: SEGMENT_PAUSE_SECONDS,
              signal,
            });
            unlessCanceled(signal);
            await storage.put(audioKey, await readFile(outPath), 'audio/wav');
            await storage.put(
              blockWordsKey(input.accountId, spec.hash),
              Buffer.from(JSON.stringify(words)),
              'application/json',
            );
            return {
              hash: spec.hash,
              audioKey,
              durationMs: Math.round(finished.durationSeconds * 1000),
              characters: spec.characters,
            };
          }),
        ),
      );
    },

    /** Records a rendered block's audio (block_audio) and charges it from the conversion's reservation, once. */
    async recordBlockAudio(input: {
      snapshotId: string;
      accountId: string;
      blockId: string;
      hash: string;
      audioKey: string;
      durationMs: number;
      characters: number;
    }): Promise<{ charged: number }> {
      return db
        .transaction(async (trx) => {
          await recordAudio(trx, input);
          const charged = await ProjectSnapshot.chargeBlock(trx, input);
          return { charged };
        })
        .finally(() => changed(input.snapshotId));
    },

    /**
     * An on-demand block render's first step: `current` when the block's
     * audio exists already, else reserves its characters
     * (`block-render:<render id>`) or answers `insufficient`.
     */
    async reserveBlockRender(input: BlockRenderInput): Promise<BlockRenderReservation> {
      const project = await loadProject(input.projectId);
      if (project.account_id !== input.accountId)
        throw ApplicationFailure.nonRetryable(`block ${input.blockId} does not exist`, 'BlockMissing');
      const spec = await specOfBlock(project, input.blockId);
      if ((await BlockAudio.keysOf(db, input.accountId, [spec.hash])).size > 0) return { outcome: 'current' };
      const reserved = await db.transaction((trx) =>
        reserve(trx, input.accountId, blockRenderReference(input.renderId), spec.characters),
      );
      return reserved
        ? { outcome: 'reserved', characters: spec.characters }
        : { outcome: 'insufficient', characters: spec.characters };
    },

    /** Records an on-demand render's audio (the block is then current) and charges its reservation, together. */
    async recordBlockRender(
      input: BlockRenderInput & { hash: string; audioKey: string; durationMs: number; characters: number },
    ) {
      await db.transaction(async (trx) => {
        await recordAudio(trx, input);
        await settle(trx, input.accountId, blockRenderReference(input.renderId), 'capture');
      });
    },

    /** Returns an on-demand render's reservation (it failed or was canceled). */
    async releaseBlockRender(input: BlockRenderInput) {
      await db.transaction((trx) => settle(trx, input.accountId, blockRenderReference(input.renderId), 'release'));
    },

    /**
     * Assembles a chapter from its blocks' audio (CPU queue) and stores its
     * WAV, its MP3 (the book's zip takes it: `<chapter>.mp3` beside the WAV)
     * and captions under the snapshot.
     */
    async assembleConversionChapter(input: {
      snapshotId: string;
      accountId: string;
      projectId: string;
      chapterId: string;
      blocks: BlockAudioRef[];
    }) {
      const project = await loadProject(input.projectId);
      const prefix = `${snapshotPrefix(input.accountId, input.snapshotId)}chapters/${input.chapterId}`;
      return classified(() =>
        withHeartbeat((signal) =>
          inTempDir(async (dir) => {
            const blocks = await Promise.all(
              input.blocks.map(async (block, index) => {
                const file = path.join(dir, `block-${index}.wav`);
                await download(block.audioKey, file);
                const words = await storage
                  .get(blockWordsKey(input.accountId, block.hash))
                  .then(async (stream) => {
                    const parts: Buffer[] = [];
                    for await (const part of stream) parts.push(part as Buffer);
                    return JSON.parse(Buffer.concat(parts).toString('utf8')) as {
                      word: string;
                      startMs: number;
                      endMs: number;
                    }[];
                  })
                  .catch(() => undefined);
                return { path: file, kind: block.kind, ...(words && { words }) };
              }),
            );
            const out = path.join(dir, 'out');
            await mkdir(out);
            const chapter = await assembleChapter({ blocks, preset: project.output_preset, outDir: out, signal });
            unlessCanceled(signal);
            const keys = {
              wavKey: `${prefix}.wav`,
              mp3Key: chapterMp3Key(`${prefix}.wav`),
              srtKey: `${prefix}.srt`,
              vttKey: `${prefix}.vtt`,
            };
            await storage.put(keys.wavKey, await readFile(chapter.wavPath), 'audio/wav');
            await storage.put(keys.mp3Key, await readFile(chapter.mp3Path), 'audio/mpeg');
            await storage.put(keys.srtKey, Buffer.from(chapter.srt), 'application/x-subrip');
            await storage.put(keys.vttKey, Buffer.from(chapter.vtt), 'text/vtt');
            return { ...keys, durationMs: chapter.durationMs, qc: chapter.qc as unknown as Record<string, unknown> };
          }),
        ),
      );
    },

    /** Assembles the book (M4B with chapters, MP3, a zip of chapters) from the chapters' WAVs and stores it. */
    async assembleConversionBook(input: {
      snapshotId: string;
      accountId: string;
      projectId: string;
      chapters: ChapterResult[];
    }) {
      const project = await loadProject(input.projectId);
      const prefix = snapshotPrefix(input.accountId, input.snapshotId);
      return classified(() =>
        withHeartbeat((signal) =>
          inTempDir(async (dir) => {
            const chapters = await Promise.all(
              input.chapters.map(async (chapter, index) => {
                const wavPath = path.join(dir, `chapter-${index}.wav`);
                await download(chapter.wavKey, wavPath);
                // A chapter assembled before its MP3 was kept has none: the book encodes one.
                const mp3Key = chapterMp3Key(chapter.wavKey);
                let mp3Path: string | null = null;
                if ((await storage.size(mp3Key)) !== null) {
                  mp3Path = path.join(dir, `chapter-${index}.mp3`);
                  await download(mp3Key, mp3Path);
                }
                return { title: chapter.title, wavPath, mp3Path, durationMs: chapter.durationMs };
              }),
            );
            let cover: { path: string; contentType: string } | null = null;
            if (project.cover_key && project.cover_content_type) {
              cover = { path: path.join(dir, 'cover'), contentType: project.cover_content_type };
              await download(project.cover_key, cover.path);
            }
            const out = path.join(dir, 'out');
            await mkdir(out);
            const book = await assembleBook({
              chapters,
              metadata: {
                title: null,
                author: null,
                narrator: null,
                language: project.language,
                description: null,
                publisher: null,
                year: null,
                isbn: null,
                ...(project.metadata as Partial<BookMetadata>),
              },
              cover,
              preset: project.output_preset,
              outDir: out,
              signal,
            });
            unlessCanceled(signal);
            const outputs = {
              m4b: `${prefix}book.m4b`,
              mp3: `${prefix}book.mp3`,
              zip: `${prefix}book.zip`,
              index: `${prefix}index.json`,
            };
            await storage.put(outputs.m4b, await readFile(book.m4b), 'audio/mp4');
            await storage.put(outputs.mp3, await readFile(book.mp3), 'audio/mpeg');
            await storage.put(outputs.zip, await readFile(book.zip), 'application/zip');
            await storage.put(outputs.index, Buffer.from(JSON.stringify(book.index)), 'application/json');
            return {
              outputs,
              index: book.index,
              durationMs: input.chapters.reduce((sum, chapter) => sum + chapter.durationMs, 0),
            };
          }),
        ),
      );
    },

    /** The snapshot's status and overall progress. */
    async recordConversionProgress(input: { snapshotId: string; status?: 'converting'; progress: number }) {
      await ProjectSnapshot.recordProgress(db, input.snapshotId, input.progress, input.status);
      await changed(input.snapshotId);
    },

    /** A chapter's entry in the snapshot's chapter index (replaced on a retry), its captions and its reuse count. */
    async recordChapterConverted(input: {
      snapshotId: string;
      index: number;
      result: ChapterResult;
      assembled: {
        wavKey: string;
        /** Absent from a chapter assembled before its MP3 was kept. */
        mp3Key?: string;
        srtKey: string;
        vttKey: string;
        durationMs: number;
        qc: Record<string, unknown> | null;
      };
    }) {
      const { result, assembled } = input;
      const entry: SnapshotChapter = {
        chapter_id: result.chapterId,
        title: result.title,
        index: input.index,
        duration_ms: assembled.durationMs,
        qc: assembled.qc,
        blocks_rendered: result.blocksRendered,
        blocks_reused: result.blocksReused,
      };
      await ProjectSnapshot.recordChapter(db, input.snapshotId, entry, {
        srt: assembled.srtKey,
        vtt: assembled.vttKey,
        wav: assembled.wavKey,
        ...(assembled.mp3Key && { mp3: assembled.mp3Key }),
      });
      await changed(input.snapshotId);
      await webhooks.chapterConverted(input.snapshotId, result.chapterId);
    },

    /** Completes a snapshot (its files, chapter index, the block keys it holds) and releases what its blocks did not take. */
    async completeConversion(input: {
      snapshotId: string;
      accountId: string;
      chapters: ChapterResult[];
      outputs: Record<string, string>;
      index: { title: string; index: number; start_ms: number; duration_ms: number }[];
      durationMs: number;
    }) {
      await ProjectSnapshot.complete(db, {
        snapshotId: input.snapshotId,
        accountId: input.accountId,
        outputs: input.outputs,
        startsMs: input.index.map((entry) => entry.start_ms),
        durationMs: input.durationMs,
        blockKeys: [...new Set(input.chapters.flatMap((chapter) => chapter.blockKeys))],
      });
      await changed(input.snapshotId);
      await webhooks.conversionEnded(input.snapshotId);
    },

    /**
     * After a conversion completed: removes the project's snapshots past
     * STUDIO_SNAPSHOTS_KEPT (files first, then the row: a retry finds what is
     * left), then the account's block audio nothing holds any more
     * (BlockAudio.removeUnheld; rows first, then their files).
     */
    async pruneStudio(input: { snapshotId: string; accountId: string; projectId: string }) {
      return classified(() =>
        withHeartbeat(async () => {
          const snapshots = await ProjectSnapshot.beyondKept(db, input.projectId, config.STUDIO_SNAPSHOTS_KEPT);
          for (const snapshot of snapshots) {
            await storage.removePrefix(snapshotPrefix(snapshot.account_id, snapshot.id));
            await ProjectSnapshot.query(db).deleteById(snapshot.id);
          }
          const blocks = await BlockAudio.removeUnheld(db, input.accountId, config.STUDIO_BLOCK_AUDIO_GRACE_DAYS, () =>
            accountBlockHashes(db, input.accountId),
          );
          for (const block of blocks) {
            await storage.remove(block.audio_key);
            await storage.remove(blockWordsKey(input.accountId, block.content_hash));
          }
          return { snapshots: snapshots.length, blocks: blocks.length };
        }),
      );
    },

    /** Ends a snapshot failed or canceled, releasing what its blocks did not take. */
    async endConversion(input: {
      snapshotId: string;
      accountId: string;
      status: 'failed' | 'canceled';
      error: { code: string; message: string } | null;
    }) {
      await ProjectSnapshot.end(db, input);
      await changed(input.snapshotId);
      await webhooks.conversionEnded(input.snapshotId);
    },
  };
}
