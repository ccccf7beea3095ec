import { randomUUID } from 'node:crypto';
import type { PartialModelObject } from 'objection';
import { Account } from '../../../db/models/Account';
import type { Db } from '../../../db/knex';
import { WebhookEndpoint } from '../../../db/models/WebhookEndpoint';
import type { Config } from '../../../lib/config';
import { checkTargetUrl, TargetRefused } from '../../../lib/webhookTarget';
import { newWebhookSecret } from '../../../synthesis/webhooks';
import { notFound, planLimitReached, validationError } from '../../errors';

/** How long a rotated-out secret keeps signing deliveries, beside the new one. */
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** The operator's settings decide the scheme and whether internal hosts are allowed; deliveries check the resolved address again. */
function checkUrl(config: Config, url: string): string {
  try {
    return checkTargetUrl(url, {
      allowHttp: config.WEBHOOK_ALLOW_HTTP,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    }).toString();
  } catch (error) {
    if (error instanceof TargetRefused) throw validationError({ url: [error.message] });
    throw error;
  }
}

export const endpointsOf = (db: Db, account: Account) => WebhookEndpoint.query(db).modify('ownedBy', account);

/** Another account's endpoint is indistinguishable from a missing one. */
export async function findEndpoint(db: Db, account: Account, id: string): Promise<WebhookEndpoint> {
  const endpoint = await endpointsOf(db, account).findById(id);
  if (!endpoint) throw notFound('No such webhook endpoint.');
  return endpoint;
}

/** At most WEBHOOK_MAX_ENDPOINTS per account, counted under a lock on the account's row so two creates at once cannot both take the last one. */
export async function createEndpoint(
  db: Db,
  config: Config,
  account: Account,
  props: { url: string; events: string[]; description: string },
): Promise<WebhookEndpoint> {
  const url = checkUrl(config, props.url);
  return db.transaction(async (trx) => {
    await Account.query(trx).findById(account.id).forUpdate().select('id');
    const { count } = (await endpointsOf(trx, account).count({ count: '*' }).first()) as unknown as { count: string };
    if (Number(count) >= config.WEBHOOK_MAX_ENDPOINTS) {
      throw planLimitReached(
        `An account can have at most ${config.WEBHOOK_MAX_ENDPOINTS} webhook endpoints; delete one first.`,
      );
    }
    return WebhookEndpoint.query(trx)
      .insert({
        id: randomUUID(),
        account_id: account.id,
        url,
        events: [...new Set(props.events)],
        description: props.description,
        secret: newWebhookSecret(),
      })
      .returning('*');
  });
}

export async function updateEndpoint(
  db: Db,
  config: Config,
  account: Account,
  id: string,
  changes: { url?: string; events?: string[]; enabled?: boolean; description?: string },
): Promise<WebhookEndpoint> {
  await findEndpoint(db, account, id);
  const patch: PartialModelObject<WebhookEndpoint> = { updated_at: db.fn.now() };
  if (changes.url !== undefined) patch.url = checkUrl(config, changes.url);
  if (changes.events !== undefined) patch.events = [...new Set(changes.events)];
  if (changes.description !== undefined) patch.description = changes.description;
  // Enabling again clears the reason the service disabled it.
  if (changes.enabled !== undefined) Object.assign(patch, { enabled: changes.enabled, disabled_reason: null });
  await endpointsOf(db, account).patch(patch).where({ 'webhook_endpoints.id': id });
  return findEndpoint(db, account, id);
}

export async function deleteEndpoint(db: Db, account: Account, id: string): Promise<void> {
  // Its deliveries go with it; a delivery workflow still retrying finds no row and stops.
  const deleted = await endpointsOf(db, account).where({ id }).delete();
  if (!deleted) throw notFound('No such webhook endpoint.');
}

/** A new secret; the current one keeps signing (as a second `v1=`) for 24 h. */
export async function rotateSecret(db: Db, account: Account, id: string): Promise<WebhookEndpoint> {
  const endpoint = await findEndpoint(db, account, id);
  await WebhookEndpoint.query(db)
    .where({ id: endpoint.id })
    .patch({
      secret: newWebhookSecret(),
      previous_secret: endpoint.secret,
      previous_secret_expires_at: new Date(Date.now() + ROTATION_OVERLAP_MS),
      updated_at: db.fn.now(),
    });
  return findEndpoint(db, account, id);
}
