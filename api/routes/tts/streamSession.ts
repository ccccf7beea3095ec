import { randomUUID } from 'node:crypto';
import type { Account } from '../../../db/models/Account';
import {
  connectionSignal,
  READER_RENEW_SECONDS,
  type SynthesisRequest,
  streamSessionWorkflowId,
} from '../../../synthesis/contracts';
import { streamSession } from '../../../workflows/streamSession';
import type { ApiDeps } from '../../deps';

/**
 * The API's half of a stream-input connection as one synthesis in history
 * (workflows/streamSession.ts): the session's workflow, started when the
 * connection opens, each piece's place in it, and the connection's end.
 */
export interface StreamSession {
  /** Settles once the workflow has started: no piece is submitted before (it would have no entry to show in). */
  readonly started: Promise<void>;
  /** The next piece's place (pieces are submitted in order). */
  nextPart(): NonNullable<SynthesisRequest['partOf']>;
  /** The connection has closed and each piece it submitted has ended or been canceled: the entry may be recorded. */
  close(): void;
}

export function openStreamSession(deps: ApiDeps, account: Account): StreamSession {
  const { temporal, config, background, logger } = deps;
  const sessionId = randomUUID();
  const workflowId = streamSessionWorkflowId(sessionId);
  let index = 0;
  const started = temporal.workflow
    .start(streamSession, {
      workflowId,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      args: [{ sessionId, accountId: account.id }],
      searchAttributes: { Account: [account.id] },
    })
    .then(() => undefined);
  // Best effort: a word lost only makes the workflow wait for the silence, or record the entry a little early.
  const tell = (open: boolean) =>
    background.run(
      async () => {
        await started;
        await temporal.workflow.getHandle(workflowId).signal(connectionSignal, { open });
      },
      (error) => logger.debug({ err: error, session_id: sessionId }, 'stream session signal not delivered'),
    );
  const renew = setInterval(() => tell(true), READER_RENEW_SECONDS * 1000).unref();
  // A start that failed is the submit's error (it awaits `started`); here it is only kept from going unhandled.
  started.catch(() => clearInterval(renew));
  return {
    started,
    nextPart: () => ({ sessionId, index: index++ }),
    close() {
      clearInterval(renew);
      tell(false);
    },
  };
}
