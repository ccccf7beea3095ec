import { createHash, randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import type { Account } from '../db/models/Account';
import { IdempotencyKey } from '../db/models/IdempotencyKey';
import type { Db } from '../db/knex';
import { ApiError, idempotencyKeyInUse, idempotencyKeyReused, validationError } from './errors';

/**
 * Idempotency-Key: per account, across both families, for 24 h. The same key
 * with the same body (compared as parsed JSON) replays the first 2xx
 * response; a different body is 422; a repeat while the first request is
 * still running is 409.
 *
 * A key binds one synthesis id from its first claim, for the whole window:
 * when the outcome of a request is unknown (a 503, a timeout, a process that
 * died), a repeat reaches the same synthesis workflow and gets its answer, so
 * nothing is ever reserved twice. Only a request that answered with a client
 * error (validation, 402: nothing was started or held) frees the key.
 */

const WINDOW_MS = 24 * 3600 * 1000;
/**
 * A claim is held this long: a repeat meanwhile is 409. Past it, a repeat
 * takes the claim over, keeping the synthesis id; that is safe even when the
 * first request still runs (both reach the same workflow and get one answer),
 * so a request that died blocks its key for seconds only.
 */
const LOCK_MS = 5_000;
/**
 * Times are the database's (`now()`), never an API process's own clock: the
 * API processes of a deployment compare each other's claims, and a node whose
 * clock ran 90 s ahead otherwise wrote claims that held for 95 s on the others
 * (the multi-node harness measured it).
 */
const LOCK_END = `now() + interval '${LOCK_MS} milliseconds'`;
const KEY = /^[\x20-\x7E]{1,255}$/;

export interface StoredResponse {
  status: number;
  body: unknown;
  location: string | null;
}

/** JSON with object keys sorted, so bodies that parse the same hash the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The Idempotency-Key header, or undefined without one; a malformed key is a 400. */
export function readIdempotencyKey(ctx: Context): string | undefined {
  const key = ctx.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw validationError({ 'Idempotency-Key': ['Must be 1-255 printable ASCII characters.'] });
  }
  return key;
}

type Claim = { kind: 'run'; synthesisId: string } | { kind: 'replay'; response: StoredResponse };

async function claim(db: Db, account: Account, key: string, requestHash: Buffer): Promise<Claim> {
  return db.transaction(async (trx) => {
    const lockedUntil = trx.raw(LOCK_END);
    const claimed = await IdempotencyKey.claimFree(trx, {
      account_id: account.id,
      key,
      request_hash: requestHash,
      synthesis_id: randomUUID(),
      status: 'in_progress',
      locked_until: lockedUntil,
    });
    if (claimed) return { kind: 'run', synthesisId: claimed };

    const existing = (await IdempotencyKey.of(trx, account.id, key)
      .forUpdate()
      .select(
        '*',
        trx.raw('locked_until > now() as held'),
        trx.raw(`created_at < now() - interval '${WINDOW_MS} milliseconds' as expired`),
      )
      .first()
      .throwIfNotFound()) as IdempotencyKey & { held: boolean; expired: boolean };
    if (existing.expired) {
      // Past the 24 h window the key is free again: a new request, a new synthesis.
      const synthesisId = randomUUID();
      await IdempotencyKey.of(trx, account.id, key).patch({
        request_hash: requestHash,
        synthesis_id: synthesisId,
        status: 'in_progress',
        locked_until: lockedUntil,
        response_status: null,
        response_body: null,
        response_location: null,
        created_at: trx.fn.now(),
      });
      return { kind: 'run', synthesisId };
    }
    if (!Buffer.from(existing.request_hash).equals(requestHash)) throw idempotencyKeyReused();
    if (existing.status === 'completed') {
      // A completed key always has its response (written in one update with the status).
      return {
        kind: 'replay',
        response: {
          status: existing.response_status as number,
          body: existing.response_body,
          location: existing.response_location,
        },
      };
    }
    if (existing.held) throw idempotencyKeyInUse();
    // Abandoned: carry on with the same synthesis id, so nothing is started or charged twice.
    await IdempotencyKey.of(trx, account.id, key).patch({ locked_until: lockedUntil });
    return { kind: 'run', synthesisId: existing.synthesis_id };
  });
}

/**
 * Runs `handle` once per (account, key, body); `handle` gets the synthesis id
 * the key stands for. Returns the response to send and whether it is a replay.
 */
export async function idempotent(
  db: Db,
  account: Account,
  key: string,
  requestBody: unknown,
  handle: (synthesisId: string) => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  const requestHash = createHash('sha256').update(canonicalJson(requestBody)).digest();
  const claimed = await claim(db, account, key, requestHash);
  if (claimed.kind === 'replay') return { ...claimed.response, replayed: true };
  let response: StoredResponse;
  try {
    response = await handle(claimed.synthesisId);
  } catch (error) {
    const claim = IdempotencyKey.of(db, account.id, key).where({ status: 'in_progress' });
    if (error instanceof ApiError && error.status < 500) {
      // A client error started and holds nothing: the key is free for a corrected request.
      await claim.delete();
    } else {
      // Unknown outcome: the key keeps its synthesis id and the next repeat goes ahead at once.
      await claim.patch({ locked_until: db.fn.now() }).catch(() => undefined);
    }
    throw error;
  }
  await IdempotencyKey.of(db, account.id, key).patch({
    status: 'completed',
    response_status: response.status,
    response_body: JSON.stringify(response.body),
    response_location: response.location,
  });
  return { ...response, replayed: false };
}
