import { base64url, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';

/**
 * Hand-made JWTs for negative tests of bearer authentication. The claims
 * mirror what api/auth/tokens.ts issues, so that each forged token differs
 * from a genuine one in exactly the one way a test means it to.
 */

export type TokenType = 'access' | 'refresh';

const AUDIENCE: Record<TokenType, string> = { access: 'openvox:api', refresh: 'openvox:refresh' };

export interface ForgeOptions {
  type?: TokenType;
  /** Seconds since the epoch; defaults to 10 minutes from now. */
  exp?: number;
  /** HS256 unless a test wants another algorithm with the same key. */
  alg?: 'HS256' | 'HS384' | 'HS512';
  /** Claims added to or overriding the defaults. */
  claims?: Record<string, unknown>;
}

const now = () => Math.floor(Date.now() / 1000);

/** The payload a genuine token of `type` for `accountId` carries. */
function genuineClaims(accountId: string, type: TokenType = 'access', exp = now() + 600): Record<string, unknown> {
  return {
    token_type: type,
    ...(type === 'refresh' && { fam: randomUUID() }),
    sub: accountId,
    jti: randomUUID(),
    iss: 'openvox',
    aud: AUDIENCE[type],
    iat: now() - 5,
    exp,
  };
}

/** A token signed with `key` (the real one, or a wrong one). */
export function signToken(
  key: Uint8Array,
  accountId: string,
  { type = 'access', exp, alg = 'HS256', claims = {} }: ForgeOptions = {},
): Promise<string> {
  const payload = { ...genuineClaims(accountId, type, exp), ...claims };
  return new SignJWT(payload).setProtectedHeader({ alg, typ: 'JWT' }).sign(key);
}

const encodeJson = (value: unknown) => base64url.encode(JSON.stringify(value));

/** An unsecured JWT (`alg: none`) with an empty signature and otherwise genuine claims. */
export function unsignedToken(accountId: string, type: TokenType = 'access'): string {
  return `${encodeJson({ alg: 'none', typ: 'JWT' })}.${encodeJson(genuineClaims(accountId, type))}.`;
}

/** The token with its payload changed by `changes`, keeping the original header and signature. */
export function tamperPayload(token: string, changes: Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload))) as Record<string, unknown>;
  return `${header}.${encodeJson({ ...claims, ...changes })}.${signature}`;
}

/** The claims of a token, unverified. */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(new TextDecoder().decode(base64url.decode(token.split('.')[1]))) as Record<string, unknown>;
}
