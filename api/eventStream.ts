import type { Context } from 'koa';
import { PassThrough } from 'node:stream';
import type { Config } from '../lib/config';
import type { ApiDeps } from './deps';
import { rateLimited } from './errors';
import { toApiError } from './failures';
import { createOpenCounts } from './openCounts';

/** With nothing new for this long, a comment line keeps proxies from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;

/**
 * Event streams open in this process, per account and per client address:
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

/** Whether the client asked for Server-Sent Events. */
export const wantsEventStream = (ctx: Context) => /\btext\/event-stream\b/i.test(ctx.get('Accept'));

/**
 * A resource's state as Server-Sent Events: a `status` event (`present(row)`)
 * now and at every change, until `ended(row)`; then the stream closes.
 * Changes come from the NOTIFY the workers send on the progress channel with
 * the resource's id (lib/progress.ts), so nothing polls; a missed one costs
 * at most the keep-alive interval. A read that fails (deleted meanwhile, a
 * dependency down) is said as an `error` event, then the stream ends.
 */
export async function streamEvents<Row>(
  ctx: Context,
  deps: ApiDeps,
  accountId: string,
  id: string,
  { read, present, ended }: { read: () => Promise<Row>; present: (row: Row) => unknown; ended: (row: Row) => boolean },
): Promise<void> {
  const release = takeStreamPlace(deps.config, accountId, ctx.ip);
  ctx.res.once('close', release);
  // Watching before the first read: a change between the two is not missed.
  const watch = await deps.progress.watch(id);
  let row: Row;
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
      const data = JSON.stringify(present(row));
      if (data !== last) out.write(`event: status\ndata: ${data}\n\n`);
      else out.write(': keep-alive\n\n');
      last = data;
      if (ended(row)) return;
      await watch.wait(KEEP_ALIVE_MS, abort.signal);
      if (abort.signal.aborted) return;
      row = await read();
    }
  };
  follow()
    .catch((error) => {
      const { error: problem } = toApiError(error);
      out.write(`event: error\ndata: ${JSON.stringify({ code: problem.code, message: problem.message })}\n\n`);
    })
    .finally(() => {
      watch.close();
      out.end();
    });
}
