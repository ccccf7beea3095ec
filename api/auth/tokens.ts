import { errors, jwtVerify, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import type { Config } from '../../lib/config';
import { tokenExpired, tokenInvalid } from '../errors';

/**
 * Access and refresh tokens are JWTs signed with HS256 and verified with an
 * explicit allow-list of that one algorithm (no `none`, no key confusion).
 * Each kind has its own audience and `token_type`, so neither works as the other.
 */
const ALGORITHM = 'HS256';
const ISSUER = 'openvox';
const AUDIENCE = { access: 'openvox:api', refresh: 'openvox:refresh' } as const;
type TokenType = keyof typeof AUDIENCE;

interface IssuedRefresh {
  token: string;
  jti: string;
  expiresAt: Date;
}

export interface TokenService {
  accessTtl: number;
  issueAccess(accountId: string): Promise<string>;
  issueRefresh(accountId: string, familyId: string): Promise<IssuedRefresh>;
  /** The account, and when the token expires (epoch ms). */
  verifyAccess(token: string): Promise<{ accountId: string; expiresAt: number }>;
  verifyRefresh(token: string): Promise<{ accountId: string; jti: string; familyId: string }>;
}

export function createTokenService(
  config: Pick<Config, 'ACCESS_TOKEN_TTL' | 'REFRESH_TOKEN_TTL'>,
  key: Uint8Array,
): TokenService {
  const sign = (type: TokenType, accountId: string, ttl: number, extra: Record<string, string> = {}) => {
    const jti = randomUUID();
    const token = new SignJWT({ token_type: type, ...extra })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(accountId)
      .setJti(jti)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE[type])
      .setIssuedAt()
      .setExpirationTime(`${ttl}s`)
      .sign(key);
    return { token, jti };
  };

  const verify = async (type: TokenType, token: string) => {
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: [ALGORITHM],
        issuer: ISSUER,
        audience: AUDIENCE[type],
      });
      if (payload.token_type !== type || typeof payload.sub !== 'string' || typeof payload.jti !== 'string')
        throw tokenInvalid();
      return payload;
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw tokenExpired();
      throw tokenInvalid();
    }
  };

  return {
    accessTtl: config.ACCESS_TOKEN_TTL,
    async issueAccess(accountId) {
      return sign('access', accountId, config.ACCESS_TOKEN_TTL).token;
    },
    async issueRefresh(accountId, familyId) {
      const { token, jti } = sign('refresh', accountId, config.REFRESH_TOKEN_TTL, { fam: familyId });
      return { token: await token, jti, expiresAt: new Date(Date.now() + config.REFRESH_TOKEN_TTL * 1000) };
    },
    async verifyAccess(token) {
      const payload = await verify('access', token);
      return { accountId: payload.sub as string, expiresAt: (payload.exp ?? 0) * 1000 };
    },
    async verifyRefresh(token) {
      const payload = await verify('refresh', token);
      if (typeof payload.fam !== 'string') throw tokenInvalid();
      return { accountId: payload.sub as string, jti: payload.jti as string, familyId: payload.fam };
    },
  };
}
