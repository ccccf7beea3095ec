import type { Context } from 'koa';
import { Account } from '../../db/models/Account';
import { ApiKey } from '../../db/models/ApiKey';
import { sha256 } from '../../lib/secrets';
import type { ApiDeps } from '../deps';
import { authenticationFailed, notAuthenticated, tokenInvalid } from '../errors';
import { authCacheOf } from './cache';

export const API_KEY_PREFIX = 'vk_';

/** Marked deleted (db/privacy.ts): its rows are being erased. */
const isDeleted = (account: Account) => Boolean((account as Account & { deleted_at?: Date | null }).deleted_at);

export interface AuthenticateOptions {
  /**
   * The route needs only who the caller is (a status read): the account row
   * may come from the per-process cache, up to AUTH_CACHE_SECONDS old.
   */
  cachedAccount?: boolean;
}

/**
 * Resolves `Authorization: Bearer <access JWT | API key>` to the caller's
 * account, or throws the 401 of API.md. API keys are looked up by SHA-256.
 * Who a credential is stays in a per-process cache for AUTH_CACHE_SECONDS
 * (api/auth/cache.ts), dropped at once when a key or an account is deleted.
 */
export async function authenticate(ctx: Context, deps: ApiDeps, options: AuthenticateOptions = {}): Promise<Account> {
  const credential = bearerCredential(ctx.get('Authorization'));
  if (!credential) throw notAuthenticated();
  return accountOfCredential(deps, credential, options);
}

/** The credential of an `Authorization: Bearer <credential>` header, or undefined. */
export const bearerCredential = (header: string | undefined): string | undefined =>
  /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];

/** The account of an access JWT or API key, as a Bearer token names it (a WebSocket's key comes in its first message). */
export async function accountOfCredential(
  deps: ApiDeps,
  credential: string,
  options: AuthenticateOptions = {},
): Promise<Account> {
  const { db, tokens, progress, config } = deps;
  const cache = authCacheOf(progress, config.AUTH_CACHE_SECONDS);
  const isKey = credential.startsWith(API_KEY_PREFIX);

  let identity = cache.identity(credential);
  if (!identity) {
    const until = Date.now() + cache.ttlMs;
    identity =
      (await cache.rememberIdentity(credential, async () => {
        if (!isKey) {
          // Never kept past the token's own expiry.
          const { accountId, expiresAt } = await tokens.verifyAccess(credential);
          return { accountId, until: Math.min(until, expiresAt) };
        }
        const key = await ApiKey.query(db)
          .findOne({ key_hash: sha256(credential) })
          .select('id', 'account_id', 'last_used_at');
        return key
          ? { accountId: key.account_id, keyId: key.id, lastUsedAt: key.last_used_at?.getTime() ?? 0, until }
          : null;
      })) ?? undefined;
    if (!identity) throw authenticationFailed('Unknown or deleted API key.');
  }
  // One write a minute per key is enough to show when it was last used.
  if (identity.keyId && Date.now() - (identity.lastUsedAt ?? 0) > 60_000) {
    identity.lastUsedAt = Date.now();
    await ApiKey.query(db).patch({ last_used_at: db.fn.now() }).where({ id: identity.keyId });
  }

  const read = async () => Account.query(db).findById(identity.accountId);
  const account = options.cachedAccount ? await cache.account(identity.accountId, read) : await read();
  if (!account || isDeleted(account))
    throw isKey ? authenticationFailed('Unknown or deleted API key.') : tokenInvalid();
  return account;
}
