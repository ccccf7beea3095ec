import type { Context } from 'koa';
import { Account } from '../../db/models/Account';
import { sha256 } from '../../lib/secrets';
import type { ApiDeps } from '../deps';
import { authenticationFailed, notAuthenticated, tokenInvalid } from '../errors';

export const API_KEY_PREFIX = 'vk_';

/**
 * Resolves `Authorization: Bearer <access JWT | API key>` to the caller's
 * account, or throws the 401 of API.md. API keys are looked up by SHA-256.
 */
export async function authenticate(ctx: Context, { db, tokens }: ApiDeps): Promise<Account> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('Authorization'));
  if (!match) throw notAuthenticated();
  const credential = match[1];

  if (credential.startsWith(API_KEY_PREFIX)) {
    const key = await db('api_keys').where({ key_hash: sha256(credential) }).first('id', 'account_id', 'last_used_at');
    if (!key) throw authenticationFailed('Unknown or deleted API key.');
    // One write a minute per key is enough to show when it was last used.
    if (!key.last_used_at || Date.now() - key.last_used_at.getTime() > 60_000) {
      await db('api_keys').where({ id: key.id }).update({ last_used_at: db.fn.now() });
    }
    const account = await Account.query(db).findById(key.account_id);
    if (!account) throw authenticationFailed('Unknown or deleted API key.');
    return account;
  }

  const { accountId } = await tokens.verifyAccess(credential);
  const account = await Account.query(db).findById(accountId);
  if (!account) throw tokenInvalid();
  return account;
}
