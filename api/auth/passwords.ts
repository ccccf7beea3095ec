import { Algorithm, hash, verify } from '@node-rs/argon2';

/** argon2id with OWASP's minimum memory cost (19 MiB, 2 passes). */
const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

// Verified when the email is unknown, so that answer takes as long as a wrong password.
const dummyHash = hash('openvox-timing-equalizer', OPTIONS);

/** Constant-time comparison inside argon2; `null` hashes (unknown accounts) cost the same and fail. */
export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  if (passwordHash === null) {
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}
