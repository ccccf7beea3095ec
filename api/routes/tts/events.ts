import type { Context } from 'koa';
import type { Account } from '../../../db/models/Account';
import type { ApiDeps } from '../../deps';
import { streamEvents } from '../../eventStream';
import type { Family } from '../../route';
import { findSynthesisStatus } from './commands';
import { presentStatus } from './presenter';
import { statusCacheOf } from './statusCache';

const ENDED = new Set(['completed', 'failed', 'canceled']);

/**
 * The status of a synthesis as Server-Sent Events: a `status` event (the
 * status object of GET .../status/) now and at every change, until it has
 * ended (api/eventStream.ts).
 */
export function streamStatus(ctx: Context, deps: ApiDeps, account: Account, id: string, family: Family): Promise<void> {
  const cache = statusCacheOf(deps);
  return streamEvents(ctx, deps, account.id, id, {
    read: () => cache.findShared(account, id, () => findSynthesisStatus(deps, account, id)),
    present: (row) => presentStatus(row, family),
    ended: (row) => ENDED.has(row.status),
  });
}
