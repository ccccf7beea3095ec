import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

/**
 * What the API, the conversion workflows (workflows/projectConversion.ts) and
 * the Studio activities (activities/studio.ts) say to each other. Pure: the
 * workflow bundle imports it.
 */

/**
 * How much lower than the service's other work a book's renders and its
 * assembly's ffmpeg run (nice): a book is batch work, and another account's
 * sentence should not wait behind it for a core.
 */
export const STUDIO_NICENESS = 10;

/**
 * How long a book's last idle Piper or Kokoro process stays warm (the request
 * engines keep theirs 5 minutes): a book's blocks follow each other within
 * seconds, and once it is done its processes (~330 MiB each) go.
 */
export const STUDIO_ENGINE_IDLE_MS = 30_000;

/**
 * Where a conversion's block renders run: a queue of their own beside the CPU queue, with as many slots as it
 * (worker/create.ts), so a book renders on every core without holding a slot another account's synthesis waits for;
 * its engine processes run at STUDIO_NICENESS, so such a synthesis takes the cores first.
 */
export const studioTaskQueue = (cpuTaskQueue: string) => `${cpuTaskQueue}-studio`;

export const conversionWorkflowId = (snapshotId: string) => `project-conversion:${snapshotId}`;
export const chapterConversionWorkflowId = (snapshotId: string, chapterId: string) =>
  `chapter-conversion:${snapshotId}:${chapterId}`;

// Credits: db/models/ProjectSnapshot.ts (reserve `conversion:<snapshot>`, a capture per block `block:<snapshot>:<block>`).

/** Where a block's audio and word timings are kept: by account and content hash, so any conversion reuses them. */
export const accountBlocksPrefix = (accountId: string) => `blocks/${accountId}/`;
export const blockAudioKey = (accountId: string, hash: string) => `${accountBlocksPrefix(accountId)}${hash}.wav`;
export const blockWordsKey = (accountId: string, hash: string) => `${accountBlocksPrefix(accountId)}${hash}.words.json`;
/** A snapshot's files: its chapters' and the book's. */
export const accountSnapshotsPrefix = (accountId: string) => `snapshots/${accountId}/`;
export const snapshotPrefix = (accountId: string, snapshotId: string) =>
  `${accountSnapshotsPrefix(accountId)}${snapshotId}/`;

export type SnapshotStatus = 'queued' | 'converting' | 'completed' | 'failed' | 'canceled';

export interface ConversionInput {
  snapshotId: string;
  accountId: string;
  projectId: string;
  /** The chapters to convert, in the order asked; null: all, in reading order. */
  chapterIds: string[] | null;
  /** Where block renders and assembly run (the synthesis CPU queue: cpuTaskQueue(config)). */
  cpuTaskQueue: string;
  /** Block renders of this conversion at a time, all chapters together (at least 1). */
  maxParallelBlocks: number;
}

export interface ChapterConversionInput {
  snapshotId: string;
  accountId: string;
  projectId: string;
  chapterId: string;
  cpuTaskQueue: string;
  /** This chapter's share of the conversion's parallel block renders. */
  parallelBlocks: number;
  /**
   * Tell the parent (chapterRenderedSignal) once the blocks are rendered, so the next chapter's renders start
   * while this one is assembled; absent in chapters started before the parent waited for it.
   */
  announceRendered?: boolean;
}

/** What reserveConversion decided: reserved (with the chapters to convert, in order), or why not. */
export type ConversionReservation =
  | { outcome: 'reserved'; chapterIds: string[]; estimate: number }
  | { outcome: 'insufficient'; estimate: number }
  | { outcome: 'conflict' };

/** A block of a chapter as planned: its content hash, what it costs, and its audio when it is current. */
export interface PlannedBlock {
  blockId: string;
  kind: 'heading' | 'paragraph';
  hash: string;
  characters: number;
  /** The stored audio (block_audio) when current: reused, not charged. */
  audioKey: string | null;
}

export interface ChapterPlan {
  chapterId: string;
  title: string;
  index: number;
  blocks: PlannedBlock[];
}

/** A block's audio, rendered or reused, as the chapter's assembly reads it. */
export interface BlockAudioRef {
  blockId: string;
  kind: 'heading' | 'paragraph';
  hash: string;
  audioKey: string;
}

export interface ChapterResult {
  chapterId: string;
  title: string;
  wavKey: string;
  durationMs: number;
  blocksRendered: number;
  blocksReused: number;
  /** The block audio keys the chapter used (a snapshot holds them). */
  blockKeys: string[];
}

export interface ConversionProgress {
  status: SnapshotStatus;
  progress: number;
  chaptersDone: number;
  chapters: number;
}

export const conversionReserveUpdate = defineUpdate<{ reservation: ConversionReservation }>('reserveConversion');
export const conversionProgressQuery = defineQuery<ConversionProgress>('conversionProgress');
/** A chapter's blocks are rendered (its assembly goes on): the conversion may start the next chapter's renders. */
export const chapterRenderedSignal = defineSignal<[{ chapterId: string }]>('chapterRendered');

// A block's audio on demand (GET .../blocks/<bid>/audio/ when not current): workflows/projectConversion.ts's blockAudioRender.

/** One render of a hash at a time per account: a second request while it runs joins it. */
export const blockRenderWorkflowId = (accountId: string, hash: string) => `block-render:${accountId}:${hash}`;
/** The ledger reference of an on-demand render's reservation (db/ledger.ts's reserve, then settle). */
export const blockRenderReference = (renderId: string) => `block-render:${renderId}`;

export interface BlockRenderInput {
  /** Names this render's reservation (`block-render:<renderId>`): a later render of the same hash is charged again. */
  renderId: string;
  accountId: string;
  projectId: string;
  blockId: string;
  /** The block's hash when asked (the workflow id's). */
  hash: string;
  cpuTaskQueue: string;
}

/** What reserveBlockRender decided: the audio is current already, the block's characters are reserved, or they cannot be. */
export type BlockRenderReservation =
  | { outcome: 'current' }
  | { outcome: 'reserved'; characters: number }
  | { outcome: 'insufficient'; characters: number };

export const blockRenderReserveUpdate = defineUpdate<BlockRenderReservation>('reserveBlockRender');
