import type { Context } from 'koa';
import { PassThrough } from 'node:stream';
import type { Account } from '../../../db/models/Account';
import type { SynthesisStatusRow } from '../../../db/models/Synthesis';
import type { ApiDeps } from '../../deps';
import { toApiError } from '../../failures';
import type { Family } from '../../route';
import { findSynthesisStatus } from './commands';
import { presentStatus } from './presenter';
import { statusCacheOf } from './statusCache';
import { rateLimited } from '../../errors';
import { createOpenCounts } from '../../openCounts';
import type { Config } from '../../../lib/config';

/** With nothing new for this long, a comment line keeps proxies from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;
const ENDED = new Set(['completed', 'failed', 'canceled']);

/**
 * Status streams open in this process, per account and per client address:
 * each holds a connection and a LISTEN watch, so one account (or one address
 * with many accounts) may keep SSE_MAX_STREAMS_PER_ACCOUNT / _PER_IP open at
 * once; more are 429 until one closes.
 */
const openStreams = createOpenCounts();

/** Counts one more stream of the account and address, or throws 429; returns the release. */
function takeStreamPlace(
  config: Pick<Config, 'SSE_MAX_STREAMS_PER_ACCOUNT' | 'SSE_MAX_STREAMS_PER_IP'>,
  accountId: string,
  ip: string,
): () => void {
  const account = `account:${accountId}`;
  const address = `ip:${ip}`;
  if (
    openStreams.atLimit(account, config.SSE_MAX_STREAMS_PER_ACCOUNT) ||
    openStreams.atLimit(address, config.SSE_MAX_STREAMS_PER_IP)
  )
    throw rateLimited(1);
  return openStreams.hold([account, address]);
}

/** Whether the client asked for the status as Server-Sent Events. */
export const wantsEventStream = (ctx: Context) => /\btext\/event-stream\b/i.test(ctx.get('Accept'));

/**
 * The status of a synthesis as Server-Sent Events: a `status` event (the
 * status object of GET .../status/) now and at every change, until it has
 * ended; then the stream closes. Changes come from the same NOTIFY the
 * workers send for streaming (lib/progress.ts), so nothing polls.
 */
export async function streamStatus(
  ctx: Context,
  deps: ApiDeps,
  account: Account,
  id: string,
  family: Family,
): Promise<void> {
  const release = takeStreamPlace(deps.config, account.id, ctx.ip);
  ctx.res.once('close', release);
  const cache = statusCacheOf(deps);
  const read = () => cache.findShared(account, id, () => findSynthesisStatus(deps, account, id));
  // Watching before the first read: a change between the two is not missed.
  const watch = await deps.progress.watch(id);
  let row: SynthesisStatusRow;
  try {
    row = await read();
  } catch (error) {
    watch.close();
    throw error;
  }
  const abort = new AbortController();
  ctx.res.once('close', () => abort.abort());
  const out = new PassThrough();
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.req.socket.setNoDelay(true);
  ctx.body = out;

  const follow = async () => {
    let last = '';
    for (;;) {
      const data = JSON.stringify(presentStatus(row, family));
      if (data !== last) out.write(`event: status\ndata: ${data}\n\n`);
      else out.write(': keep-alive\n\n');
      last = data;
      if (ENDED.has(row.status)) return;
      await watch.wait(KEEP_ALIVE_MS, abort.signal);
      if (abort.signal.aborted) return;
      row = await read();
    }
  };
  follow()
    .catch((error) => {
      // Deleted meanwhile (404) or a dependency down: said as an event, then the stream ends.
      const { error: problem } = toApiError(error);
      out.write(`event: error\ndata: ${JSON.stringify({ code: problem.code, message: problem.message })}\n\n`);
    })
    .finally(() => {
      watch.close();
      out.end();
    });
}
