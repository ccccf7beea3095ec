import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { SynthesisStatus } from './status';

/**
 * What the API, the workflows and the activities say to each other: ids,
 * inputs, results, messages. Activities import this module, never a workflow
 * file; the API imports workflow functions only to start them by reference.
 */

export const synthesisWorkflowId = (synthesisId: string) => `synthesis:${synthesisId}`;
/** The credit deduction of a finished synthesis: its own workflow, visible to operators. */
export const captureWorkflowId = (synthesisId: string) => `credits:capture:${synthesisId}`;
/**
 * The workflow type of creditCapture (workflows/creditCapture.ts). It keeps
 * the old name: recorded histories and workflows running across an upgrade
 * name their capture child so, and a new name would not replay.
 */
export const CREDIT_CAPTURE_WORKFLOW_TYPE = 'creditDeduction';
export const synthesisDeletionWorkflowId = (synthesisId: string) => `synthesis-deletion:${synthesisId}`;
export const voiceDeletionWorkflowId = (voiceId: string) => `voice-deletion:${voiceId}`;
export const voiceCloningWorkflowId = (voiceId: string) => `voice-cloning:${voiceId}`;
/** A premade voice's preview, per version of what shapes its sound (activities/previews.ts). */
export const voicePreviewWorkflowId = (voiceId: string, version: string) => `voice-preview:${voiceId}:${version}`;

/** A checked request, as the API accepted it: the `reserve` update records it with its reservation. */
export interface SynthesisRequest {
  synthesisId: string;
  accountId: string;
  projectId: string | null;
  voiceId: string;
  /** Trimmed and NFC-normalized. */
  text: string;
  /** Code points of `text`: the cost in credits. */
  characters: number;
  /**
   * Code points the text says once its dictionaries' aliases replace what they
   * match, when that is more than `characters`: then it is the cost. Absent
   * otherwise (and in requests made before aliases were charged).
   */
  spokenCharacters?: number;
  speed: number;
  pitch: number;
  emotion: string;
  outputFormat: string;
  /**
   * A client is streaming it (the OpenAI-compatible endpoint): one chunk per
   * sentence, each stored as it is rendered and announced on PostgreSQL's
   * `synthesis_progress` channel. Absent in requests made before streaming existed.
   */
  streaming?: boolean;
  /** Written forms read as words first (`auto`, `on`, `off`); absent in requests made before it existed (then `auto`). */
  textNormalization?: 'auto' | 'on' | 'off';
  /**
   * The pronunciation dictionaries to apply, in order, resolved when the
   * request was submitted (the defaults made explicit); absent in requests
   * made before dictionaries existed (then none).
   */
  pronunciationDictionaryIds?: string[];
  /** `ssml`: the text is an SSML document (text/ssml); absent (requests before SSML was read, and plain text): `text`. */
  textType?: 'text' | 'ssml';
  /** A piece of a stream-input connection (streamSession below): hidden from history, which shows the connection. */
  partOf?: { sessionId: string; index: number };
}

export interface SynthesisInput {
  request: SynthesisRequest;
  /** Where the CPU-heavy activities run: concurrency = cores. */
  cpuTaskQueue: string;
}

/**
 * Where the renders of a `high`-tier voice run (Kokoro: ~10× Piper's CPU per audio second): a queue of their own
 * beside the CPU queue, with its own worker slots (half the render slots), so renders waiting for one never hold the
 * CPU queue's slots that Piper and the classic engines render in.
 */
export const heavyTaskQueue = (cpuTaskQueue: string) => `${cpuTaskQueue}-heavy`;

/**
 * Where a streamed synthesis's one activity runs (it renders sentence after sentence, a listener waiting on each):
 * a queue with more slots than the cores, so that every stream's next sentence waits in the engine pool's line
 * beside the others' (first come, first served, a sentence at a time) rather than whole streams waiting for a slot.
 */
export const streamTaskQueue = (cpuTaskQueue: string) => `${cpuTaskQueue}-streams`;

/** Streamed syntheses one worker process runs at once, per render slot (their renders still take turns at the engines). */
export const STREAMS_PER_RENDER_SLOT = 4;

/** How a synthesis workflow ended; `insufficient` means it never held credits and recorded nothing. */
export type SynthesisResult = 'completed' | 'failed' | 'canceled' | 'insufficient';

export type ReserveOutcome = 'reserved' | 'insufficient';
/**
 * The API submits with Update-with-Start and answers 202 or 402 from this
 * update's result. The workflow reserves on its own whether or not the update
 * arrives, so a reservation never exists without the workflow that settles it.
 */
export const reserveUpdate = defineUpdate<{ outcome: ReserveOutcome }>('reserve');

/** Sent to a queued synthesis when another synthesis of its account ends and frees a slot. */
export const slotFreedSignal = defineSignal('slotFreed');

/**
 * From the API's stream of a synthesis (the OpenAI route): `reading: true` every READER_RENEW_SECONDS while it
 * still reads stored chunks, `reading: false` once it has stopped. A streamed synthesis keeps its chunks after
 * completing until its reader has stopped or has been silent for READER_SILENCE_SECONDS: a client that reads
 * slower than the worker finishes (a player reading at playback speed) must not find the rest removed.
 */
export const streamReaderSignal = defineSignal<[{ reading: boolean }]>('streamReader');
export const READER_RENEW_SECONDS = 20;
export const READER_SILENCE_SECONDS = 60;

/**
 * `stream-session:<uuid>`: a stream-input connection, one synthesis in history. Its pieces render as syntheses of
 * their own (`partOf`); once the connection has ended, the workflow records its entry from them.
 */
export const streamSessionWorkflowId = (sessionId: string) => `stream-session:${sessionId}`;
export interface StreamSessionInput {
  sessionId: string;
  accountId: string;
  /** How long the API may be silent before the session is recorded without its close (default READER_SILENCE_SECONDS; tests shorten it). */
  silenceSeconds?: number;
}
/**
 * From the API holding the connection: `open: true` every READER_RENEW_SECONDS while it is open, `open: false`
 * once it has closed and each piece it submitted has ended or been canceled. Silent for READER_SILENCE_SECONDS
 * (the API died with the connection), the session is recorded from what its pieces did.
 */
export const connectionSignal = defineSignal<[{ open: boolean }]>('connection');

export interface SynthesisProgress {
  status: SynthesisStatus;
  progress: number;
}
/** For the Temporal UI: the status endpoint reads PostgreSQL, which the activities keep current. */
export const progressQuery = defineQuery<SynthesisProgress>('progress');

/**
 * Failure types synthesis activities throw (ApplicationFailure.type), and the
 * error code each becomes on the synthesis, so a client can tell a storage
 * outage from text the engine could not render.
 */
export const FAILURE_CODES = {
  StorageUnavailable: {
    code: 'storage_unavailable',
    message: 'Object storage was unavailable for too long; nothing was charged.',
  },
  EngineFailed: {
    code: 'engine_failed',
    message: 'The speech engine could not render this text; nothing was charged.',
  },
  DictionaryChanged: {
    code: 'dictionary_changed',
    message:
      'A pronunciation dictionary changed after this synthesis was submitted and now makes its text say more than was charged; nothing was charged. Submit it again.',
  },
} as const;
export const UNKNOWN_FAILURE = {
  code: 'synthesis_failed',
  message: 'The synthesis failed; nothing was charged.',
} as const;
export type FailureType = keyof typeof FAILURE_CODES;
// ------------------------------------------------------------------ signup

export const signupWorkflowId = (accountId: string) => `signup:${accountId}`;

/** The failure type of a verification the token cannot make: the API answers 400 on `token`. */
export const INVALID_TOKEN = 'InvalidVerificationToken';

export type SignupState = 'awaiting_verification' | 'verified' | 'expired';

/** Mails a new token; every older one dies. */
export const resendSignal = defineSignal('resend');
/** The API awaits this update: its result means verified and credited. The argument is a token row id, never the token. */
export const verifyUpdate = defineUpdate<{ verified: true }, [{ tokenId: string }]>('verify');

export interface SignupVerificationInput {
  accountId: string;
  /** VERIFICATION_TTL: how long each mailed token stays valid. */
  ttlSeconds: number;
}

// ------------------------------------------------------------------ webhooks

export const WEBHOOK_EVENTS = [
  'synthesis.completed',
  'synthesis.failed',
  'synthesis.canceled',
  'voice.ready',
  'voice.failed',
  'credits.low',
  'project.conversion.completed',
  'project.conversion.failed',
  'project.chapter.converted',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number] | 'ping';

/** One delivery of one event to one endpoint; the event id is stable, so the id dedupes a repeated announcement. */
export const webhookDeliveryWorkflowId = (eventId: string, endpointId: string) =>
  `webhook-delivery:${eventId}:${endpointId}`;

/** The delivery row's id only: the body lives in PostgreSQL, and the signing secret never leaves it except in the activity. */
export interface WebhookDeliveryInput {
  deliveryId: string;
  /** WEBHOOK_RETRY_INITIAL_SECONDS: the first backoff, doubled up to an hour, for 24 h. */
  retryInitialSeconds: number;
  /** WEBHOOK_TIMEOUT_SECONDS: how long each attempt's request waits; absent in deliveries started before it was set (10 s). */
  requestTimeoutSeconds?: number;
  /** The webhook task queue the attempts run on; absent in deliveries started before it existed (they stay on the workflow's queue). */
  webhookTaskQueue?: string;
}

/** The request timeout of deliveries started before it was configurable. */
export const DEFAULT_WEBHOOK_TIMEOUT_SECONDS = 10;
/** One attempt's start-to-close bound: its request's timeout and 10 s for the rest (resolve, connect, sign, record). */
export const webhookAttemptSeconds = (requestTimeoutSeconds: number) => requestTimeoutSeconds + 10;

export type WebhookAttemptOutcome = 'delivered' | 'gone' | 'refused' | 'skipped';
export type WebhookDeliveryResult = WebhookAttemptOutcome | 'failed';

// ------------------------------------------------------------------ privacy

/** One per account, ever: a repeated request reaches the running (or finished) deletion. */
export const accountDeletionWorkflowId = (accountId: string) => `account-deletion:${accountId}`;
/** Removes a revoked voice's sample objects; the `voiceDeletion` workflow type, under its own id. */
export const consentRevocationWorkflowId = (voiceId: string) => `voice-consent-revocation:${voiceId}`;

export interface AccountDeletionInput {
  accountId: string;
}

/** What a deletion erased, for the Temporal UI (counts only: nothing personal leaves the database). */
export interface AccountDeletionResult {
  canceledJobs: number;
  removedObjects: number;
  anonymizedLedgerRows: number;
  keptConsentRecords: number;
  /** Closed workflow executions of the account deleted from Temporal (absent in deletions that ran before that step). */
  deletedHistories?: number;
}

export interface HistoryRetentionInput {
  /** The moment retention is measured from (ISO 8601); default the workflow's start. */
  asOf?: string;
}
