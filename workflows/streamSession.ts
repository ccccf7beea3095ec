import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { StreamSessionOutcome } from '../activities/streamSessions';
import { connectionSignal, READER_SILENCE_SECONDS, type StreamSessionInput } from '../synthesis/contracts';

/**
 * Records the entry once the pieces have ended: it fails while one still runs (a queued piece may wait for a slot),
 * and a storage or database outage is waited out, so it retries without a limit.
 */
const { recordStreamSession } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/**
 * `stream-session:<uuid>`: a stream-input connection, one synthesis in
 * history. Its pieces are syntheses of their own (`partOf` this session),
 * each charged as it is spoken. The workflow waits, holding nothing, while
 * the API says the connection is open; once it has closed (or the API has
 * been silent for READER_SILENCE_SECONDS: it died with the connection), the
 * entry is recorded from the pieces: their text, their charge, their audio
 * joined into one file.
 */
export async function streamSession(input: StreamSessionInput): Promise<StreamSessionOutcome> {
  let open = true;
  let heard = false;
  setHandler(connectionSignal, ({ open: stillOpen }) => {
    heard = true;
    if (!stillOpen) open = false;
  });
  const silence = `${input.silenceSeconds ?? READER_SILENCE_SECONDS} seconds` as const;
  while (open) {
    heard = false;
    if (!(await condition(() => !open || heard, silence))) break;
  }
  return recordStreamSession(input);
}
